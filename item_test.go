package singletable_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// The model of the values tests: fields at every depth, with their own
// encodings (unixtime, `,string`, sets, Marshalers).
var vlTable = st.MustTable("Values", st.WithGSI("GSI1"))

type vlIn struct {
	When  time.Time `dynamodbav:"when,unixtime"`
	Count int       `dynamodbav:"count,string"`
}

type vlLine struct {
	At  time.Time `dynamodbav:"at,unixtime"`
	Qty int       `dynamodbav:"qty,string"`
}

// vlMarshaler refuses to marshal when Bad is set.
type vlMarshaler struct{ Bad bool }

func (m vlMarshaler) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	if m.Bad {
		return nil, errors.New("vlMarshaler refuses")
	}
	return &types.AttributeValueMemberS{Value: "ok"}, nil
}

func (m *vlMarshaler) UnmarshalDynamoDBAttributeValue(types.AttributeValue) error { return nil }

type vlDoc struct {
	ID     string            `dynamodbav:"id"`
	In     vlIn              `dynamodbav:"in"`
	Items  []vlLine          `dynamodbav:"items,omitempty"`
	ByKey  map[string]vlLine `dynamodbav:"byKey,omitempty"`
	Score  float64           `dynamodbav:"score"`
	Ratio  float32           `dynamodbav:"ratio"`
	Amount json.Number       `dynamodbav:"amount,omitempty"`
	Meta   map[string]any    `dynamodbav:"meta,omitempty"`
	Names  map[string]string `dynamodbav:"names,omitempty"`
	Tags   []string          `dynamodbav:"tags,stringset,omitempty"`
	Nums   []float64         `dynamodbav:"nums,numberset,omitempty"`
	Bins   [][]byte          `dynamodbav:"bins,omitempty"`
	Odd    vlMarshaler       `dynamodbav:"odd"`
	Note   string            `dynamodbav:"note,omitempty"`
}

var (
	vlDocs = st.MustDefine[vlDoc](vlTable, "Doc", st.Key("DOC#{ID}", "DOC"))
	vlByID = vlDocs.Pattern("ByID").Partition("DOC#{ID}").Must()
)

// Values DynamoDB refuses (NaN, infinities, numbers out of its range or
// precision, empty map keys, nil binary set elements, empty or duplicate
// sets) and values the codec cannot encode (a failing Marshaler) are
// ErrInvalidInput naming the field, on every path that sends a value, with
// no request sent.
func TestValuesDynamoDBRefusesAreInvalidInput(t *testing.T) {
	key := vlDoc{ID: "d1"}
	bad := []struct {
		name  string
		field string // the field the error must name
		doc   func(d *vlDoc)
		value any // the same value, for Set and conditions on field
	}{
		{"NaN", "Score", func(d *vlDoc) { d.Score = math.NaN() }, math.NaN()},
		{"+Inf", "Score", func(d *vlDoc) { d.Score = math.Inf(1) }, math.Inf(1)},
		{"-Inf float32", "Ratio", func(d *vlDoc) { d.Ratio = float32(math.Inf(-1)) }, float32(math.Inf(-1))},
		{"above 9.99E+125", "Score", func(d *vlDoc) { d.Score = 1e126 }, 1e126},
		{"below 1E-130", "Score", func(d *vlDoc) { d.Score = -1e-131 }, -1e-131},
		{"json.Number above the range", "Amount", func(d *vlDoc) { d.Amount = "1E+200" }, json.Number("1E+200")},
		{"json.Number of 39 digits", "Amount", func(d *vlDoc) { d.Amount = "123456789012345678901234567890123456789" }, json.Number("123456789012345678901234567890123456789")},
		{"json.Number not a number", "Amount", func(d *vlDoc) { d.Amount = "12abc" }, json.Number("12abc")},
		{"NaN in a map of any", "Meta", func(d *vlDoc) { d.Meta = map[string]any{"x": math.NaN()} }, map[string]any{"x": math.NaN()}},
		{"NaN in a number set", "Nums", func(d *vlDoc) { d.Nums = []float64{1, math.NaN()} }, []float64{1, math.NaN()}},
		{"map with an empty key", "Names", func(d *vlDoc) { d.Names = map[string]string{"": "x"} }, map[string]string{"": "x"}},
		{"binary set with a nil element", "Bins", func(d *vlDoc) { d.Bins = [][]byte{[]byte("a"), nil} }, [][]byte{[]byte("a"), nil}},
		{"set with duplicates", "Tags", func(d *vlDoc) { d.Tags = []string{"a", "b", "a"} }, []string{"a", "b", "a"}},
		{"number set with equal numbers", "Nums", func(d *vlDoc) { d.Nums = []float64{1, 2, 1} }, []float64{1, 2, 1}},
		{"failing Marshaler", "Odd", func(d *vlDoc) { d.Odd.Bad = true }, vlMarshaler{Bad: true}},
	}
	for _, b := range bad {
		doc := vlDoc{ID: "d1", In: vlIn{When: time.Unix(1700000000, 0)}}
		b.doc(&doc)
		ops := []struct {
			name string
			run  func(db *st.DB) error
		}{
			{"Put", func(db *st.DB) error { return vlDocs.Put(ctx, db, doc) }},
			{"Create", func(db *st.DB) error { return vlDocs.Create(ctx, db, doc) }},
			{"BatchPut", func(db *st.DB) error { return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(vlDocs, doc)}) }},
			{"TxPut", func(db *st.DB) error {
				return db.Transact(ctx, func(tx *st.Tx) error { vlDocs.TxPut(tx, doc); return nil })
			}},
			{"Set", func(db *st.DB) error { _, err := vlDocs.Update(ctx, db, key, st.Set(b.field, b.value)); return err }},
			{"TxUpdate Set", func(db *st.DB) error {
				return db.Transact(ctx, func(tx *st.Tx) error { vlDocs.TxUpdate(tx, key, st.Set(b.field, b.value)); return nil })
			}},
			{"If", func(db *st.DB) error { return vlDocs.Put(ctx, db, vlDoc{ID: "d1"}, st.If(st.Ne(b.field, b.value))) }},
			{"TxCheck", func(db *st.DB) error {
				return db.Transact(ctx, func(tx *st.Tx) error {
					vlDocs.TxCheck(tx, key, st.Eq(b.field, b.value))
					vlDocs.TxPut(tx, vlDoc{ID: "d2"})
					return nil
				})
			}},
			{"Filter", func(db *st.DB) error {
				_, err := vlByID.Query(ctx, db, key, st.Filter(st.Eq(b.field, b.value)))
				return err
			}},
		}
		for _, op := range ops {
			t.Run(b.name+"/"+op.name, func(t *testing.T) {
				client := &singletabletest.Client{}
				db := st.New(client, vlTable)
				err := op.run(db)
				require.ErrorIs(t, err, st.ErrInvalidInput)
				assert.NotErrorIs(t, err, st.ErrTooLarge)
				var ie *st.InputError
				if !errors.As(err, &ie) {
					var te *st.TxError
					require.ErrorAs(t, err, &te, "an *InputError, or a transaction's error about one")
				}
				assert.Contains(t, err.Error(), b.field, "the error names the field")
				assert.Empty(t, client.Calls(), "nothing is sent")
			})
		}
	}

	// Nested values are checked too, and valid numbers pass: the boundary
	// values of DynamoDB's range, 38 digits, a float32's extremes.
	client := &singletabletest.Client{}
	db := st.New(client, vlTable)
	_, err := vlDocs.Update(ctx, db, key, st.Set("Meta.x", math.Inf(1)))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "Meta.x")
	_, err = vlDocs.Update(ctx, db, key, st.Set("Score", &types.AttributeValueMemberN{Value: "NaN"}))
	require.ErrorIs(t, err, st.ErrInvalidInput, "a raw AttributeValue is checked as well")
	assert.Empty(t, client.Calls())
	for _, ok := range []vlDoc{
		{ID: "a", Score: math.Nextafter(1e126, 0), Ratio: math.MaxFloat32, Amount: "-9.9999999999999999999999999999999999999E+125"},
		{ID: "b", Score: 1e-130, Ratio: math.SmallestNonzeroFloat32, Amount: "12345678901234567890123456789012345678000"},
		{ID: "c", Score: -1e-130, Amount: json.Number("0." + strings.Repeat("0", 129) + "1")},
		{ID: "d", Nums: []float64{1, 1.5, 2}, Tags: []string{"a", "b"}, Bins: [][]byte{{}, []byte("x")}},
	} {
		require.NoError(t, vlDocs.Put(ctx, db, ok), "%+v", ok)
	}
}
