package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

type sparseNote struct {
	Owner string `dynamodbav:"owner"`
	ID    string `dynamodbav:"id"`
	Tag   string `dynamodbav:"tag,omitempty"`
	Rank  int    `dynamodbav:"rank"`
}

// An index an item is not in (a key field empty) says nothing of the
// indexes after it: an LSI, or a GSI on the table's partition key, after
// it still gets its keys, and the item is written (atkB F8: the empty
// field's error outlived its index and refused the item, "every field of
// a table key needs one").
func TestSparseIndexBeforeIndexOnTableKey(t *testing.T) {
	tbl := st.MustTable("SparseOrder", st.WithGSI("ByTag"), st.WithLSI("ByRank"), st.WithGSI("ByOwner"))
	notes := st.MustDefine[sparseNote](tbl, "Note", st.Key("OWNER#{Owner}", "NOTE#{ID}"),
		st.Index("ByTag", "TAG#{Tag}", "NOTE#{ID}"),
		st.Index("ByRank", "OWNER#{Owner}", "RANK#{Rank:4}"),
		st.Index("ByOwner", "OWNER#{Owner}", "BY#{ID}"),
	)
	db := st.New(nil, tbl)
	for name, n := range map[string]sparseNote{
		"without the tag": {Owner: "o", ID: "1", Rank: 7},
		"with the tag":    {Owner: "o", ID: "2", Tag: "t", Rank: 7},
	} {
		t.Run(name, func(t *testing.T) {
			in, err := notes.PutInput(db, n)
			require.NoError(t, err)
			item := in.Item
			assert.Equal(t, &types.AttributeValueMemberS{Value: "RANK#0007"}, item["ByRankSK"])
			assert.Equal(t, &types.AttributeValueMemberS{Value: "BY#" + n.ID}, item["ByOwnerSK"])
			if n.Tag == "" {
				assert.NotContains(t, item, "ByTagPK", "not in the sparse index")
			} else {
				assert.Equal(t, &types.AttributeValueMemberS{Value: "TAG#t"}, item["ByTagPK"])
			}
		})
	}
}
