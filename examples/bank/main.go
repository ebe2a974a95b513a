// Command bank runs the seed's fund transfer (dynamodb-single-table-
// adjacency.txt, "Transactions: ACID Across Multiple Items") against
// DynamoDB Local: a transfer debits one account on condition that it has
// the funds, credits the other and writes a transfer record, all in one
// transaction. It then shows an overdraft being refused, with nothing
// changed, and exits non-zero if any result is not what it should be.
//
//	make examples   # starts DynamoDB Local and runs every example
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// Account is a bank account; amounts are in cents.
type Account struct {
	ID      string    `dynamodbav:"accountId"`
	Owner   string    `dynamodbav:"owner"`
	Balance int64     `dynamodbav:"balance"`
	Updated time.Time `dynamodbav:"updatedAt" singletable:"updated"`
}

// Transfer records one transfer between accounts.
type Transfer struct {
	ID      string    `dynamodbav:"transferId"`
	From    string    `dynamodbav:"fromAccount"`
	To      string    `dynamodbav:"toAccount"`
	Amount  int64     `dynamodbav:"amount"`
	Created time.Time `dynamodbav:"createdAt" singletable:"created"`
}

var (
	Bank     = st.MustTable("Accounts")
	Accounts = st.MustDefine[Account](Bank, "Account", st.Key("ACCOUNT#{ID}", "ACCOUNT#{ID}"))
	// The seed keys a transfer by its id in both keys, like an account.
	Transfers = st.MustDefine[Transfer](Bank, "Transfer", st.Key("TRANSFER#{ID}", "TRANSFER#{ID}"))
)

// transferFunds is the seed's transferFunds: debit with a sufficient-funds
// condition, credit, and the transfer record, all or nothing. Both accounts
// must exist (Update without Upsert requires the item).
func transferFunds(ctx context.Context, db *st.DB, from, to string, amount int64) (string, error) {
	id := newID()
	err := db.Transact(ctx, func(tx *st.Tx) error {
		Accounts.TxUpdate(tx, Account{ID: from}, st.Decrement("Balance", amount).If(st.Ge("Balance", amount)))
		Accounts.TxUpdate(tx, Account{ID: to}, st.Increment("Balance", amount))
		Transfers.TxCreate(tx, Transfer{ID: id, From: from, To: to, Amount: amount})
		return nil
	})
	return id, err
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery transfer did what it should, and every refused one changed nothing.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Bank)
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("Created table %s.\n", db.TableName())
	for _, a := range []Account{{ID: "alice", Owner: "Alice", Balance: 100_00}, {ID: "bob", Owner: "Bob", Balance: 50_00}} {
		if err := Accounts.Create(ctx, db, a); err != nil {
			return err
		}
	}
	var c examplekit.Checker
	show := func() (alice, bob Account) {
		alice, err1 := Accounts.Get(ctx, db, Account{ID: "alice"}, st.ConsistentRead())
		bob, err2 := Accounts.Get(ctx, db, Account{ID: "bob"}, st.ConsistentRead())
		c.Equal("accounts readable", []error{nil, nil}, []error{err1, err2})
		fmt.Printf("  balances: alice %s, bob %s\n", money(alice.Balance), money(bob.Balance))
		return alice, bob
	}
	fmt.Println("\nOpening balances")
	show()

	fmt.Println("\n1. Transfer 30.00 from alice to bob")
	id, err := transferFunds(ctx, db, "alice", "bob", 30_00)
	if err != nil {
		return err
	}
	alice, bob := show()
	c.Equal("alice debited", int64(70_00), alice.Balance)
	c.Equal("bob credited", int64(80_00), bob.Balance)
	rec, err := Transfers.Get(ctx, db, Transfer{ID: id})
	c.Equal("transfer recorded", []any{nil, "alice", "bob", int64(30_00)}, []any{err, rec.From, rec.To, rec.Amount})
	fmt.Printf("  transfer %s recorded at %s\n", rec.ID, rec.Created.Format(time.RFC3339))

	fmt.Println("\n2. Overdraft: transfer 500.00 from bob, who has 80.00")
	id, err = transferFunds(ctx, db, "bob", "alice", 500_00)
	fmt.Printf("  refused: %v\n", err)
	c.Equal("refused with ErrConditionFailed", true, errors.Is(err, st.ErrConditionFailed))
	var txErr *st.TxError
	if errors.As(err, &txErr) && len(txErr.Actions) == 1 {
		f := txErr.Actions[0]
		c.Equal("the failed action is the debit", []any{0, "Account", "Update", "ConditionalCheckFailed"}, []any{f.Index, f.Entity, f.Op, f.Code})
		cur, ok := Accounts.CurrentItem(err)
		c.Equal("the error carries bob's account as stored", []any{true, int64(80_00)}, []any{ok, cur.Balance})
	} else {
		c.Equal("one failed action in a *TxError", true, false)
	}
	alice, bob = show()
	c.Equal("balances unchanged", []int64{70_00, 80_00}, []int64{alice.Balance, bob.Balance})
	_, err = Transfers.Get(ctx, db, Transfer{ID: id})
	c.Equal("no transfer record", true, errors.Is(err, st.ErrNotFound))

	fmt.Println("\n3. Transfer to an account that does not exist")
	_, err = transferFunds(ctx, db, "alice", "mallory", 10_00)
	fmt.Printf("  refused: %v\n", err)
	c.Equal("refused: the credited account is not found", true, errors.Is(err, st.ErrNotFound))
	alice, _ = show()
	c.Equal("alice not debited", int64(70_00), alice.Balance)

	fmt.Println("\n4. Transfer from an account to itself")
	_, err = transferFunds(ctx, db, "alice", "alice", 10_00)
	fmt.Printf("  refused before sending: %v\n", err)
	c.Equal("refused as invalid input", true, errors.Is(err, st.ErrInvalidInput))

	alice, bob = show()
	c.Equal("money is neither created nor destroyed", int64(150_00), alice.Balance+bob.Balance)
	return c.Err()
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }

func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
