//go:build integration

package singletable_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// A value given for a nested field (in a Filter, a write condition, a
// nested Set) is encoded as Put stores that field: a unixtime time as N, a
// `,string` number as S. Before, nested values were encoded plainly, so
// the filters matched nothing, the conditions always failed, and a nested
// Set stored S where Put stores N.
func TestNestedValuesUseTheFieldsEncoding(t *testing.T) {
	db := singletabletest.LocalDB(t, vlTable)
	t0 := time.Unix(1700000000, 0).UTC()
	t1 := t0.Add(time.Hour)
	doc := vlDoc{ID: "d1", In: vlIn{When: t0, Count: 7},
		Items: []vlLine{{At: t0, Qty: 2}}, ByKey: map[string]vlLine{"a": {At: t0, Qty: 3}}}
	require.NoError(t, vlDocs.Put(ctx, db, doc))
	key := vlDoc{ID: "d1"}

	for _, c := range []st.Cond{
		st.Lt("In.When", t1),
		st.Eq("In.When", t0),
		st.Between("In.When", t0, t1),
		st.In("In.When", t1, t0),
		st.Eq("In.Count", 7),
		st.Eq("Items[0].At", t0),
		st.Eq("Items[0].Qty", 2),
		st.Eq("ByKey.a.At", t0),
		st.Gt("ByKey.a.Qty", 2),
	} {
		page, err := vlByID.Query(ctx, db, key, st.Filter(c))
		require.NoError(t, err)
		assert.Len(t, page.Items, 1, "Filter %v matches the item", c)
	}
	page, err := vlByID.Query(ctx, db, key, st.Filter(st.Gt("In.When", t1)))
	require.NoError(t, err)
	assert.Empty(t, page.Items, "and does not match what it should not")

	// Conditioned writes on nested fields succeed when the condition holds.
	require.NoError(t, vlDocs.Put(ctx, db, doc, st.If(st.And(st.Eq("In.When", t0), st.Eq("In.Count", 7)))))
	_, err = vlDocs.Update(ctx, db, key, st.Set("Note", "x").If(st.Eq("Items[0].At", t0)))
	require.NoError(t, err)
	_, err = vlDocs.Update(ctx, db, key, st.Set("Note", "y").If(st.Eq("ByKey.a.Qty", 4)))
	require.ErrorIs(t, err, st.ErrConditionFailed, "and fail when it does not")

	// A nested Set stores what Put stores.
	_, err = vlDocs.Update(ctx, db, key, st.Set("In.When", t1).Set("In.Count", 8).Set("Items[0].At", t1).Set("ByKey.a", vlLine{At: t1, Qty: 5}))
	require.NoError(t, err)
	updated := rawItem(t, db, "DOC#d1", "DOC")
	want := vlDoc{ID: "d1", In: vlIn{When: t1, Count: 8},
		Items: []vlLine{{At: t1, Qty: 2}}, ByKey: map[string]vlLine{"a": {At: t1, Qty: 5}}, Note: "x"}
	require.NoError(t, vlDocs.Put(ctx, db, want))
	put := rawItem(t, db, "DOC#d1", "DOC")
	for _, attr := range []string{"in", "items", "byKey"} {
		assert.Equal(t, put[attr], updated[attr], "attribute %s as Update stored it and as Put stores it", attr)
	}
	in := updated["in"].(*types.AttributeValueMemberM).Value
	assert.IsType(t, &types.AttributeValueMemberN{}, in["when"], "a unixtime field is N")
	assert.IsType(t, &types.AttributeValueMemberS{}, in["count"], "a `,string` field is S")
}

// vlSized holds one value of each kind the item-size tests measure, and a
// string to pad the item to the size wanted.
type vlSized struct {
	ID     string              `dynamodbav:"id"`
	Pad    string              `dynamodbav:"pad"`
	Ints   []int               `dynamodbav:"ints,omitempty"`
	Floats []float64           `dynamodbav:"floats,omitempty"`
	NS     []float64           `dynamodbav:"ns,numberset,omitempty"`
	SS     []string            `dynamodbav:"ss,stringset,omitempty"`
	BS     [][]byte            `dynamodbav:"bs,omitempty"`
	List   []string            `dynamodbav:"list,omitempty"`
	Map    map[string]int      `dynamodbav:"map,omitempty"`
	Blob   []byte              `dynamodbav:"blob,omitempty"`
	Deep   map[string]vlNested `dynamodbav:"deep,omitempty"`
	Flags  []bool              `dynamodbav:"flags,omitempty"`
}

type vlNested struct {
	LongAttributeNameOfAField string  `dynamodbav:"a_rather_long_attribute_name_é"`
	N                         float64 `dynamodbav:"n_é"`
	Null                      *int    `dynamodbav:"nul"`
}

var (
	vlSizeTable = st.MustTable("ValueSizes")
	vlSizeds    = st.MustDefine[vlSized](vlSizeTable, "Sized", st.Key("S#{ID}", "S"))
)

var itemBytesRE = regexp.MustCompile(`the item is (\d+) bytes`)

// The item-size check follows DynamoDB's rules for every type: at exactly
// 400 KB as the library counts it, DynamoDB Local accepts the item; one
// byte more, the library refuses it (ErrTooLarge, nothing sent) and
// DynamoDB Local refuses it too. Before, numbers were undercounted (1,000
// small numbers passed the check and were refused).
func TestItemSizeAtTheLimit(t *testing.T) {
	db := singletabletest.LocalDB(t, vlSizeTable)
	many := func(n int, f func(i int) float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	cases := []struct {
		name string
		v    vlSized
	}{
		{"small numbers", vlSized{Ints: func() []int {
			ones := make([]int, 1000)
			for i := range ones {
				ones[i] = 1 // 2 bytes each, as DynamoDB counts
			}
			return ones
		}()}},
		{"numbers of every size", vlSized{Floats: many(2000, func(i int) float64 {
			return []float64{1, -1, 12, 1.2, -1.23, 100, 0.001, 12345.678, -1e100, 1.5e-100, 123456789012345}[i%11] * float64(i%7+1)
		})}},
		{"number set", vlSized{NS: many(1000, func(i int) float64 { return float64(i)*1.1 - 300 })}},
		{"string and binary sets", vlSized{SS: []string{"a", "bb", "ccc", "é"}, BS: [][]byte{{1}, {2, 3}, {}}}},
		{"list", vlSized{List: strings.Split(strings.Repeat("x,yy,", 500), ","), Flags: make([]bool, 300)}},
		{"map", vlSized{Map: func() map[string]int {
			m := map[string]int{}
			for i := range 500 {
				m[fmt.Sprintf("k-%d-é", i)] = i * 37
			}
			return m
		}()}},
		{"binary", vlSized{Blob: make([]byte, 100000)}},
		{"nested names", vlSized{Deep: map[string]vlNested{"x": {"v", 1.25, nil}, "ünïcode": {"", -2, nil}}}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := &singletabletest.Client{}
			mock := st.New(client, vlSizeTable)
			v := c.v
			v.ID = strconv.Itoa(i)
			// The size the library counts without the pad, from its error
			// on an item far too large.
			v.Pad = strings.Repeat("p", 500*1024)
			err := vlSizeds.Put(ctx, mock, v)
			require.ErrorIs(t, err, st.ErrTooLarge)
			m := itemBytesRE.FindStringSubmatch(err.Error())
			require.NotNil(t, m, err.Error())
			n, _ := strconv.Atoi(m[1])
			base := n - len(v.Pad)
			require.Less(t, base, 400*1024)

			v.Pad = strings.Repeat("p", 400*1024-base)
			require.NoError(t, vlSizeds.Put(ctx, db, v), "the largest item the library takes, DynamoDB takes")

			in, err := vlSizeds.PutInput(mock, v)
			require.NoError(t, err)
			v.Pad += "p"
			err = vlSizeds.Put(ctx, mock, v)
			require.ErrorIs(t, err, st.ErrTooLarge, "one byte more: refused before sending")
			assert.Empty(t, client.Calls())
			in.Item["pad"] = &types.AttributeValueMemberS{Value: v.Pad} // the item one byte larger, sent as is
			tableName := db.TableName()
			in.TableName = &tableName
			_, err = db.Client().PutItem(ctx, in)
			require.Error(t, err, "DynamoDB refuses it too")
			assert.Contains(t, err.Error(), "size has exceeded the maximum allowed size")
		})
	}
}
