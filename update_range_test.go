package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/singletabletest"
)

// counters has an integer field of every kind whose range an Increment,
// Decrement or Add can leave, and one (int64) it cannot in practice.
type counters struct {
	ID    string           `dynamodbav:"id"`
	U8    uint8            `dynamodbav:"u8"`
	U     uint             `dynamodbav:"u"`
	I16   int16            `dynamodbav:"i16"`
	I64   int64            `dynamodbav:"i64"`
	PU32  *uint32          `dynamodbav:"pu32"`
	Stats struct{ N int8 } `dynamodbav:"stats"`
	Tags  []int            `dynamodbav:"tags,numberset,omitempty"`
}

var (
	rangeTable = st.MustTable("Ranges")
	rangeItems = st.MustDefine[counters](rangeTable, "Counters", st.Key("C#{ID}", "C"))
)

// A change that could take an integer field out of its Go type's range is
// conditioned on the stored value leaving room for it (a missing attribute
// counts as 0, as if_not_exists makes it); changes that cannot are sent as
// they were.
func TestUpdateKeepsIntegersInRangeGolden(t *testing.T) {
	db := st.New(&singletabletest.Client{}, rangeTable)
	in, err := rangeItems.UpdateInput(db, counters{ID: "a"}, st.
		Increment("U8", 10).     // #u8 <= 245, or absent
		Decrement("U", 3).       // #u >= 3 (absent: 0 - 3 is below 0)
		Decrement("I16", -5).    // adds 5: #i16 <= 32762, or absent
		Add("PU32", uint32(7)).  // a pointer's element type
		Increment("Stats.N", 1). // nested: #stats.#N <= 126, or absent
		Increment("I64", 1).     // no condition
		Add("Tags", []int{1}))   // a set: no condition
	require.NoError(t, err)
	golden.Request(t, "update/integer_ranges", in)
}

// Increment(-128) of an int8 leaves its range even from 0: no missing
// attribute passes.
func TestUpdateRangeFromZero(t *testing.T) {
	type small struct {
		ID string
		N  int8
	}
	table := st.MustTable("RangeZero")
	smalls := st.MustDefine[small](table, "Small", st.Key("S#{ID}", "S"))
	db := st.New(&singletabletest.Client{}, table)
	in, err := smalls.UpdateInput(db, small{ID: "a"}, st.Decrement("N", int8(-128)))
	require.NoError(t, err)
	assert.Equal(t, "((attribute_exists(#n1)) AND (#n2 = :v2)) AND (#n0 <= :v3)", *in.ConditionExpression)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "-1"}, in.ExpressionAttributeValues[":v3"])
}
