package singletable_test

// Runnable examples (example_*_test.go, by theme, as Go names example
// files): transactions, locking, unique values, batches and changes.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// The write examples use a small bank and shop on the recording mock, with
// the answers DynamoDB would give.

type Account struct {
	ID      string `dynamodbav:"accountId"`
	Balance int64  `dynamodbav:"balance"`
}

type Item struct {
	SKU     string  `dynamodbav:"sku"`
	Price   float64 `dynamodbav:"price"`
	Stock   int     `dynamodbav:"stock"`
	Version int64   `dynamodbav:"version" singletable:"version"`
}

type Member struct {
	ID      string    `dynamodbav:"memberId"`
	Email   string    `dynamodbav:"email" singletable:"unique"`
	Joined  time.Time `dynamodbav:"joined" singletable:"created"`
	Changed time.Time `dynamodbav:"changed" singletable:"updated"`
}

var (
	writeTable = singletable.MustTable("Writes")
	Accounts   = singletable.MustDefine[Account](writeTable, "Account", singletable.Key("ACCOUNT#{ID}", "ACCOUNT#{ID}"))
	Items      = singletable.MustDefine[Item](writeTable, "Item", singletable.Key("ITEM#{SKU}", "ITEM"))
	Members    = singletable.MustDefine[Member](writeTable, "Member", singletable.Key("MEMBER#{ID}", "PROFILE"))
)

// A fund transfer in one transaction: the debit needs sufficient funds, and
// when it fails the *TxError says which action failed and why.
func ExampleDB_Transact() {
	mock := &singletabletest.Client{
		TransactWriteItemsFunc: func(context.Context, *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
			return nil, &types.TransactionCanceledException{Message: strp("Transaction cancelled"), CancellationReasons: []types.CancellationReason{
				{Code: strp("ConditionalCheckFailed"), Message: strp("The conditional request failed"), Item: map[string]types.AttributeValue{
					"_type": &types.AttributeValueMemberS{Value: "Account"}, "accountId": &types.AttributeValueMemberS{Value: "bob"},
					"balance": &types.AttributeValueMemberN{Value: "8000"}}},
				{Code: strp("None")},
			}}
		},
	}
	db := singletable.New(mock, writeTable)

	amount := int64(50000)
	err := db.Transact(context.Background(), func(tx *singletable.Tx) error {
		Accounts.TxUpdate(tx, Account{ID: "bob"}, singletable.Decrement("Balance", amount).If(singletable.Ge("Balance", amount)))
		Accounts.TxUpdate(tx, Account{ID: "alice"}, singletable.Increment("Balance", amount))
		return nil
	})
	var txErr *singletable.TxError
	if errors.As(err, &txErr) {
		for _, f := range txErr.Actions {
			fmt.Println("action", f.Index, f.Op, f.Entity, f.Code)
		}
	}
	fmt.Println(errors.Is(err, singletable.ErrConditionFailed))
	bob, _ := Accounts.CurrentItem(err)
	fmt.Println("bob has", bob.Balance)
	fmt.Println(err)
	// Output:
	// action 0 Update Account ConditionalCheckFailed
	// true
	// bob has 8000
	// singletable: Transact: transaction cancelled: action 0 (Update Account {PK=ACCOUNT#bob SK=ACCOUNT#bob}): ConditionalCheckFailed (Account.Update {PK=ACCOUNT#bob SK=ACCOUNT#bob}: condition failed: the condition balance >= 50000 does not hold)
}

// Optimistic locking: an update from a stale read is refused with the item
// as it is now, to retry from.
func ExampleEntity_Update_optimisticLocking() {
	mock := &singletabletest.Client{
		UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return nil, &types.ConditionalCheckFailedException{Message: strp("The conditional request failed"), Item: map[string]types.AttributeValue{
				"_type": &types.AttributeValueMemberS{Value: "Item"}, "sku": &types.AttributeValueMemberS{Value: "pen"},
				"price": &types.AttributeValueMemberN{Value: "2.5"}, "version": &types.AttributeValueMemberN{Value: "8"}}}
		},
	}
	db := singletable.New(mock, writeTable)
	read := Item{SKU: "pen", Price: 2, Version: 7} // as read earlier

	_, err := Items.Update(context.Background(), db, read, singletable.Set("Price", 1.99))
	fmt.Println(errors.Is(err, singletable.ErrVersionConflict))
	fmt.Println(err)
	if current, ok := Items.CurrentItem(err); ok {
		fmt.Printf("now at version %d, price %.2f\n", current.Version, current.Price)
	}
	in := mock.Calls()[0].Input.(*dynamodb.UpdateItemInput)
	fmt.Println(*in.UpdateExpression, "IF", *in.ConditionExpression)
	// Output:
	// true
	// singletable: Item.Update {PK=ITEM#pen SK=ITEM}: version conflict: expected version 7, the item is at version 8
	// now at version 8, price 2.50
	// SET #n0 = :v0 ADD #n1 :v1 IF ((attribute_exists(#n2)) AND (#n3 = :v2)) AND (#n1 = :v3)
}

// A unique email is kept by a guard item written in the same transaction as
// the member.
func ExampleUnique() {
	clock := func() time.Time { return time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC) }
	db := singletable.New(&singletabletest.Client{}, writeTable, singletable.WithClock(clock))
	in, _ := db.TransactInput(func(tx *singletable.Tx) error {
		Members.TxCreate(tx, Member{ID: "m1", Email: "ann@example.com"})
		return nil
	})
	for _, it := range in.TransactItems {
		pk := it.Put.Item["PK"].(*types.AttributeValueMemberS).Value
		fmt.Println("Put", pk, "if", *it.Put.ConditionExpression)
	}
	// Output:
	// Put MEMBER#m1 if attribute_not_exists(#n0)
	// Put _unique#Member#email#ann@example.com if (attribute_not_exists(#n0)) OR ((#n1 = :v0) AND (#n2 = :v1))
}

// BatchWrite sends any number of puts and deletes, retries what DynamoDB
// leaves unprocessed, and returns what is still left, typed.
func ExampleDB_BatchWrite() {
	mock := &singletabletest.Client{
		// This DynamoDB never processes deletes.
		BatchWriteItemFunc: func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
			var left []types.WriteRequest
			for _, r := range in.RequestItems["Writes"] {
				if r.DeleteRequest != nil {
					left = append(left, r)
				}
			}
			return &dynamodb.BatchWriteItemOutput{UnprocessedItems: map[string][]types.WriteRequest{"Writes": left}}, nil
		},
	}
	db := singletable.New(mock, writeTable)
	var accounts []Account
	for i := 0; i < 60; i++ {
		accounts = append(accounts, Account{ID: fmt.Sprintf("a%02d", i), Balance: 100})
	}
	err := db.BatchWrite(context.Background(), []singletable.BatchOp{
		singletable.BatchPut(Accounts, accounts...),
		singletable.BatchDelete(Accounts, Account{ID: "old1"}, Account{ID: "old2"}),
	}, singletable.BatchRetry(singletable.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}))
	fmt.Println(errors.Is(err, singletable.ErrUnprocessed))
	fmt.Println("not deleted:", Accounts.UnprocessedDeletes(err))
	fmt.Println("not put:", len(Accounts.UnprocessedPuts(err)))
	// Output:
	// true
	// not deleted: [{old1 0} {old2 0}]
	// not put: 0
}

// BatchGet returns one entry per key, in the keys' order: nil for a miss.
func ExampleEntity_BatchGet() {
	mock := &singletabletest.Client{
		BatchGetItemFunc: func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
			return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"Writes": {
				{"PK": &types.AttributeValueMemberS{Value: "ACCOUNT#bob"}, "SK": &types.AttributeValueMemberS{Value: "ACCOUNT#bob"},
					"_type": &types.AttributeValueMemberS{Value: "Account"}, "accountId": &types.AttributeValueMemberS{Value: "bob"},
					"balance": &types.AttributeValueMemberN{Value: "80"}},
			}}}, nil
		},
	}
	db := singletable.New(mock, writeTable)
	got, _ := Accounts.BatchGet(context.Background(), db, []Account{{ID: "alice"}, {ID: "bob"}})
	for i, a := range got {
		if a == nil {
			fmt.Println(i, "missing")
			continue
		}
		fmt.Println(i, a.ID, a.Balance)
	}
	// Output:
	// 0 missing
	// 1 bob 80
}

// Update changes are written over Go field names; reserved words and nested
// paths are always placeholders.
func ExampleIncrement() {
	db := singletable.New(&singletabletest.Client{}, writeTable)
	in, _ := Accounts.UpdateInput(db, Account{ID: "alice"}, singletable.Increment("Balance", 25))
	fmt.Println(*in.UpdateExpression)
	fmt.Println(in.ExpressionAttributeNames["#n0"])
	// Output:
	// SET #n0 = if_not_exists(#n0, :v0) + :v1
	// balance
}

// Changes chain, If conditions them, and the options (here Upsert) come
// after them.
func ExampleChanges() {
	db := singletable.New(&singletabletest.Client{}, writeTable)
	withdraw := singletable.Decrement("Balance", 10).If(singletable.Ge("Balance", 10))
	in, _ := Accounts.UpdateInput(db, Account{ID: "alice"}, withdraw)
	fmt.Println(*in.UpdateExpression)
	fmt.Println(*in.ConditionExpression)
	in, _ = Accounts.UpdateInput(db, Account{ID: "alice"}, singletable.Set("Balance", 0), singletable.Upsert())
	fmt.Println(*in.UpdateExpression)
	// Output:
	// SET #n0 = if_not_exists(#n0, :v0) - :v1
	// ((attribute_exists(#n1)) AND (#n2 = :v2)) AND (#n0 >= :v3)
	// SET #n0 = :v0, #n1 = :v1, #n2 = :v2
}

type Task struct {
	ID       string `dynamodbav:"taskId"`
	Status   string `dynamodbav:"status"`
	Priority int    `dynamodbav:"priority"`
	Assignee string `dynamodbav:"assignee"`
}

var (
	taskTable = singletable.MustTable("Tasks", singletable.WithGSI("GSI1"))
	Tasks     = singletable.MustDefine[Task](taskTable, "Task", singletable.Key("TASK#{ID}", "TASK"),
		singletable.Index("GSI1", "ASSIGNEE#{Assignee}", "{Status}#{Priority:2}"))
)

// Reassigning a task in a transaction: the index key reads Status and
// Priority too, which a transaction cannot read, so the caller gives the
// task as it holds it. The request takes them from it, on the condition
// that the item still holds them; a stale copy would cancel the
// transaction with a *StaleError naming the field.
func ExampleCurrent() {
	db := singletable.New(&singletabletest.Client{}, taskTable)
	held := Task{ID: "t1", Status: "OPEN", Priority: 2, Assignee: "ann"} // read earlier
	in, err := db.TransactInput(func(tx *singletable.Tx) error {
		Tasks.TxUpdate(tx, Task{ID: "t1"}, singletable.Set("Assignee", "bob"), singletable.Current(held))
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	u := in.TransactItems[0].Update
	fmt.Println(*u.UpdateExpression)
	fmt.Println(*u.ConditionExpression)
	for _, v := range []string{":v2", ":v3", ":v4", ":v5"} {
		switch av := u.ExpressionAttributeValues[v].(type) {
		case *types.AttributeValueMemberS:
			fmt.Println(v, av.Value)
		case *types.AttributeValueMemberN:
			fmt.Println(v, av.Value)
		}
	}
	// Output:
	// SET #n0 = :v0, #n1 = :v1, #n2 = :v2
	// (((attribute_exists(#n3)) AND (#n4 = :v3)) AND (#n5 = :v4)) AND (#n6 = :v5)
	// :v2 OPEN#02
	// :v3 Task
	// :v4 2
	// :v5 OPEN
}
