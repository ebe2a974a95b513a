package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// The kinds model (a table with a stream; package stream's tests decode
// its records) serves the raw-decoding tests here.
type (
	Kinds      = testmodel.Kinds
	StreamNote = testmodel.StreamNote
)

var (
	kindsTable = testmodel.KindsTable
	kindsE     = testmodel.KindsE
)

// kindsItem is the item Put writes for v.
func kindsItem(t *testing.T, v Kinds) map[string]types.AttributeValue {
	t.Helper()
	in, err := kindsE.PutInput(st.New(&singletabletest.Client{}, kindsTable), v)
	require.NoError(t, err)
	return in.Item
}

func TestDecodeRawItems(t *testing.T) {
	v := testmodel.KindsValue()
	item := kindsItem(t, v)

	// A KEYS_ONLY index item: no type attribute; matched by its keys, its
	// fields parsed from the table and index keys.
	keysOnly := map[string]types.AttributeValue{"PK": item["PK"], "SK": item["SK"], "GSI1PK": item["GSI1PK"], "GSI1SK": item["GSI1SK"]}
	got, err := kindsTable.Decode(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq, Text: v.Text}, got)
	name, err := kindsTable.EntityOf(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, "Kinds", name)
	k, err := kindsE.Decode(keysOnly)
	require.NoError(t, err)
	assert.Equal(t, Kinds{ID: v.ID, Seq: v.Seq, Text: v.Text}, k)

	note := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#n1"}, "SK": &types.AttributeValueMemberS{Value: "NOTE"},
		"_type": &types.AttributeValueMemberS{Value: "Note"}, "body": &types.AttributeValueMemberS{Value: "hi"}, "id": &types.AttributeValueMemberS{Value: "n1"}}
	got, err = kindsTable.Decode(note)
	require.NoError(t, err)
	assert.Equal(t, StreamNote{ID: "n1", Body: "hi"}, got)

	// Another entity's item, to Entity.Decode.
	_, err = kindsE.Decode(note)
	var mismatch *st.EntityMismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.Equal(t, "Note", mismatch.Got)

	// An unknown type: reported with the item.
	unknown := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "X#1"}, "SK": &types.AttributeValueMemberS{Value: "X"},
		"_type": &types.AttributeValueMemberS{Value: "Ghost"}}
	_, err = kindsTable.Decode(unknown)
	var ue *st.UnknownEntityError
	require.ErrorAs(t, err, &ue)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
	assert.Equal(t, "Ghost", ue.Type)
	assert.Equal(t, unknown, ue.Item)
	assert.Contains(t, err.Error(), `"Ghost"`)

	// No type and keys of no entity (a Note's partition with a Kinds sort key).
	_, err = kindsTable.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "NOTE#1"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#0001"}})
	require.ErrorAs(t, err, &ue)
	assert.Empty(t, ue.Type)
	// A typed item whose keys do not parse as its entity's.
	bad := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "K#x"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#notanumber"},
		"_type": &types.AttributeValueMemberS{Value: "Kinds"}}
	_, err = kindsTable.Decode(bad)
	assert.ErrorIs(t, err, st.ErrWrongEntity)
}

func TestDecodeAmbiguousKeys(t *testing.T) {
	tbl := st.MustTable("Ambiguous")
	st.MustDefine[StreamNote](tbl, "A", st.Key("X#{ID}", "S"))
	st.MustDefine[StreamNote](tbl, "B", st.Key("X#{Body}", "S"))
	_, err := tbl.Decode(map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "X#1"}, "SK": &types.AttributeValueMemberS{Value: "S"}})
	var ue *st.UnknownEntityError
	require.ErrorAs(t, err, &ue, "keys two entities parse are unknown, never a guess")
}

func TestWithStream(t *testing.T) {
	_, err := st.NewTable("Bad", st.WithStream("EVERYTHING"))
	assert.ErrorIs(t, err, st.ErrInvalidModel)
	golden.Request(t, "table/create_stream", kindsTable.CreateTableInput("Kinds"))
	golden.Request(t, "table/enable_stream", kindsTable.EnableStreamInput("Kinds"))
	assert.Nil(t, st.MustTable("NoStream").EnableStreamInput("NoStream"))
	assert.Equal(t, st.StreamNewAndOldImages, kindsTable.Stream())
}
