package codec

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lender is a Marshaler by pointer only, whose value slices its own
// memory: encoded from an addressable value, the result aliases it.
type lender [4]byte

func (l *lender) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberB{Value: l[:]}, nil
}

// copier is a Marshaler by value: it is handed a copy.
type copier [4]byte

func (c copier) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberB{Value: c[:]}, nil
}

func TestLendsAddress(t *testing.T) {
	type inner struct{ L lender }
	cases := []struct {
		name  string
		value any
		lends bool
	}{
		{"plain fields", struct {
			A string
			B []byte
			C [4]byte
			D map[string]int
		}{}, false},
		{"a field marshaled by pointer", struct{ L lender }{}, true},
		{"inside a nested struct", struct{ In inner }{}, true},
		{"inside an embedded struct", struct{ inner }{}, true},
		{"an array element", struct{ A [2]lender }{}, true},
		{"a marshaler by value", struct{ C copier }{}, false},
		{"behind a pointer", struct{ P *lender }{}, false},
		{"a slice's elements", struct{ S []lender }{}, false},
		{"a map's values", struct{ M map[string]lender }{}, false},
		{"the struct itself", lendingStruct{}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := PlanOf(reflect.TypeOf(c.value))
			require.NoError(t, err)
			assert.Equal(t, c.lends, p.LendsAddress())
		})
	}
}

type lendingStruct struct{ A string }

func (l *lendingStruct) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberS{Value: l.A}, nil
}
