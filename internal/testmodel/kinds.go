package testmodel

import (
	"math"
	"time"

	st "github.com/singletable/singletable"
)

// The kinds model: a table with a stream and a KEYS_ONLY index, whose
// entity Kinds holds every kind the codec stores, for decode fidelity of
// raw items (package singletable's tests) and of stream records through
// both event shapes (package stream's tests).

// Kinds holds every kind the codec stores.
type Kinds struct {
	ID       string            `dynamodbav:"id"`
	Seq      int               `dynamodbav:"seq"`
	Text     string            `dynamodbav:"text"`
	Int      int64             `dynamodbav:"int"`
	Uint     uint64            `dynamodbav:"uint"`
	Float    float64           `dynamodbav:"float"`
	Bin      []byte            `dynamodbav:"bin"`
	Flag     bool              `dynamodbav:"flag"`
	Nothing  *string           `dynamodbav:"nothing,nullempty"`
	List     []any             `dynamodbav:"list"`
	Map      map[string]int    `dynamodbav:"map"`
	Tags     []string          `dynamodbav:"tags,stringset"`
	Nums     []int             `dynamodbav:"nums,numberset"`
	Blobs    [][]byte          `dynamodbav:"blobs,binaryset"`
	Set      map[string]bool   `dynamodbav:"set,stringset"`
	Nested   KindsInner        `dynamodbav:"nested"`
	Deep     []map[string]Deep `dynamodbav:"deep"`
	At       time.Time         `dynamodbav:"at"`
	Unix     time.Time         `dynamodbav:"unix,unixtime"`
	AsString int               `dynamodbav:"asString,string"`
	Ptr      *int              `dynamodbav:"ptr"`
}

// KindsInner is a nested struct of Kinds.
type KindsInner struct {
	Name  string   `dynamodbav:"name"`
	Inner *Deep    `dynamodbav:"inner"`
	Items []string `dynamodbav:"items"`
}

// Deep is nested in Kinds at two depths.
type Deep struct {
	N float64 `dynamodbav:"n"`
	B bool    `dynamodbav:"b"`
}

// StreamNote is the kinds table's second entity.
type StreamNote struct {
	ID   string `dynamodbav:"id"`
	Body string `dynamodbav:"body"`
}

// The kinds table and its entities.
var (
	KindsTable = st.MustTable("Kinds", st.WithStream(st.StreamNewAndOldImages), st.WithGSI("GSI1", st.KeysOnly()))
	KindsE     = st.MustDefine[Kinds](KindsTable, "Kinds", st.Key("K#{ID}", "SEQ#{Seq:4}"),
		st.Index("GSI1", "TEXT#{Text}", "K#{ID}#{Seq:4}"))
	NotesE = st.MustDefine[StreamNote](KindsTable, "Note", st.Key("NOTE#{ID}", "NOTE"))
)

// KindsValue is a Kinds with every field set, delimiters in its key fields.
func KindsValue() Kinds {
	seven := 7
	return Kinds{
		ID: "a#b%c", Seq: 12, Text: "héllo # world", Int: math.MinInt64, Uint: math.MaxUint64, Float: 1.25e-130,
		Bin: []byte{0, 1, 0xff}, Flag: true, List: []any{"x", 1.25, true, nil, []any{"y"}, map[string]any{"k": "v"}},
		Map: map[string]int{"a": 1, "#": 0}, Tags: []string{"b", "a"}, Nums: []int{3, -1, 0}, Blobs: [][]byte{{1}, {2, 3}},
		Set:    map[string]bool{"p": true, "q": true},
		Nested: KindsInner{Name: "n", Inner: &Deep{N: -0.5, B: true}, Items: []string{""}},
		Deep:   []map[string]Deep{{"z": {N: 1}}, {}},
		At:     time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC), Unix: time.Unix(1700000000, 0), // unixtime decodes in time.Local, as attributevalue does
		AsString: -42, Ptr: &seven,
	}
}
