package singletable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
)

func TestPutVersionAndTimestamps(t *testing.T) {
	db, _ := pureDB()
	// Version 0: the item must be new; it is stored at version 1.
	in, err := st.WProducts.PutInput(db, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Price: 1.5, Inventory: 10})
	require.NoError(t, err)
	assert.Equal(t, "attribute_not_exists(#n0)", *in.ConditionExpression)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, in.Item["version"])
	golden.Request(t, "put/version_new", in)

	// Version 4: the stored item must be at 4; it is stored at 5.
	in, err = st.WProducts.PutInput(db, st.WProduct{ID: "p1", Name: "Pen", Category: "office", Version: 4})
	require.NoError(t, err)
	assert.Equal(t, "#n0 = :v0", *in.ConditionExpression)
	assert.Equal(t, "version", in.ExpressionAttributeNames["#n0"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "4"}, in.ExpressionAttributeValues[":v0"])
	assert.Equal(t, &types.AttributeValueMemberN{Value: "5"}, in.Item["version"])

	// Create: must not exist, version 1, timestamps from the DB's clock.
	cin, err := st.WCounters.CreateInput(db, st.WCounter{ID: "c", Version: 7})
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "1"}, cin.Item["version"])
	assert.Equal(t, "attribute_not_exists(#n0)", *cin.ConditionExpression)
}
