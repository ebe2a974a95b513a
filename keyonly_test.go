package singletable_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

type koThing struct {
	Owner string    `dynamodbav:"-"`
	ID    string    `dynamodbav:"-"`
	At    time.Time `dynamodbav:"-"`
	Tag   string    `dynamodbav:"-"`
	Kind  string    `dynamodbav:"kind"`
	Name  string    `dynamodbav:"name"`
}

// A key-only field must be in the table's key, whole: Define refuses one
// only an index key holds (sparse or not), and a time the table key keeps
// only part of, naming the field and why.
func TestKeyOnlyFieldDefineRefusals(t *testing.T) {
	tbl := func() *st.Table { return st.MustTable("KeyOnly", st.WithGSI("GSI1")) }
	cases := []struct {
		name, field, want string
		opts              []st.EntityOption
	}{
		{"only in a sparse index", "Tag", "sparse (When)", []st.EntityOption{st.Key("OWNER#{Owner}", "THING#{ID}"),
			st.Index("GSI1", "TAG#{Tag}", "THING#{ID}").When(st.Eq("Kind", "tagged"))}},
		{"only in an index", "Tag", "only index GSI1's key holds it", []st.EntityOption{st.Key("OWNER#{Owner}", "THING#{ID}"),
			st.Index("GSI1", "TAG#{Tag}", "THING#{ID}")}},
		{"a time kept to the day", "At", "keeps only part of the time", []st.EntityOption{st.Key("OWNER#{Owner}", "AT#{At:2006-01-02}")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := st.Define[koThing](tbl(), "Thing", c.opts...)
			var me *st.ModelError
			require.ErrorAs(t, err, &me)
			require.ErrorIs(t, err, st.ErrInvalidModel)
			assert.Equal(t, c.field, me.Field)
			assert.Contains(t, err.Error(), "key-only")
			assert.Contains(t, err.Error(), c.want)
		})
	}
	// In the table key, and also in an index key: fine.
	_, err := st.Define[koThing](tbl(), "Thing", st.Key("OWNER#{Owner}", "THING#{ID}#{At}"), st.Index("GSI1", "KIND#{Kind}", "{At}"))
	require.NoError(t, err)
}

// A condition, a filter or an update naming a key-only field is refused
// before anything is sent, with a typed error that says why.
func TestKeyOnlyFieldConditionsAndSetRefused(t *testing.T) {
	tbl := st.MustTable("KeyOnly")
	e := st.MustDefine[koThing](tbl, "Thing", st.Key("OWNER#{Owner}", "THING#{ID}"))
	client := &singletabletest.Client{}
	db := st.New(client, tbl)
	key := koThing{Owner: "o", ID: "i"}
	check := func(what string, err error) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrInvalidInput, what)
		assert.Contains(t, err.Error(), "key-only", what)
		assert.Regexp(t, `field (ID|Owner) is key-only .* key (SK "THING#\{ID\}"|PK "OWNER#\{Owner\}")`, err.Error(), what)
	}
	check("Put If", e.Put(ctx, db, koThing{Owner: "o", ID: "i"}, st.If(st.Eq("ID", "i"))))
	check("Delete If", e.Delete(ctx, db, key, st.If(st.Exists("ID"))))
	_, err := e.Update(ctx, db, key, st.Set("ID", "j"))
	check("Update Set", err)
	_, err = e.Update(ctx, db, key, st.Set("Name", "n").If(st.BeginsWith("Owner", "o")))
	check("Update If", err)
	_, err = e.Query(ctx, db, koThing{Owner: "o"}, st.Filter(st.Eq("ID", "i")))
	check("Query Filter", err)
	assert.Empty(t, client.Calls(), "nothing is sent")
	// Project takes a key-only field: the keys every read returns hold it.
	_, err = e.Query(ctx, db, koThing{Owner: "o"}, st.Project("ID", "Name"))
	require.NoError(t, err)
}

// A key-only field cannot be a unique field, a scope, the version, a
// timestamp, the expiry or compressed (each needs an attribute): Define
// says it is key-only, not that the struct has no such field.
func TestKeyOnlyFieldRefusedAsManagedField(t *testing.T) {
	cases := map[string]st.EntityOption{
		"unique":     st.Unique("ID"),
		"scope":      st.Unique("Name within Owner"),
		"version":    st.Version("ID"),
		"timestamps": st.Timestamps("At", ""),
		"expiry":     st.Expires("At"),
	}
	for name, opt := range cases {
		t.Run(name, func(t *testing.T) {
			tbl := st.MustTable("KeyOnly", st.WithTTL("ttl"))
			_, err := st.Define[koThing](tbl, "Thing", st.Key("OWNER#{Owner}", "THING#{ID}#{At}"), opt)
			var me *st.ModelError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, err.Error(), "is key-only")
			assert.NotContains(t, err.Error(), "no such field")
		})
	}
}
