package singletable

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/codec"
)

type kmThing struct {
	A, B string
	N    int
	U    uint
}

func kmTemplate(t *testing.T, raw string) (*template, *codec.Fields) {
	t.Helper()
	fs, err := codec.FieldsOf(reflect.TypeFor[kmThing]())
	require.NoError(t, err)
	tpl, err := parseTemplate(raw, fs, '#')
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
		got, ok := successor(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
		assert.Greater(t, got, in)
		assert.Greater(t, got, in+"\U0010FFFF\U0010FFFF", "above every extension of %q", in)
	}
	_, ok := successor("")
	assert.False(t, ok)
	_, ok = successor("\U0010FFFF")
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
		assert.Equal(t, want, tpl.admitsPrefix(p), "%q", p)
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
	}
	for _, c := range cases {
		a, _ := kmTemplate(t, c.a)
		b, _ := kmTemplate(t, c.b)
		assert.Equal(t, c.want, intersects(a.tokens(), b.tokens(), '#'), "%s vs %s", c.a, c.b)
		assert.Equal(t, c.want, intersects(b.tokens(), a.tokens(), '#'), "%s vs %s (swapped)", c.b, c.a)
	}
	a, _ := kmTemplate(t, "ORDER#{A}#{B}")
	assert.True(t, intersects(a.tokens(), prefixTokens("ORDER#"), '#'))
	assert.True(t, intersects(a.tokens(), prefixTokens("ORDER#x#y"), '#'))
	assert.False(t, intersects(a.tokens(), prefixTokens("TEAM#"), '#'))
}

func TestUnify(t *testing.T) {
	tpl, fs := kmTemplate(t, "STATUS#{A}#{N:4}")
	labels := func(raw string) []labelSeg {
		segs, err := parseLabels(raw)
		require.NoError(t, err)
		return segs
	}
	ok := func(string, *placeholder) error { return nil }

	bs, err := unify(labels("STATUS#{A}#{N}"), tpl, fs, ok)
	require.NoError(t, err)
	assert.Equal(t, "A", bs[0].label)
	assert.Equal(t, "N", bs[1].label)

	bs, err = unify(labels("STATUS#PENDING#{N}"), tpl, fs, ok)
	require.NoError(t, err)
	assert.Equal(t, "PENDING", bs[0].fixed)
	sp := specialise(tpl, bs)
	assert.Equal(t, "STATUS#PENDING#", sp.literalPrefix())

	_, err = unify(labels("STATUS#{A}#{N:5}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "another format")
	_, err = unify(labels("STATUS#{A}#x"), tpl, fs, ok)
	assert.ErrorContains(t, err, "is not a value of {N}")
	_, err = unify(labels("STATUS#P{A}#{N}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "must be given whole")
	_, err = unify(labels("USER#{A}#{N}"), tpl, fs, ok)
	assert.ErrorContains(t, err, "does not have the shape")
	_, err = unify(labels("STATUS#{A}"), tpl, fs, ok)
	assert.Error(t, err)
}

// A literal that fixes a placeholder must be the text the entity writes
// for that value: "STATUS#x#5" parses as N=5, but {N:4} writes "0005", so
// a pattern fixing "5" would read a partition no item is in.
func TestUnifyRefusesNonCanonicalLiterals(t *testing.T) {
	tpl, fs := kmTemplate(t, "STATUS#{A}#{N:4}")
	ok := func(string, *placeholder) error { return nil }
	for _, raw := range []string{"STATUS#{A}#5", "STATUS#{A}#+0005", "STATUS#%41#{N}", "STATUS#%2a#{N}"} {
		segs, err := parseLabels(raw)
		require.NoError(t, err)
		_, err = unify(segs, tpl, fs, ok)
		assert.ErrorContains(t, err, "is not a value of", raw)
	}
	for _, raw := range []string{"STATUS#{A}#0005", "STATUS#%23#{N}", "STATUS#%25x#0000"} {
		segs, err := parseLabels(raw)
		require.NoError(t, err)
		_, err = unify(segs, tpl, fs, ok)
		assert.NoError(t, err, raw)
	}
}

func TestPatternRefusesNonCanonicalFixedValue(t *testing.T) {
	tbl := MustTable("Canon")
	type Job struct {
		Queue int
		ID    string
	}
	jobs := MustDefine[Job](tbl, "Job", Key("QUEUE#{Queue:4}", "JOB#{ID}"))
	assert.ErrorIs(t, jobs.Pattern("Queue5").Partition("QUEUE#5").Err(), ErrInvalidModel,
		"Queue 5 is written QUEUE#0005: a read of QUEUE#5 finds nothing")
	assert.NoError(t, jobs.Pattern("Queue5Padded").Partition("QUEUE#0005").Err())
}
