package keys

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/internal/codec"
)

type keyed struct {
	Tenant string
	ID     string
	Seq    int64
	Small  uint16
	At     time.Time
	Kind   kindName
}

type kindName string

func mustTemplate(t *testing.T, raw string) *Template {
	t.Helper()
	fs, err := codec.FieldsOf(reflect.TypeFor[keyed]())
	require.NoError(t, err)
	tpl, err := Parse(raw, fs, '#')
	require.NoError(t, err, raw)
	return tpl
}

func TestTemplateParseErrors(t *testing.T) {
	fs, err := codec.FieldsOf(reflect.TypeFor[keyed]())
	require.NoError(t, err)
	for raw, want := range map[string]string{
		"":                   "empty",
		"USER#{Nope}":        "no such field",
		"USER#{ID":           "unclosed",
		"USER#ID}":           "unmatched",
		"{Tenant}{ID}":       "must be separated",
		"{Tenant}-{ID}":      "must contain the delimiter",
		"A%B#{ID}":           "escape character",
		"{ID:5}":             "string fields take a shape",
		"{ID:[a-#]}":         "runs backwards",
		"{ID:[a-z#]}":        "the delimiter",
		"{ID:[a%]}":          "the delimiter",
		"{ID:[]}":            "take a shape",
		"{ID:[é]}":           "printable ASCII",
		"{Seq:x}":            "padding width",
		"{Seq:0}":            "padding width",
		"{}":                 "empty placeholder",
		"{At:}":              "empty time layout",
		"USER#{Tenant}#{ID}": "",
	} {
		_, err := Parse(raw, fs, '#')
		if want == "" {
			assert.NoError(t, err, raw)
			continue
		}
		if assert.Error(t, err, raw) {
			assert.Contains(t, err.Error(), want, raw)
		}
	}
}

func TestRenderFormats(t *testing.T) {
	at := time.Date(2024, 1, 15, 9, 30, 0, 5, time.FixedZone("CET", 3600))
	v := reflect.ValueOf(keyed{Tenant: "t1", ID: "o1", Seq: 42, Small: 7, At: at, Kind: "gold"})
	for raw, want := range map[string]string{
		"ORDER#{Seq:8}#{ID}":             "ORDER#00000042#o1",
		"N#{Seq}":                        "N#42",
		"S#{Small:5}":                    "S#00007",
		"AT#{At}":                        "AT#2024-01-15T08:30:00.000000005Z",
		"DAY#{At:2006-01-02}#{ID}":       "DAY#2024-01-15#o1",
		"HOUR#{At:2006-01-02-15}#{Kind}": "HOUR#2024-01-15-08#gold",
		"{Tenant}#{Kind}":                "t1#gold",
		"CONST":                          "CONST",
	} {
		got, err := mustTemplate(t, raw).Render(v)
		require.NoError(t, err, raw)
		assert.Equal(t, want, got, raw)
	}
}

func TestRenderRejects(t *testing.T) {
	_, err := mustTemplate(t, "N#{Seq:4}").Render(reflect.ValueOf(keyed{Seq: -1}))
	assert.ErrorContains(t, err, "negative")
	_, err = mustTemplate(t, "U#{ID}").Render(reflect.ValueOf(keyed{}))
	assert.ErrorAs(t, err, new(MissingError))
	_, err = mustTemplate(t, "U#{ID}").Render(reflect.ValueOf(keyed{ID: "bad\xffutf8"}))
	assert.ErrorContains(t, err, "UTF-8")
	_, err = mustTemplate(t, "T#{At}").Render(reflect.ValueOf(keyed{}))
	assert.ErrorAs(t, err, new(MissingError))
	// A zero integer is a value in a full key...
	got, err := mustTemplate(t, "N#{Seq}").Render(reflect.ValueOf(keyed{}))
	require.NoError(t, err)
	assert.Equal(t, "N#0", got)
}

// A number wider than its padding would render, but sort out of place
// (100000000 before 99999999): it is refused, as is a negative one.
func TestPaddingOverflowRefused(t *testing.T) {
	tpl := mustTemplate(t, "N#{Seq:8}")
	k, err := tpl.Render(reflect.ValueOf(keyed{Seq: 99999999}))
	require.NoError(t, err)
	assert.Equal(t, "N#99999999", k)
	_, err = tpl.Render(reflect.ValueOf(keyed{Seq: 100000000}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "value 100000000 has 9 digits, more than the 8 it is zero-padded to")

	_, err = mustTemplate(t, "S#{Small:4}").Render(reflect.ValueOf(keyed{Small: 65535}))
	require.Error(t, err, "unsigned values too")
	_, err = mustTemplate(t, "S#{Small}").Render(reflect.ValueOf(keyed{Small: 65535}))
	require.NoError(t, err, "no padding, no limit")
}

// Adversarial values cannot forge another key: the delimiter and the escape
// byte are escaped, and parsing gives back exactly the value.
func TestKeysCannotBeForged(t *testing.T) {
	user := mustTemplate(t, "USER#{ID}")
	order := mustTemplate(t, "USER#{Tenant}#ORDER#{ID}")
	for _, id := range []string{
		"u1#ORDER#x", "u1\\", "u1%23", "%", "%%", "#", "##", "u1#", "#u1",
		"ünïcødé#😀", "日本語", "a b\tc\n", strings.Repeat("#", 300), strings.Repeat("x", 2000),
	} {
		k, err := user.Render(reflect.ValueOf(keyed{ID: id}))
		require.NoError(t, err)
		assert.Equal(t, 1, strings.Count(k, "#"), "a value added a delimiter: %q -> %q", id, k)
		var back keyed
		require.NoError(t, user.ParseKey(k, reflect.ValueOf(&back).Elem(), nil), id)
		assert.Equal(t, id, back.ID)
		// The order key of tenant "u1" and id "x" is not the user key of
		// "u1#ORDER#x", and does not parse as a user key with that id.
		ok, err := order.Render(reflect.ValueOf(keyed{Tenant: "u1", ID: "x"}))
		require.NoError(t, err)
		assert.NotEqual(t, ok, k)
	}
	k, _ := user.Render(reflect.ValueOf(keyed{ID: "u1#ORDER#x"}))
	assert.Equal(t, "USER#u1%23ORDER%23x", k)
	var back keyed
	assert.Error(t, order.ParseKey(k, reflect.ValueOf(&back).Elem(), nil), "a user key must not parse as an order key")
}

func TestParseRejectsForeignKeys(t *testing.T) {
	tpl := mustTemplate(t, "ORDER#{Seq:8}#{ID}")
	for _, k := range []string{"", "ORDER#", "ORDER#12#", "ORDER#abc#x", "USER#00000001#x", "ORDER#00000001", "ORDER#1#x%2", "ORDER#1#x%ZZ"} {
		var v keyed
		assert.Error(t, tpl.ParseKey(k, reflect.ValueOf(&v).Elem(), nil), k)
	}
}

// A key parses only as the template would write it: rendering the parsed
// values gives the key back. Text the template never writes (an unpadded,
// signed or zero-led number, a needless or lower-case escape, invalid
// UTF-8) is no key of it.
func TestParseOnlyWhatRenders(t *testing.T) {
	for _, c := range []struct{ tpl, key string }{
		{"SEQ#{Seq:3}", "SEQ#12"},
		{"SEQ#{Seq:3}", "SEQ#0012"},
		{"SEQ#{Seq:3}", "SEQ#1234"},
		{"SEQ#{Seq}", "SEQ#012"},
		{"SEQ#{Seq}", "SEQ#+12"},
		{"SEQ#{Seq}", "SEQ#-0"},
		{"S#{Small}", "S#07"},
		{"U#{ID}", "U#%41"},
		{"U#{ID}", "U#a%2fb"},
		{"U#{ID}", "U#\xff"},
		{"AT#{At}", "AT#2024-01-02T03:04:05+00:00"},
	} {
		tpl := mustTemplate(t, c.tpl)
		var v keyed
		assert.Error(t, tpl.ParseKey(c.key, reflect.ValueOf(&v).Elem(), nil), "%q parsed as %q", c.key, c.tpl)
	}
	for _, c := range []struct{ tpl, key string }{
		{"SEQ#{Seq:3}", "SEQ#012"},
		{"SEQ#{Seq}", "SEQ#12"},
		{"SEQ#{Seq}", "SEQ#-12"},
		{"U#{ID}", "U#a%23b"},
	} {
		var v keyed
		assert.NoError(t, mustTemplate(t, c.tpl).ParseKey(c.key, reflect.ValueOf(&v).Elem(), nil), "%q as %q", c.key, c.tpl)
	}
}

// Property: for random field values, render then parse gives the values back
// (times at the layout's precision), and escaping keeps prefixes.
func TestRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tpls := []*Template{
		mustTemplate(t, "T#{Tenant}#O#{Seq:12}#{ID}"),
		mustTemplate(t, "{Kind}#{At}#{Small}"),
		mustTemplate(t, "X{ID}#{Seq}.json"),
		mustTemplate(t, "{ID}"),
	}
	alphabet := []rune("ab#%\\{}:é😀 0")
	randString := func() string {
		n := 1 + r.IntN(12)
		rs := make([]rune, n)
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(rs)
	}
	for i := 0; i < 3000; i++ {
		in := keyed{
			Tenant: randString(), ID: randString(), Kind: kindName(randString()),
			Seq: r.Int64N(1e12), Small: uint16(r.IntN(1 << 16)),
			At: time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC(),
		}
		for _, tpl := range tpls {
			k, err := tpl.Render(reflect.ValueOf(in))
			require.NoError(t, err)
			require.True(t, utf8.ValidString(k))
			var out keyed
			require.NoError(t, tpl.ParseKey(k, reflect.ValueOf(&out).Elem(), nil), "template %q key %q", tpl.Raw, k)
			for _, f := range tpl.Fields() {
				assert.Equal(t, reflect.ValueOf(in).FieldByName(f).Interface(), reflect.ValueOf(out).FieldByName(f).Interface(), "template %q field %s", tpl.Raw, f)
			}
		}
		a, b := randString(), randString()
		assert.True(t, strings.HasPrefix(Escape(a+b, '#'), Escape(a, '#')))
	}
}

func TestRenderPrefixIsPrefixSafe(t *testing.T) {
	tpl := mustTemplate(t, "ORDER#{Tenant}#{ID}")
	p, complete, err := tpl.RenderPrefix(reflect.ValueOf(keyed{Tenant: "1"}), -1)
	require.NoError(t, err)
	assert.False(t, complete)
	assert.Equal(t, "ORDER#1#", p, "the prefix must end after the delimiter, so that ORDER#1 cannot match ORDER#10")
	p, complete, _ = tpl.RenderPrefix(reflect.ValueOf(keyed{}), -1)
	assert.Equal(t, "ORDER#", p)
	assert.False(t, complete)
	p, complete, _ = tpl.RenderPrefix(reflect.ValueOf(keyed{Tenant: "1", ID: "x"}), -1)
	assert.Equal(t, "ORDER#1#x", p)
	assert.True(t, complete)
	// A zero integer is a value, in a partial key too (it was "not given",
	// so that Seq 0 could not be asked for); SortFields says where a prefix
	// stops before an integer.
	p, complete, _ = mustTemplate(t, "N#{Seq:3}#{ID}").RenderPrefix(reflect.ValueOf(keyed{}), -1)
	assert.Equal(t, "N#000#", p)
	assert.False(t, complete)
	p, complete, _ = mustTemplate(t, "N#{Seq:3}#{ID}").RenderPrefix(reflect.ValueOf(keyed{}), 0)
	assert.Equal(t, "N#", p)
	assert.False(t, complete)
}

func BenchmarkRenderKey(b *testing.B) {
	fs, _ := codec.FieldsOf(reflect.TypeFor[keyed]())
	tpl, _ := Parse("T#{Tenant}#ORDER#{Seq:10}#{ID}", fs, '#')
	v := reflect.ValueOf(keyed{Tenant: "acme", ID: "order-123", Seq: 99})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tpl.Render(v); err != nil {
			b.Fatal(err)
		}
	}
}

// With '-' as the delimiter, a negative integer must not put a delimiter
// into its value: the key would not split back into its fields.
func TestNegativeIntegerWithDashDelimiter(t *testing.T) {
	fs, err := codec.FieldsOf(reflect.TypeFor[keyed]())
	require.NoError(t, err)
	tpl, err := Parse("N-{Seq}-{ID}", fs, '-')
	require.NoError(t, err)
	in := keyed{Seq: -5, ID: "x-y"}
	k, err := tpl.Render(reflect.ValueOf(in))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(k, "-"), "a value added a delimiter: %q", k)
	var out keyed
	require.NoError(t, tpl.ParseKey(k, reflect.ValueOf(&out).Elem(), nil), k)
	assert.Equal(t, in.Seq, out.Seq)
	assert.Equal(t, in.ID, out.ID)
	assert.True(t, tpl.AdmitsPrefix(k), "a key is a prefix of itself: %q", k)
	pos, err := tpl.Render(reflect.ValueOf(keyed{Seq: 5, ID: "x"}))
	require.NoError(t, err)
	assert.Equal(t, "N-5-x", pos)
}

// Literal text must be valid UTF-8, like values: DynamoDB strings are
// UTF-8, and the SDK's JSON would store U+FFFD instead, so stored keys
// would no longer match the template.
func TestTemplateLiteralMustBeUTF8(t *testing.T) {
	fs, err := codec.FieldsOf(reflect.TypeFor[keyed]())
	require.NoError(t, err)
	_, err = Parse("USER\xff#{ID}", fs, '#')
	assert.ErrorContains(t, err, "UTF-8")
}
