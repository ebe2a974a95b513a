package singletable

import (
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/expr"
)

// render renders c for the user entity and returns the expression with the
// placeholders replaced by their names and values, for readable asserts.
func render(t *testing.T, c Cond) string {
	t.Helper()
	var b expr.Builder
	s, err := renderCond(c, WUsers.m, &b)
	require.NoError(t, err)
	return expand(s, &b)
}

func expand(s string, b *expr.Builder) string {
	// longest placeholders first, so #n10 is not read as #n1 + "0"
	for i := len(b.Names) + len(b.Values); i >= 0; i-- {
		for p, n := range b.Names {
			if p == "#n"+itoa(i) {
				s = strings.ReplaceAll(s, p, n)
			}
		}
		for p, v := range b.Values {
			if p == ":v"+itoa(i) {
				s = strings.ReplaceAll(s, p, avString(v))
			}
		}
	}
	return s
}

func itoa(i int) string { return strconv.Itoa(i) }

func avString(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return "'" + v.Value + "'"
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberSS:
		return "SS" + strings.Join(v.Value, ",")
	case *types.AttributeValueMemberNULL:
		return "NULL"
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return "true"
		}
		return "false"
	case *types.AttributeValueMemberL:
		parts := make([]string, len(v.Value))
		for i, e := range v.Value {
			parts[i] = avString(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "?"
}

func TestConditionOperators(t *testing.T) {
	cases := []struct {
		name string
		c    Cond
		want string
	}{
		{"eq", Eq("Status", "ACTIVE"), "status = 'ACTIVE'"},
		{"ne", Ne("Status", "GONE"), "status <> 'GONE'"},
		{"lt", Lt("Logins", 3), "logins < 3"},
		{"le", Le("Logins", 3), "logins <= 3"},
		{"gt", Gt("Logins", 3), "logins > 3"},
		{"ge", Ge("Logins", int64(3)), "logins >= 3"},
		{"between", Between("Logins", 1, 9), "logins BETWEEN 1 AND 9"},
		{"in", In("Status", "A", "B", "C"), "status IN ('A', 'B', 'C')"},
		{"begins_with", BeginsWith("Email", "ann@"), "begins_with(email, 'ann@')"},
		{"contains string", Contains("Name", "nn"), "contains(name, 'nn')"},
		{"contains set element", Contains("Tags", "vip"), "contains(tags, 'vip')"},
		{"exists", Exists("Email"), "attribute_exists(email)"},
		{"not exists", NotExists("Email"), "attribute_not_exists(email)"},
		{"type", IsType("Tags", TypeStringSet), "attribute_type(tags, 'SS')"},
		{"size", Size("Tags").Gt(2), "size(tags) > 2"},
		{"size le", Size("Name").Le(10), "size(name) <= 10"},
		{"field ref", Gt("Logins", FieldRef("Version")), "logins > version"},
		{"and", And(Eq("Status", "A"), Gt("Logins", 1)), "(status = 'A') AND (logins > 1)"},
		{"or", Or(Eq("Status", "A"), Eq("Status", "B")), "(status = 'A') OR (status = 'B')"},
		{"not", Not(Exists("Email")), "NOT (attribute_exists(email))"},
		{"nested and or", And(Or(Eq("Status", "A"), Eq("Status", "B")), Not(Lt("Logins", 0))),
			"((status = 'A') OR (status = 'B')) AND (NOT (logins < 0))"},
		{"zero conditions skipped", And(Cond{}, Eq("Status", "A"), Cond{}), "status = 'A'"},
		{"nested struct path", Eq("Address.City", "Oslo"), "address.city = 'Oslo'"},
		{"nested special character", Exists("Address.Zip"), "attribute_exists(address.zip-code)"},
		{"list index", Eq("Log[2]", "x"), "log[2] = 'x'"},
		{"map key", Eq("Attrs.color", "red"), "attrs.color = 'red'"},
		{"nil is NULL", Eq("Status", nil), "status = NULL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, render(t, tc.c))
		})
	}
}

func TestConditionNamesAreAlwaysPlaceholders(t *testing.T) {
	// "name" and "status" are DynamoDB reserved words, "zip-code" has a
	// special character: none may appear in the expression itself.
	var b expr.Builder
	s, err := renderCond(And(Eq("Name", "x"), Eq("Status", "y"), Exists("Address.Zip")), WUsers.m, &b)
	require.NoError(t, err)
	for _, word := range []string{"name", "status", "zip-code", "address"} {
		assert.NotContains(t, s, word)
	}
	assert.Equal(t, "(#n0 = :v0) AND (#n1 = :v1) AND (attribute_exists(#n2.#n3))", s)
	assert.Equal(t, map[string]string{"#n0": "name", "#n1": "status", "#n2": "address", "#n3": "zip-code"}, b.Names)
}

func TestConditionValuesUseFieldEncoding(t *testing.T) {
	// A time.Time field is stored as an RFC 3339 string: conditions on it
	// compare against the same encoding.
	assert.Equal(t, "created < '2024-01-15T10:30:00Z'", render(t, Lt("Created", WClock)))
	// An untyped constant converts to the field's type.
	assert.Equal(t, "version = 7", render(t, Eq("Version", 7)))
}

func TestConditionErrors(t *testing.T) {
	cases := []struct {
		name string
		c    Cond
		want string
	}{
		{"unknown field", Eq("Nope", 1), `entity User has no field "Nope"`},
		{"attribute name instead of Go name", Eq("email", "x"), `"email" is the attribute name of field Email`},
		{"wrong case", Eq("EMAIL", "x"), `did you mean Email?`},
		{"empty field", Exists(""), "empty field name"},
		{"wrong value type", Eq("Logins", "many"), "field Logins is a int; got a string"},
		{"in without values", In("Status"), "takes 1 to 100 values, got 0"},
		{"in over 100 values", In("Status", make([]any, 101)...), "takes 1 to 100 values, got 101"},
		{"unknown type", IsType("Name", "STRING"), `unknown attribute type "STRING"`},
		{"contains nil", Contains("Tags", nil), "needs a value"},
		{"nested unknown", Eq("Address.Street", "x"), `has no field "Street"`},
		{"index on non-list", Eq("Name[0]", "x"), "is not a list"},
		{"bad index", Eq("Log[x]", "x"), "not a non-negative integer"},
		{"unclosed index", Eq("Log[1", "x"), "unclosed"},
		{"empty part", Eq("Address..City", "x"), "empty part"},
		{"path into scalar", Eq("Name.First", "x"), "neither a struct nor a map"},
		{"unknown field ref", Eq("Name", FieldRef("Nope")), `no field "Nope"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b expr.Builder
			_, err := renderCond(tc.c, WUsers.m, &b)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
