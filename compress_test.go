package singletable_test

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/compress"
	"github.com/singletable/singletable/singletabletest"
)

// The compressed-field model the compression tests share: a document whose
// body (a string), attachment ([]byte) and metadata (a struct, through its
// encoding) are compressed from czMin bytes.

type czMeta struct {
	Tags  []string
	Notes map[string]string
}

type czDoc struct {
	Tenant string
	ID     string
	Title  string
	Body   string `singletable:"compress"`
	Raw    []byte `singletable:"compress"`
	Meta   czMeta `singletable:"compress"`
	Count  int
}

const czMin = 200

var (
	czTable = st.MustTable("CzDocs")
	czDocs  = st.MustDefine[czDoc](czTable, "Doc", st.Key("T#{Tenant}", "DOC#{ID}"), compress.With(compress.Gzip, czMin))
	czColl  = czTable.Collection("Tenant", czDocs).Partition("T#{Tenant}").Must()
)

// czDefine defines czDoc on a table of its own with opts, for the refusals
// at Define.
func czDefine(t *testing.T, opts ...st.TableOption) func(opts ...st.EntityOption) error {
	return func(eo ...st.EntityOption) error {
		_, err := st.Define[czDoc](st.MustTable("CzRefused", opts...), "Doc", eo...)
		return err
	}
}

// A compressed field cannot be a key, an index key or what an index's
// When reads: Define says which field and why.
func TestCompressRefusedAtDefine(t *testing.T) {
	gsi := st.WithGSI("GSI1")
	for name, c := range map[string]struct {
		table []st.TableOption
		opts  []st.EntityOption
		want  string
	}{
		"primary key": {nil, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{Body}")}, "cannot be part of the primary key"},
		"index key":   {[]st.TableOption{gsi}, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"), st.Index("GSI1", "B#{Body}", "X")}, "index GSI1's key or When condition reads the field"},
		"index When": {[]st.TableOption{gsi}, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"),
			st.Index("GSI1", "T#{Tenant}", "X").When(st.Eq("Body", "x"))}, "index GSI1's key or When condition reads the field"},
		"index attribute": {[]st.TableOption{st.WithGSI("GSI2", st.IndexKeys("Body", ""))}, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}")}, "index GSI2's key or When condition reads the field"},
		"unique too":      {nil, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"), st.Unique("Body")}, "both as the unique field and as the compress field"},
		"nil codec":       {nil, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"), compress.With(nil, 10)}, "the codec is nil"},
		"negative size":   {nil, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"), compress.With(compress.Gzip, -1)}, "negative"},
		"no such field":   {nil, []st.EntityOption{st.Key("T#{Tenant}", "DOC#{ID}"), compress.Fields("Nope")}, "no such field"},
	} {
		t.Run(name, func(t *testing.T) {
			err := czDefine(t, c.table...)(c.opts...)
			var me *st.ModelError
			require.ErrorAs(t, err, &me)
			require.ErrorIs(t, err, st.ErrInvalidModel)
			assert.Contains(t, err.Error(), c.want)
			if !strings.Contains(name, "codec") && !strings.Contains(name, "size") {
				assert.Contains(t, []string{"Body", "Nope"}, me.Field, "the error names the field")
			}
		})
	}
}

// With on an entity without a compressed field is a mistake, and says so.
func TestCompressWithoutFieldRefused(t *testing.T) {
	type plain struct{ ID, Body string }
	_, err := st.Define[plain](st.MustTable("CzPlain"), "P", st.Key("P#{ID}", "P"), compress.With(compress.Gzip, 10))
	require.ErrorIs(t, err, st.ErrInvalidModel)
	assert.Contains(t, err.Error(), "no field is compressed")
	// Fields declares one without a tag.
	_, err = st.Define[plain](st.MustTable("CzPlain2"), "P", st.Key("P#{ID}", "P"), compress.Fields("Body"))
	require.NoError(t, err)
}

// Conditions, filters, paths inside a compressed field and updates that
// compute on it are refused before anything is sent: the service holds
// compressed bytes. Each error names the field and says why.
func TestCompressRefusedBeforeSending(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, czTable)
	key := czDoc{Tenant: "t", ID: "1"}
	doc := czDoc{Tenant: "t", ID: "1", Body: "x"}
	cases := map[string]func() error{
		"Put condition": func() error { return czDocs.Put(ctx, db, doc, st.If(st.Eq("Body", "x"))) },
		"Delete condition": func() error {
			return czDocs.Delete(ctx, db, key, st.If(st.Exists("Meta.Tags")))
		},
		"Update condition": func() error {
			_, err := czDocs.Update(ctx, db, key, st.Set("Title", "t").If(st.Contains("Body", "x")))
			return err
		},
		"Query filter": func() error {
			_, err := czDocs.Query(ctx, db, key, st.Filter(st.Eq("Body", "x")))
			return err
		},
		"Scan filter": func() error {
			for _, err := range czDocs.Scan(ctx, db, st.Filter(st.Size("Raw").Gt(3))) {
				return err
			}
			return nil
		},
		"Update path": func() error {
			_, err := czDocs.Update(ctx, db, key, st.Set("Meta.Tags", []string{"a"}))
			return err
		},
		"Update Append": func() error {
			_, err := czDocs.Update(ctx, db, key, st.Append("Meta.Tags", "a"))
			return err
		},
		"Projection path": func() error {
			_, err := czDocs.Query(ctx, db, key, st.Project("Meta.Tags"))
			return err
		},
	}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			before := len(mock.Calls())
			err := call()
			require.Error(t, err)
			require.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Equal(t, before, len(mock.Calls()), "nothing is sent")
			msg := err.Error()
			assert.True(t, strings.Contains(msg, "Body") || strings.Contains(msg, "Meta") || strings.Contains(msg, "Raw"), msg)
			if name != "Projection path" {
				assert.Contains(t, msg, "compress", msg)
			}
		})
	}
}

// A whole-value Set, SetIfNotExists and Remove of a compressed field are
// updates like any other: the value Set is compressed as Put stores it.
func TestCompressWholeValueUpdate(t *testing.T) {
	mock := &singletabletest.Client{}
	db := st.New(mock, czTable)
	key := czDoc{Tenant: "t", ID: "1"}
	in, err := czDocs.UpdateInput(db, key, st.Set("Body", strings.Repeat("abc ", 100)).Remove("Raw"))
	require.NoError(t, err)
	var sawB bool
	for _, v := range in.ExpressionAttributeValues {
		if b, ok := v.(*types.AttributeValueMemberB); ok && bytes.HasPrefix(b.Value, []byte("\x00STZ")) {
			sawB = true
		}
	}
	assert.True(t, sawB, "the body Set is stored compressed: %v", in.ExpressionAttributeValues)
	_, err = czDocs.UpdateInput(db, key, st.Set("Title", "t"))
	require.NoError(t, err, "an update not touching the compressed fields")
}

// czOps has a compressed field of each type an update operator computes
// on, so that each operator meets the compress refusal rather than a type
// check.
type czOps struct {
	ID   string
	Body string   `singletable:"compress"`
	N    int      `singletable:"compress"`
	List []string `singletable:"compress"`
	Set  []string `dynamodbav:",stringset" singletable:"compress"`
}

// Which update operators apply to a compressed field: a whole-value Set,
// SetIfNotExists and Remove are sent (one request each); every other
// operator computes on the stored value, which is compressed bytes, and is
// refused before anything is sent, naming the field and the operator.
func TestCompressUpdateOperators(t *testing.T) {
	tbl := st.MustTable("CzOps")
	ops := st.MustDefine[czOps](tbl, "Ops", st.Key("O#{ID}", "O"))
	mock := &singletabletest.Client{UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
		item := maps.Clone(in.Key)
		item[tbl.TypeAttribute()] = &types.AttributeValueMemberS{Value: "Ops"}
		return &dynamodb.UpdateItemOutput{Attributes: item}, nil
	}}
	db := st.New(mock, tbl)
	key := czOps{ID: "1"}
	for name, c := range map[string]struct {
		ch    st.Changes
		field string
	}{
		"Set":            {st.Set("Body", "x"), ""},
		"SetIfNotExists": {st.SetIfNotExists("N", 3), ""},
		"Remove":         {st.Remove("List"), ""},
		"Add number":     {st.Add("N", 1), "N"},
		"Add to set":     {st.Add("Set", "a"), "Set"},
		"DeleteFromSet":  {st.DeleteFromSet("Set", "a"), "Set"},
		"Append":         {st.Append("List", "a"), "List"},
		"Prepend":        {st.Prepend("List", "a"), "List"},
		"Increment":      {st.Increment("N", 1), "N"},
		"Decrement":      {st.Decrement("N", 1), "N"},
		"path inside":    {st.Set("List[0]", "a"), "List"},
	} {
		t.Run(name, func(t *testing.T) {
			before := len(mock.Calls())
			_, err := ops.Update(ctx, db, key, c.ch)
			if c.field == "" {
				require.NoError(t, err)
				assert.Equal(t, before+1, len(mock.Calls()), "one request")
				return
			}
			require.ErrorIs(t, err, st.ErrInvalidInput)
			var ie *st.InputError
			require.ErrorAs(t, err, &ie)
			assert.Equal(t, before, len(mock.Calls()), "nothing is sent")
			assert.Contains(t, err.Error(), "field "+c.field+" is compressed")
			// A transaction's update plans the same way.
			err = db.Transact(ctx, func(tx *st.Tx) error {
				ops.TxUpdate(tx, key, c.ch)
				return nil
			})
			require.ErrorIs(t, err, st.ErrInvalidInput)
			assert.Contains(t, err.Error(), "field "+c.field+" is compressed")
			assert.Equal(t, before, len(mock.Calls()), "nothing is sent")
		})
	}
}
