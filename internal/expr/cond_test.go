package expr

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plain resolves paths as attribute names and values as strings, and
// refuses the path "Bad": what the tree does is independent of a model.
type plain struct{}

func (plain) Path(b *Builder, path string) (string, error) {
	if path == "Bad" {
		return "", errors.New("no field Bad")
	}
	return b.Name(path), nil
}

func (plain) Value(b *Builder, path string, v any, element bool) (string, error) {
	s := fmt.Sprint(v)
	if element {
		s = "elem:" + s
	}
	return b.Value(S(s)), nil
}

func TestRenderNodes(t *testing.T) {
	and := Join("AND")
	and.Add(Compare("A", "=", 1))
	and.Add(Not(Unary("attribute_exists", "B")))
	or := Join("OR")
	or.Add(and)
	or.Add(Size("C", ">", 3))
	or.Add(In("D", []any{"x", "y"}))
	for _, c := range []struct {
		n    Node
		want string
	}{
		{Compare("A", "<>", "x"), "#n0 <> :v0"},
		{Between("A", 1, 2), "#n0 BETWEEN :v0 AND :v1"},
		{In("A", []any{1, 2, 3}), "#n0 IN (:v0, :v1, :v2)"},
		{Call("contains", "A", "x", true), "contains(#n0, :v0)"},
		{CallString("begins_with", "A", "p"), "begins_with(#n0, :v0)"},
		{Unary("attribute_not_exists", "A"), "attribute_not_exists(#n0)"},
		{UnaryAttr("attribute_exists", "Bad"), "attribute_exists(#n0)"},
		{CallType("attribute_type", "A", "SS"), "attribute_type(#n0, :v0)"},
		{Size("A", "<=", 2), "size(#n0) <= :v0"},
		{or, "((#n0 = :v0) AND (NOT (attribute_exists(#n1)))) OR (size(#n2) > :v1) OR (#n3 IN (:v2, :v3))"},
	} {
		var b Builder
		got, err := Render(c.n, plain{}, &b)
		require.NoError(t, err, c.want)
		assert.Equal(t, c.want, got)
	}
}

// Values go through the Resolver, but for the plain strings and type names
// that functions take whatever the field's type.
func TestRenderValues(t *testing.T) {
	var b Builder
	_, err := Render(Call("contains", "A", 7, true), plain{}, &b)
	require.NoError(t, err)
	assert.Equal(t, S("elem:7"), b.Values[":v0"])

	b = Builder{}
	_, err = Render(CallString("begins_with", "A", "p"), plain{}, &b)
	require.NoError(t, err)
	assert.Equal(t, S("p"), b.Values[":v0"])

	b = Builder{}
	_, err = Render(Size("A", "=", 12), plain{}, &b)
	require.NoError(t, err)
	assert.Equal(t, &types.AttributeValueMemberN{Value: "12"}, b.Values[":v0"])
}

func TestRenderErrors(t *testing.T) {
	for _, c := range []struct {
		n    Node
		want string
	}{
		{Compare("Bad", "=", 1), "no field Bad"},
		{Not(Unary("attribute_exists", "Bad")), "no field Bad"},
		{In("A", nil), `In("A") takes 1 to 100 values, got 0`},
		{In("A", make([]any, 101)), `In("A") takes 1 to 100 values, got 101`},
		{Call("contains", "A", nil, true), `contains("A") needs a value, got nil`},
		{CallType("attribute_type", "A", "X"), `IsType("A"): unknown attribute type "X"`},
	} {
		var b Builder
		_, err := Render(c.n, plain{}, &b)
		assert.EqualError(t, err, c.want)
	}
}

// A condition of the library's own on a raw attribute renders alike with a
// shared builder (its fast path) and without, beside names already taken.
func TestRenderUnaryAttrShared(t *testing.T) {
	var shared Shared
	for _, n := range []Node{UnaryAttr("attribute_exists", "PK"), UnaryAttr("attribute_not_exists", "weird #name")} {
		var plainB, sharedB Builder
		sharedB.ShareNames(&shared)
		for _, b := range []*Builder{&plainB, &sharedB} {
			b.Name("status")
		}
		want, err := Render(n, plain{}, &plainB)
		require.NoError(t, err)
		got, err := Render(n, plain{}, &sharedB)
		require.NoError(t, err)
		assert.Equal(t, want, got)
		assert.Equal(t, plainB.Names, sharedB.NameMap())
		assert.Contains(t, got, "(#n1)")
	}
}

// RenderJoin renders what Render renders for Join(op) of the same two
// nodes, with a shared builder and without: the text, the names and the
// values, for every kind of node (and nested junctions, negations), and
// the same error when a node fails.
func TestRenderJoinIsJoin(t *testing.T) {
	nested := Join("OR")
	nested.Add(Compare("A.B", ">=", 2))
	nested.Add(Not(Call("contains", "Tags", "x", true)))
	nodes := []Node{
		UnaryAttr("attribute_exists", "PK"),
		Unary("attribute_not_exists", "A"),
		Compare("A", ">=", 2),
		Compare("A", "=", "two"),
		Between("N", 1, 9),
		In("S", []any{"x", "y"}),
		Call("contains", "Tags", "x", true),
		CallString("begins_with", "Name", "p"),
		CallType("attribute_type", "A", "SS"),
		Size("Tags", ">", 3),
		Not(Unary("attribute_exists", "Gone")),
		nested,
	}
	var shared Shared
	for _, op := range []string{"AND", "OR"} {
		for _, x := range nodes {
			for _, y := range nodes {
				j := Join(op)
				j.Add(x)
				j.Add(y)
				for _, share := range []bool{false, true} {
					var wantB, gotB Builder
					if share {
						wantB.ShareNames(&shared)
						gotB.ShareNames(&shared)
					}
					wantB.Name("taken") // names handed out before count too
					gotB.Name("taken")
					want, err := Render(j, plain{}, &wantB)
					require.NoError(t, err)
					got, err := RenderJoin(op, x, y, plain{}, &gotB)
					require.NoError(t, err)
					assert.Equal(t, want, got)
					assert.Equal(t, wantB.NameMap(), gotB.NameMap())
					assert.Equal(t, wantB.Values, gotB.Values)
				}
			}
		}
	}
	for _, bad := range []Node{Compare("Bad", "=", 1), In("A", nil)} {
		j := Join("AND")
		j.Add(Compare("A", "=", 1))
		j.Add(bad)
		var wantB, gotB Builder
		_, want := Render(j, plain{}, &wantB)
		_, got := RenderJoin("AND", Compare("A", "=", 1), bad, plain{}, &gotB)
		require.Error(t, want)
		assert.Equal(t, want, got)
	}
}

// TestDescribe: a condition written for people, paths and values in place.
func TestDescribe(t *testing.T) {
	n := Join("AND")
	n.Add(Compare("Status", "=", "OPEN"))
	n.Add(Compare("Priority", ">", 2))
	if got, want := Describe(n), `(Status = "OPEN") AND (Priority > 2)`; got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
	if Describe(nil) != "" {
		t.Error("Describe(nil) is not empty")
	}
}
