package codec

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A time stored as RFC 3339 text must be one that reads back: years 0000
// to 9999 in its own zone. Others are an error (attributevalue writes them,
// and cannot read them back); a unixtime field stores any time.
func TestTimeOutsideRFC3339Years(t *testing.T) {
	type at struct {
		When time.Time
		Unix time.Time `dynamodbav:",unixtime"`
	}
	p, err := PlanOf(reflect.TypeFor[at]())
	if err != nil {
		t.Fatal(err)
	}
	plus14 := time.FixedZone("+14", 14*3600)
	for _, tc := range []struct {
		when time.Time
		ok   bool
	}{
		{time.Time{}, true},
		{time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), false},
		{time.Date(-1, 12, 31, 0, 0, 0, 0, time.UTC), false},
		{time.Date(9999, 12, 31, 23, 0, 0, 0, time.UTC).In(plus14), false}, // year 10000 where it is
	} {
		item := map[string]types.AttributeValue{}
		_, err := p.Encode(reflect.ValueOf(at{When: tc.when, Unix: tc.when}), item)
		if tc.ok != (err == nil) {
			t.Errorf("%v: err = %v", tc.when, err)
		}
		if err != nil && !strings.Contains(err.Error(), "could not be read back") {
			t.Errorf("%v: message %q", tc.when, err)
		}
	}
	item := map[string]types.AttributeValue{}
	if _, err := p.Encode(reflect.ValueOf(at{Unix: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}), item); err != nil {
		t.Errorf("unixtime of year 10000: %v", err)
	}
}
