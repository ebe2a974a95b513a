package keys

import (
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/codec"
)

type kmThing struct {
	A, B string
	N    int
	U    uint
	At   time.Time
	Flag bool
}

func kmTemplate(t *testing.T, raw string) (*Template, *codec.Fields) {
	t.Helper()
	fs, err := codec.FieldsOf(reflect.TypeFor[kmThing]())
	require.NoError(t, err)
	tpl, err := Parse(raw, fs, '#')
	require.NoError(t, err)
	return tpl, fs
}

func TestSuccessor(t *testing.T) {
	cases := map[string]string{
		"ORDER#":       "ORDER$",
		"ORDER#2024#":  "ORDER#2024$",
		"a":            "b",
		"é":            "ê",
		"a\U0010FFFF":  "b",
		"\uD7FF":       "\uE000",
		"x\x7F":        "x\u0080",
		"ORDER#2024-1": "ORDER#2024-2",
	}
	for in, want := range cases {
		got, ok := Successor(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.Greater(t, got, in)
		assert.Greater(t, got, in+"\U0010FFFF\U0010FFFF", "above every extension of %q", in)
	}
	_, ok := Successor("")
	assert.False(t, ok)
	_, ok = Successor("\U0010FFFF")
	assert.False(t, ok)
}

func TestAdmitsPrefix(t *testing.T) {
	tpl, _ := kmTemplate(t, "ORDER#{A}#{N}")
	for p, want := range map[string]bool{
		"":               true,
		"ORD":            true,
		"ORDER#":         true,
		"ORDER#x":        true,
		"ORDER#2024-01":  true,
		"ORDER#x#":       true,
		"ORDER#x#12":     true,
		"ORDER#x#1a":     false, // N is an integer
		"ORDER##":        false, // A cannot be empty
		"ORDER#x#1#":     false, // nothing after N
		"TEAM#":          false,
		"ORDER#x#1#tail": false,
	} {
		assert.Equal(t, want, tpl.AdmitsPrefix(p), "%q", p)
	}
}

func TestIntersects(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"USER#{A}", "USER#{B}", true},
		{"USER#{A}", "ORDER#{A}", false},
		{"ORDER#{A}#{B}", "ORDER#{A}", false}, // a value never holds the delimiter
		{"#METADATA#{A}", "ORDER#{A}#{B}", false},
		{"{A}#X", "B#{B}", true},
		{"{A}", "B#{B}", false},
		{"N#{N}", "N#x", false}, // digits only
		{"N#{N}", "N#{A}", true},
		{"N#{U}", "N#-1", false},
		{"X{A}Y", "{B}Z", false},
		{"X{A}Y", "{B}Y", true},
		{"CONST", "CONST", true},
		{"CONST", "CONSTX", false},
		// A time whose layout starts with a number starts with a digit:
		// a bare timestamp never collides with a literal like "Join:".
		{"{At}", "Join:{A}", false},
		{"{At:15:04}", "Join:{A}", false},
		{"{At}", "2{A}", true},
		{"{At:Jan 2}", "J{A}", true},
		{"{At:Jan 2 15:04}", "Jun:{A}", true}, // J, then bytes it writes (an approximation)
		{"{At:Jan 2}", "Join:{A}", false},     // it never writes ':'
		{"{At:_2 Jan}", "Join:{A}", false},    // a space or a digit first
		// A declared shape narrows a string's values.
		{"{A:hex}", "Join:{A}", false},
		{"{A:hex}", "f{A}", true},
		{"{A:[a-z]}", "N#{N}", false},
		{"{A:[a-z_-]}", "x-{A}", true},
		{"{A:digits}", "{At}", true},
		{"{A:alnum}", "{N}", true},
		{"{A:alnum}", "-{A}", false},
		{"T#{Flag}", "T#true", true},
		{"T#{Flag}", "T#yes", false},
	}
	for _, c := range cases {
		a, _ := kmTemplate(t, c.a)
		b, _ := kmTemplate(t, c.b)
		assert.Equal(t, c.want, Intersects(a.Glob(), b.Glob(), '#'), "%s vs %s", c.a, c.b)
		assert.Equal(t, c.want, Intersects(b.Glob(), a.Glob(), '#'), "%s vs %s (swapped)", c.b, c.a)
	}
	a, _ := kmTemplate(t, "ORDER#{A}#{B}")
	assert.True(t, Intersects(a.Glob(), PrefixGlob("ORDER#"), '#'))
	assert.True(t, Intersects(a.Glob(), PrefixGlob("ORDER#x#y"), '#'))
	assert.False(t, Intersects(a.Glob(), PrefixGlob("TEAM#"), '#'))

	lo, hi, ok := a.Glob().FirstBytes()
	assert.True(t, ok)
	assert.Equal(t, [2]byte{'O', 'O'}, [2]byte{lo, hi})
	at, _ := kmTemplate(t, "{At}")
	lo, hi, _ = at.Glob().FirstBytes()
	assert.Equal(t, [2]byte{'0', '9'}, [2]byte{lo, hi})
}

func TestUnify(t *testing.T) {
	tpl, fs := kmTemplate(t, "STATUS#{A}#{N:4}")
	labels := func(raw string) []ReadSegment {
		segs, err := ParseLabels(raw)
		require.NoError(t, err)
		return segs
	}
	ok := func(string, *Placeholder) error { return nil }

	bs, err := Unify(labels("STATUS#{A}#{N}"), tpl, fs, ok)
	require.NoError(t, err)
	assert.Equal(t, "A", bs[0].Label)
	assert.Equal(t, "N", bs[1].Label)

	bs, err = Unify(labels("STATUS#PENDING#{N}"), tpl, fs, ok)
	require.NoError(t, err)
	assert.Equal(t, "PENDING", bs[0].Fixed)
	sp := Specialise(tpl, bs)
	assert.Equal(t, "STATUS#PENDING#", sp.LiteralPrefix())

	_, err = Unify(labels("STATUS#{A}#{N:5}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "another format")
	_, err = Unify(labels("STATUS#{A}#x"), tpl, fs, ok)
	assert.ErrorContains(t, err, "is not a value of {N}")
	_, err = Unify(labels("STATUS#P{A}#{N}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "must be given whole")
	_, err = Unify(labels("USER#{A}#{N}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "does not have the shape")
	_, err = Unify(labels("STATUS#{A}"), tpl, fs, ok)
	assert.Error(t, err)
}

// A literal that fixes a placeholder must be the text the entity writes
// for that value: "STATUS#x#5" parses as N=5, but {N:4} writes "0005", so
// a pattern fixing "5" would read a partition no item is in.
func TestUnifyRefusesNonCanonicalLiterals(t *testing.T) {
	tpl, fs := kmTemplate(t, "STATUS#{A}#{N:4}")
	ok := func(string, *Placeholder) error { return nil }
	for _, raw := range []string{"STATUS#{A}#5", "STATUS#{A}#+0005", "STATUS#%41#{N}", "STATUS#%2a#{N}"} {
		segs, err := ParseLabels(raw)
		require.NoError(t, err)
		_, err = Unify(segs, tpl, fs, ok)
		assert.ErrorContains(t, err, "is not a value of", raw)
	}
	for _, raw := range []string{"STATUS#{A}#0005", "STATUS#%23#{N}", "STATUS#%25x#0000"} {
		segs, err := ParseLabels(raw)
		require.NoError(t, err)
		_, err = Unify(segs, tpl, fs, ok)
		assert.NoError(t, err, raw)
	}
}
