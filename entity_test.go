package singletable_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

type badKinds struct {
	ID    string
	Tags  []string
	Price float64
	PK    string // stored as "PK": clashes with the table key
}

type clashTyped struct {
	ID   string
	Kind string `dynamodbav:"_type"`
}

type ttlWrong struct {
	ID  string
	TTL time.Time `dynamodbav:"ttl"` // not unixtime: DynamoDB's TTL needs a number
}

func TestDefineChecksTheModel(t *testing.T) {
	newTable := func() *st.Table {
		return st.MustTable("Models", st.WithGSI("GSI1"), st.WithTTL("ttl"))
	}
	type pk struct{ ID string }
	cases := []struct {
		name   string
		define func(*st.Table) error
		want   []string // fragments of the message
	}{
		{"unknown field", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{Nope}", "X"))
			return err
		}, []string{"entity E", `template "E#{Nope}"`, "field Nope", "no such field"}},
		{"unsupported kind", func(tb *st.Table) error {
			_, err := st.Define[struct{ Price float64 }](tb, "E", st.Key("E#{Price}", "X"))
			return err
		}, []string{"field Price", "unsupported kind float64"}},
		{"slice kind", func(tb *st.Table) error {
			_, err := st.Define[struct{ Tags []string }](tb, "E", st.Key("E#{Tags}", "X"))
			return err
		}, []string{"field Tags", "unsupported kind"}},
		{"field stored as a key attribute", func(tb *st.Table) error {
			_, err := st.Define[badKinds](tb, "E", st.Key("E#{ID}", "X"))
			return err
		}, []string{"field PK", `attribute "PK"`, "partition key"}},
		{"field stored as the type attribute", func(tb *st.Table) error {
			_, err := st.Define[clashTyped](tb, "E", st.Key("E#{ID}", "X"))
			return err
		}, []string{"field Kind", "entity type attribute"}},
		{"TTL field of the wrong kind", func(tb *st.Table) error {
			_, err := st.Define[ttlWrong](tb, "E", st.Key("E#{ID}", "X"))
			return err
		}, []string{"field TTL", "unixtime"}},
		{"undeclared index", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"), st.Index("GSI9", "A#{ID}", "B"))
			return err
		}, []string{"index GSI9 is not declared"}},
		{"duplicate entity", func(tb *st.Table) error {
			if _, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X")); err != nil {
				return err
			}
			_, err := st.Define[pk](tb, "E", st.Key("F#{ID}", "X"))
			return err
		}, []string{"entity E", "already defined"}},
		{"missing sort template", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", ""))
			return err
		}, []string{"needs a sort template"}},
		{"no key", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E")
			return err
		}, []string{"no primary key"}},
		{"not a struct", func(tb *st.Table) error {
			_, err := st.Define[string](tb, "E", st.Key("E", "X"))
			return err
		}, []string{"not a struct"}},
		{"When with an operator it cannot evaluate", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.And(st.Exists("ID"), st.Contains("ID", "x"))))
			return err
		}, []string{"index GSI1", "When takes Eq", "not Contains"}},
		{"When with Size", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.Size("ID").Gt(1)))
			return err
		}, []string{"not Size"}},
		{"When with a FieldRef", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.Eq("ID", st.FieldRef("ID"))))
			return err
		}, []string{"not FieldRef"}},
		{"When over an unknown field", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.Exists("Email")))
			return err
		}, []string{"has no field \"Email\""}},
		{"When over a nested path", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.Exists("ID.X")))
			return err
		}, []string{"top-level fields only"}},
		{"When with a value of the wrong type", func(tb *st.Table) error {
			_, err := st.Define[pk](tb, "E", st.Key("E#{ID}", "X"),
				st.Index("GSI1", "A", "{ID}").When(st.Eq("ID", 5)))
			return err
		}, []string{"field ID is a string"}},
		{"ambiguous placeholders", func(tb *st.Table) error {
			_, err := st.Define[struct{ A, B string }](tb, "E", st.Key("E#{A}{B}", "X"))
			return err
		}, []string{"must be separated"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.define(newTable())
			require.Error(t, err)
			assert.True(t, errors.Is(err, st.ErrInvalidModel), "want ErrInvalidModel, got %v", err)
			var me *st.ModelError
			require.ErrorAs(t, err, &me)
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestNewTableChecks(t *testing.T) {
	for name, opts := range map[string][]st.TableOption{
		"duplicate index":          {st.WithGSI("GSI1"), st.WithGSI("GSI1")},
		"index is the table's key": {st.WithGSI("GSI1", st.IndexKeys("PK", "SK"))},
		"index key twice":          {st.WithGSI("GSI1", st.IndexKeys("X", "X"))},
		"index key is the type":    {st.WithGSI("GSI1", st.IndexKeys("_type", "SK"))},
		"empty partition key":      {st.WithKeys("", "SK")},
		"bad delimiter":            {st.WithDelimiter('a')},
		"ttl is the sort key":      {st.WithTTL("SK")},
	} {
		_, err := st.NewTable("T1x", opts...)
		assert.ErrorIs(t, err, st.ErrInvalidModel, name)
	}
	_, err := st.NewTable("x")
	assert.ErrorIs(t, err, st.ErrInvalidModel, "a too-short table name")
}

func TestPartitionOnlyTable(t *testing.T) {
	kv := st.MustTable("KVStore", st.WithKeys("id", ""))
	type entry struct{ Key string }
	e, err := st.Define[entry](kv, "Entry", st.Key("ENTRY#{Key}", ""))
	require.NoError(t, err)
	in := kv.CreateTableInput("KVStore")
	assert.Len(t, in.KeySchema, 1)
	_, err = st.Define[entry](kv, "Other", st.Key("O#{Key}", "S"))
	assert.ErrorContains(t, err, "no sort key")
	assert.Equal(t, "Entry", e.Name())
}

func TestCreateTableInput(t *testing.T) {
	golden.Request(t, "table/create", testmodel.Shop.CreateTableInput("ECommerceApp"))
	prov := st.MustTable("Prov", st.WithProvisioned(5, 5), st.WithGSI("ByTag", st.IndexKeys("tag", ""), st.Include("name", "price")))
	golden.Request(t, "table/create_provisioned", prov.CreateTableInput("Prov"))
}

type EmbeddedKey struct{ ID string }

type withEmbeddedPointer struct {
	*EmbeddedKey
	Name string
}

func TestKeyFieldsThroughEmbeddedPointersAreRefused(t *testing.T) {
	tb := st.MustTable("Embedded")
	_, err := st.Define[withEmbeddedPointer](tb, "E", st.Key("E#{ID}", "X"))
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	assert.ErrorContains(t, err, "embedded pointer")
	// A non-key field behind an embedded pointer can be updated.
	e, err := st.Define[withEmbeddedPointer](tb, "F", st.Key("F#{Name}", "X"))
	require.NoError(t, err)
	in, err := e.UpdateInput(st.New(nil, tb), withEmbeddedPointer{Name: "n"}, st.Set("ID", "x"))
	require.NoError(t, err)
	assert.Equal(t, "SET #n0 = :v0", *in.UpdateExpression)
}

// Entry points given a nil table, or an entity whose Define failed, return
// (or panic with) a clear *ModelError, never a nil dereference.
func TestNilTableAndEntityAreModelErrors(t *testing.T) {
	_, err := st.Define[nilUser](nil, "User", st.Key("USER#{ID}", "A"))
	var me *st.ModelError
	require.ErrorAs(t, err, &me)
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "the table is nil")

	assert.PanicsWithError(t, err.Error(), func() { st.MustDefine[nilUser](nil, "User", st.Key("USER#{ID}", "A")) })
	assert.Panics(t, func() { st.New(&singletabletest.Client{}, nil) })
	func() {
		defer func() { assert.ErrorIs(t, recover().(error), st.ErrInvalidModel) }()
		st.New(&singletabletest.Client{}, nil)
	}()

	var failed *st.Entity[nilUser] // what a failed Define returns
	p := failed.Pattern("P").Partition("USER#{ID}")
	require.ErrorIs(t, p.Err(), st.ErrInvalidModel)
	assert.Contains(t, p.Err().Error(), "the entity is nil")
	client := &singletabletest.Client{}
	db := st.New(client, st.MustTable("NilT"))
	_, err = p.Query(context.Background(), db, nilUser{ID: "1"})
	require.ErrorIs(t, err, st.ErrInvalidModel)

	c := (*st.Table)(nil).Collection("C", failed).Partition("USER#{ID}")
	require.ErrorIs(t, c.Err(), st.ErrInvalidModel)
	c = st.MustTable("NilC").Collection("C", failed).Partition("USER#{ID}")
	require.ErrorIs(t, c.Err(), st.ErrInvalidModel)
	assert.Contains(t, c.Err().Error(), "nil entity")
	_, err = c.Query(context.Background(), db, st.Values{"ID": "1"})
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Empty(t, client.Calls())
}

// A key template naming a field that is not stored makes it key-only
// (keyonly_test.go): it is written into the key and read back from it.
func TestKeyOnUnstoredField(t *testing.T) {
	_, err := st.Define[nilUser](st.MustTable("Unstored"), "User", st.Key("USER#{Secret}", "A"))
	require.NoError(t, err)
}

// Fields that claim one attribute equally are not stored at all (as in
// attributevalue): Define refuses them rather than lose their values.
func TestDefineRefusesFieldsHidingEachOther(t *testing.T) {
	type twoTagged struct {
		ID    string `dynamodbav:"id"`
		Name  string `dynamodbav:"name"`
		Label string `dynamodbav:"name"`
	}
	_, err := st.Define[twoTagged](st.MustTable("Hidden"), "Thing", st.Key("T#{ID}", "T"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), `fields Name and Label both store attribute "name", so neither is stored`)

	type audit struct{ Note string }
	type meta struct{ Note string }
	type embedded struct {
		ID string
		audit
		meta
	}
	_, err = st.Define[embedded](st.MustTable("Hidden2"), "Thing", st.Key("T#{ID}", "T"))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), `attribute "Note"`)

	// A shallower field wins over embedded ones, as in encoding/json: fine.
	type shadowing struct {
		ID   string
		Note string
		audit
		meta
	}
	_, err = st.Define[shadowing](st.MustTable("Hidden3"), "Thing", st.Key("T#{ID}", "T"))
	require.NoError(t, err)
}
