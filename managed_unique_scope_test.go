package singletable_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// A helpdesk's agents: an email unique per tenant.
type scopedAgent struct {
	ID     string `dynamodbav:"id"`
	Tenant string `dynamodbav:"tenant"`
	Email  string `dynamodbav:"email" singletable:"unique within Tenant"`
	Name   string `dynamodbav:"name"`
}

var (
	scopedTable  = st.MustTable("ScopedUnique")
	scopedAgents = st.MustDefine[scopedAgent](scopedTable, "Agent", st.Key("AGENT#{ID}", "AGENT"))
)

// guardPK is the partition key of a transaction's guard action.
func guardPK(t *testing.T, it types.TransactWriteItem) string {
	t.Helper()
	var key map[string]types.AttributeValue
	switch {
	case it.Put != nil:
		key = it.Put.Item
	case it.Delete != nil:
		key = it.Delete.Key
	default:
		t.Fatalf("not a guard's action: %+v", it)
	}
	return key["PK"].(*types.AttributeValueMemberS).Value
}

// The guard of a scoped value is keyed by the scope's value and the value,
// each escaped: a delimiter in either cannot make two guards one.
func TestScopedUniqueGuardKeysEscaped(t *testing.T) {
	db := st.New(&singletabletest.Client{}, scopedTable)
	key := func(a scopedAgent) string {
		in, err := db.TransactInput(func(tx *st.Tx) error { scopedAgents.TxCreate(tx, a); return nil })
		require.NoError(t, err)
		require.Len(t, in.TransactItems, 2, "the item and its guard")
		return guardPK(t, in.TransactItems[1])
	}
	ab := key(scopedAgent{ID: "1", Tenant: "a#b", Email: "c"})
	a := key(scopedAgent{ID: "2", Tenant: "a", Email: "b#c"})
	assert.NotEqual(t, ab, a)
	assert.Equal(t, "_unique#Agent#email#tenant#a%23b#c", ab)
	assert.Equal(t, "_unique#Agent#email#tenant#a#b%23c", a)
	// Nor does the scoped form meet the table-wide one.
	type flat struct {
		ID    string `dynamodbav:"id"`
		Email string `dynamodbav:"email" singletable:"unique"`
	}
	flats := st.MustDefine[flat](st.MustTable("FlatUnique"), "Agent", st.Key("AGENT#{ID}", "AGENT"))
	in, err := st.New(&singletabletest.Client{}, flats.Table()).TransactInput(func(tx *st.Tx) error {
		flats.TxCreate(tx, flat{ID: "1", Email: "tenant#a#b#c"})
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, "_unique#Agent#email#tenant%23a%23b%23c", guardPK(t, in.TransactItems[1]))
}

// The transactions of scoped unique writes, golden: a create, an update
// that moves the agent to another tenant (the old guard deleted, the new
// one put, the item held to the old email and tenant), and a delete.
func TestScopedUniqueTransactionShape(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, scopedTable)
	tok := st.IdempotencyToken("golden-token")
	a := scopedAgent{ID: "a1", Tenant: "acme", Email: "ann@example.com", Name: "Ann"}
	in, err := db.TransactInput(func(tx *st.Tx) error { scopedAgents.TxPut(tx, a); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	golden.Request(t, "txn/unique_scoped_put", in)

	in, err = db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "a1", Tenant: "acme", Email: "ann@example.com"}, st.Set("Tenant", "globex"))
		return nil
	}, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 3, "update item, delete old guard, put new guard")
	golden.Request(t, "txn/unique_scoped_update", in)
	assert.Equal(t, "_unique#Agent#email#tenant#acme#ann@example.com", guardPK(t, in.TransactItems[1]))
	assert.NotNil(t, in.TransactItems[1].Delete)
	assert.Equal(t, "_unique#Agent#email#tenant#globex#ann@example.com", guardPK(t, in.TransactItems[2]))
	assert.NotNil(t, in.TransactItems[2].Put)

	// A change of the email within the tenant moves it likewise.
	in, err = db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "a1", Tenant: "acme", Email: "ann@example.com"}, st.Set("Email", "ann@example.org"))
		return nil
	}, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 3)
	assert.Equal(t, "_unique#Agent#email#tenant#acme#ann@example.com", guardPK(t, in.TransactItems[1]))
	assert.Equal(t, "_unique#Agent#email#tenant#acme#ann@example.org", guardPK(t, in.TransactItems[2]))

	// A change of neither leaves the guard alone.
	in, err = db.TransactInput(func(tx *st.Tx) error {
		scopedAgents.TxUpdate(tx, scopedAgent{ID: "a1"}, st.Set("Name", "Anne"))
		return nil
	}, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 1)

	in, err = db.TransactInput(func(tx *st.Tx) error { scopedAgents.TxDelete(tx, a); return nil }, tok)
	require.NoError(t, err)
	require.Len(t, in.TransactItems, 2)
	assert.Equal(t, "_unique#Agent#email#tenant#acme#ann@example.com", guardPK(t, in.TransactItems[1]))
	assert.NotNil(t, in.TransactItems[1].Delete)
	assert.Empty(t, mock.Calls())
}

// A scope the model cannot guard is refused when the entity is defined.
func TestScopedUniqueModelRefusals(t *testing.T) {
	type doc struct {
		ID     string  `dynamodbav:"id"`
		Tenant string  `dynamodbav:"tenant"`
		Email  string  `dynamodbav:"email"`
		Score  float64 `dynamodbav:"score"`
		Body   string  `dynamodbav:"body" singletable:"compress"`
	}
	cases := map[string]struct {
		opt  st.EntityOption
		want string
	}{
		"unknown scope":    {st.Unique("Email within Nope"), "the struct has no field Nope"},
		"own scope":        {st.Unique("Email within Email"), "a field cannot be its own scope"},
		"compressed scope": {st.Unique("Email within Body"), "the scope is a compressed field"},
		"float scope":      {st.Unique("Email within Score"), "a scope must be a string or an integer field, not float64"},
		"malformed":        {st.Unique("Email inside Tenant"), `want a field, or a field within another`},
		"twice":            {st.Unique("Email", "Email within Tenant"), "declared unique twice (Email and Email within Tenant)"},
		"unknown field":    {st.Unique("Nope within Tenant"), "the struct has no such field"},
	}
	for name, c := range cases {
		_, err := st.Define[doc](st.MustTable("ScopedRefusals"), "Doc", st.Key("DOC#{ID}", "DOC"), c.opt)
		require.ErrorIs(t, err, st.ErrInvalidModel, name)
		assert.Contains(t, err.Error(), c.want, name)
	}
	// The tag form is the option's.
	type tagged struct {
		ID    string `dynamodbav:"id"`
		Email string `dynamodbav:"email" singletable:"unique within Nope"`
	}
	_, err := st.Define[tagged](st.MustTable("ScopedRefusals"), "Doc", st.Key("DOC#{ID}", "DOC"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "the struct has no field Nope")
}

// A change to the scope must be a known value, as a change to the unique
// field must: refused before sending.
func TestScopedUniqueScopeChangeMustBeKnown(t *testing.T) {
	type seat struct {
		ID    string `dynamodbav:"id"`
		Org   int64  `dynamodbav:"org"`
		Email string `dynamodbav:"email"`
	}
	seats := st.MustDefine[seat](st.MustTable("ScopedKnown"), "Seat", st.Key("SEAT#{ID}", "SEAT"), st.Unique("Email within Org"))
	mock := &singletabletest.Client{}
	db := st.New(mock, seats.Table())
	_, err := seats.Update(context.Background(), db, seat{ID: "s1"}, st.Increment("Org", 1))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "field Org is the scope of unique Email, and its new value must be known")
	assert.Empty(t, mock.Calls())
}

// The sheet and lint show a unique field's scope and its guard key.
func TestScopedUniqueSheetAndLint(t *testing.T) {
	sheet := scopedTable.Sheet()
	assert.Contains(t, sheet, "## Unique values")
	assert.Contains(t, sheet, "| Agent | Email | Tenant | `_unique#Agent#email#tenant#{Tenant}#{Email}` |")
	var found bool
	for _, is := range scopedTable.Lint() {
		if is.Severity == st.LintInfo && strings.Contains(is.Message, "Email is unique within Tenant: its guard key is _unique#Agent#email#tenant#{Tenant}#{Email}") {
			found = true
		}
	}
	assert.True(t, found, "lint names the scope")
}
