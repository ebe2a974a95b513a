package write

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestActionInputsCarryTheRequest(t *testing.T) {
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "A"}}
	a := &Action{Kind: Update, Key: key, Update: "SET #a = :a", Cond: "attribute_exists(#k)",
		Names:  map[string]string{"#a": "a", "#k": "PK"},
		Values: map[string]types.AttributeValue{":a": &types.AttributeValueMemberN{Value: "1"}}}
	u := a.UpdateItemInput("T")
	if *u.TableName != "T" || *u.UpdateExpression != a.Update || *u.ConditionExpression != a.Cond ||
		u.ExpressionAttributeNames["#a"] != "a" || u.Key["PK"] != key["PK"] ||
		u.ReturnValues != types.ReturnValueAllNew || u.ReturnValuesOnConditionCheckFailure != types.ReturnValuesOnConditionCheckFailureAllOld {
		t.Errorf("UpdateItemInput: %+v", u)
	}
	// Each request has a table name of its own: a Client may modify it.
	*u.TableName = "scribbled"
	if d := a.DeleteItemInput("T"); *d.TableName != "T" || d.Key["PK"] != key["PK"] || *d.ConditionExpression != a.Cond {
		t.Errorf("DeleteItemInput after a scribble: %+v", d)
	}

	// No condition: no expression, nothing asked back; no update: none.
	p := &Action{Kind: Put, Item: key}
	in := p.PutItemInput("T")
	if in.ConditionExpression != nil || in.ReturnValuesOnConditionCheckFailure != "" || in.Item["PK"] != key["PK"] {
		t.Errorf("PutItemInput without a condition: %+v", in)
	}
	if (&Action{Kind: Update}).UpdateItemInput("T").UpdateExpression != nil {
		t.Error("an update that changes nothing sends an UpdateExpression")
	}
}
