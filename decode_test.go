package singletable_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/stream"
)

type decodeGauge struct {
	ID    string  `dynamodbav:"id"`
	Small int8    `dynamodbav:"small"`
	Ratio float64 `dynamodbav:"ratio"`
	Count int     `dynamodbav:"count,string"`
	In    struct {
		Level int8 `dynamodbav:"level"`
	} `dynamodbav:"in"`
}

var (
	decodeTable = st.MustTable("DecodeGarbage")
	gaugeE      = st.MustDefine[decodeGauge](decodeTable, "Gauge", st.Key("G#{ID}", "G"))
)

// gaugeItem is a Gauge item with attribute attr set to av.
func gaugeItem(attr string, av types.AttributeValue) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{"PK": s("G#g1"), "SK": s("G"), "_type": s("Gauge"), "id": s("g1")}
	if attr != "" {
		item[attr] = av
	}
	return item
}

// Raw decoding refuses what is no item of the table, and every value that
// does not fit its field, with a *DecodeError naming the attribute.
func TestDecodeRefusesGarbage(t *testing.T) {
	n := func(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }
	cases := []struct {
		name  string
		item  map[string]types.AttributeValue
		attr  string
		field string
	}{
		{"nil", nil, "PK", ""},
		{"empty", map[string]types.AttributeValue{}, "PK", ""},
		{"number key", map[string]types.AttributeValue{"PK": n("1"), "SK": s("G")}, "PK", ""},
		{"no sort key", map[string]types.AttributeValue{"PK": s("G#g1")}, "SK", ""},
		{"binary sort key", map[string]types.AttributeValue{"PK": s("G#g1"), "SK": &types.AttributeValueMemberB{Value: []byte("G")}}, "SK", ""},
		{"typed without keys", map[string]types.AttributeValue{"_type": s("Gauge"), "id": s("g1")}, "PK", ""},
		{"string in a float", gaugeItem("ratio", s("12.5")), "ratio", "Ratio"},
		{"not a number in a string-stored int", gaugeItem("count", s("12.5")), "count", "Count"},
		{"300 in an int8", gaugeItem("small", n("300")), "small", "Small"},
		{"nested", gaugeItem("in", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"level": n("-129")}}), "in.level", "In.Level"},
	}
	check := func(t *testing.T, err error, attr, field string) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrDecode)
		var de *st.DecodeError
		require.ErrorAs(t, err, &de)
		assert.Equal(t, attr, de.Attr)
		assert.Equal(t, field, de.Field)
		assert.Contains(t, err.Error(), "attribute "+attr)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := gaugeE.Decode(c.item)
			check(t, err, c.attr, c.field)
			_, err = decodeTable.Decode(c.item)
			check(t, err, c.attr, c.field)
			_, err = decodeTable.EntityOf(c.item)
			if c.field == "" {
				check(t, err, c.attr, c.field)
			}
			if c.item == nil || c.field != "" {
				return
			}
			// A stream record with such keys, and one with such an image.
			_, err = stream.Decode(gaugeE, stream.Record{Event: stream.EventRemove, SequenceNumber: "1", Keys: c.item})
			check(t, err, c.attr, c.field)
		})
	}
	rec := stream.Record{Event: stream.EventInsert, SequenceNumber: "1", Keys: gaugeItem("", nil), NewImage: gaugeItem("small", n("300"))}
	delete(rec.Keys, "_type")
	delete(rec.Keys, "id")
	_, err := stream.Decode(gaugeE, rec)
	check(t, err, "small", "Small")

	good := gaugeItem("small", n("7"))
	v, err := gaugeE.Decode(good)
	require.NoError(t, err)
	assert.Equal(t, int8(7), v.Small)
}

// A read returns the same *DecodeError for a stored value that does not fit
// its field: Get, a query, a batch get, a transactional get.
func TestReadsDecodeError(t *testing.T) {
	bad := gaugeItem("small", &types.AttributeValueMemberN{Value: "300"})
	c := &singletabletest.Client{
		GetItemFunc: func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{Item: bad}, nil
		},
		ScanFunc: func(context.Context, *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
			return &dynamodb.ScanOutput{Items: []map[string]types.AttributeValue{bad}}, nil
		},
		QueryFunc: func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{bad}}, nil
		},
		BatchGetItemFunc: func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
			return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"DecodeGarbage": {bad}}}, nil
		},
		TransactGetItemsFunc: func(context.Context, *dynamodb.TransactGetItemsInput) (*dynamodb.TransactGetItemsOutput, error) {
			return &dynamodb.TransactGetItemsOutput{Responses: []types.ItemResponse{{Item: bad}}}, nil
		},
	}
	db := st.New(c, decodeTable)
	check := func(what string, err error) {
		t.Helper()
		require.ErrorIs(t, err, st.ErrDecode, what)
		var de *st.DecodeError
		require.ErrorAs(t, err, &de, what)
		assert.Equal(t, "small", de.Attr, what)
		assert.Equal(t, "Gauge", de.Entity, what)
	}
	_, err := gaugeE.Get(t.Context(), db, decodeGauge{ID: "g1"})
	check("Get", err)
	_, err = gaugeE.Query(t.Context(), db, decodeGauge{ID: "g1"})
	check("Query", err)
	_, err = gaugeE.BatchGet(t.Context(), db, []decodeGauge{{ID: "g1"}})
	check("BatchGet", err)
	tg := db.TransactGet()
	tv := gaugeE.TxGet(tg, decodeGauge{ID: "g1"})
	check("GetTx.Run", tg.Run(t.Context()))
	_, err = tv.Get()
	check("TxGet", err)
	scanned := 0
	for _, err := range gaugeE.Scan(t.Context(), db) {
		check("Scan", err)
		scanned++
	}
	assert.Equal(t, 1, scanned)
}

// A key parses only as its template writes it: "SEQ#12" is no key of
// "SEQ#{Seq:4}", which writes "SEQ#0012".
func TestDecodeKeysOnlyAsWritten(t *testing.T) {
	item := map[string]types.AttributeValue{"PK": s("K#x"), "SK": s("SEQ#12")}
	_, err := kindsE.Decode(item)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
	_, err = kindsTable.Decode(item)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
	item["SK"] = s("SEQ#0012")
	v, err := kindsE.Decode(item)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: "x", Seq: 12}, v)
}
