package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Feature flags keyed by whether they are on: a bool in a key is always a
// value ("false" is not absent), and parses back from a keys-only index.
type Flag struct {
	Name    string `dynamodbav:"name"`
	On      bool   `dynamodbav:"on"`
	Pinned  *bool  `dynamodbav:"pinned,omitempty"`
	Comment string `dynamodbav:"comment"`
}

func flagModel(t *testing.T) (*singletable.Table, *singletable.Entity[Flag], *singletable.Pattern[Flag], *singletable.Pattern[Flag]) {
	t.Helper()
	tbl := singletable.MustTable("Flags", singletable.WithGSI("GSI1", singletable.KeysOnly()), singletable.WithGSI("GSI2"))
	flags := singletable.MustDefine[Flag](tbl, "Flag",
		singletable.Key("FLAG#{Name}", "FLAG#{Name}"),
		singletable.Index("GSI1", "ON#{On}", "FLAG#{Name}"),
		singletable.Index("GSI2", "PINNED#{Pinned}", "FLAG#{Name}"), // sparse: nil is absent
	)
	byState := flags.Pattern("FlagsByState").On("GSI1").Partition("ON#{On}").Must()
	byPinned := flags.Pattern("FlagsByPinned").On("GSI2").Partition("PINNED#{Pinned}").Must()
	return tbl, flags, byState, byPinned
}

func TestBoolKeyFields(t *testing.T) {
	tbl, flags, byState, _ := flagModel(t)
	db := singletable.New(&singletabletest.Client{}, tbl)

	in, err := flags.PutInput(db, Flag{Name: "dark-mode"})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "ON#false"}, in.Item["GSI1PK"], "false is a value, not absent")
	assert.NotContains(t, in.Item, "GSI2PK", "a nil *bool is absent: the item is not in GSI2")

	q, err := byState.QueryInput(db, Flag{})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberS{Value: "ON#false"}, q.ExpressionAttributeValues[":v0"])

	_, err = singletable.Define[struct {
		ID string
		B  bool
	}](singletable.MustTable("Bools"), "E", singletable.Key("E#{ID}", "B#{B:2}"))
	require.ErrorIs(t, err, singletable.ErrInvalidModel, "a bool takes no format")
}
