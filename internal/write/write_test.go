package write

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
)

type address struct {
	City string `dynamodbav:"city"`
	Zip  string `dynamodbav:"zip,omitempty"`
}

type order struct {
	ID      string            `dynamodbav:"id"`
	Count   uint8             `dynamodbav:"count"`
	Total   int64             `dynamodbav:"total"`
	Note    string            `dynamodbav:"note,omitempty"`
	Tags    []string          `dynamodbav:"tags,stringset"`
	Lines   []string          `dynamodbav:"lines"`
	Labels  map[string]bool   `dynamodbav:"labels"`
	Address address           `dynamodbav:"addr"`
	Items   []address         `dynamodbav:"items"`
	Meta    map[string]string `dynamodbav:"meta"`
	Ptr     *int              `dynamodbav:"ptr"`
}

// entity is order's model, built by internal/model's steps.
func entity(t *testing.T) *model.Entity {
	t.Helper()
	s := &model.Schema{Name: "T", PK: "PK", SK: "SK", TypeAttr: "_type", Delim: '#', PKLimit: model.MaxPartitionKeyBytes}
	e := model.New(s, "Order", reflect.TypeFor[order]())
	spec := model.Spec{PK: "ORDER#{ID}", SK: "ORDER"}
	for _, step := range []model.Step{model.CheckName, model.ResolveFields, model.CheckAttributes, model.ParseKeys} {
		if err := step(&spec, e); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func field(t *testing.T, m *model.Entity, name string) *codec.Field {
	t.Helper()
	f, ok := m.Fields.ByGoName(name)
	if !ok {
		t.Fatalf("no field %s", name)
	}
	return f
}

func TestTopFieldAndOverlaps(t *testing.T) {
	for path, top := range map[string]string{"Status": "Status", "Address.City": "Address", "Tags[0]": "Tags", "": ""} {
		if got := TopField(path); got != top {
			t.Errorf("TopField(%q) = %q, want %q", path, got, top)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"A", "A", true}, {"A", "A.B", true}, {"A[1]", "A", true}, {"A", "AB", false}, {"A.B", "A.C", false}} {
		if got := Overlaps(c.a, c.b); got != c.want {
			t.Errorf("Overlaps(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestWalkPathFollowsGoNamesToAttributes(t *testing.T) {
	m := entity(t)
	var parts []string
	pt, err := WalkPath(m, "Items[2].City", func(attr string, index int) {
		if attr == "" {
			attr = "#" + string(rune('0'+index))
		}
		parts = append(parts, attr)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(parts, " "); got != "items #2 city" || pt.Type != reflect.TypeFor[string]() || !pt.Nested {
		t.Fatalf("parts %q, target %+v", got, pt)
	}
	// Raw attribute names: nothing to check against.
	if pt, err := WalkPath(nil, "a.b", nil); err != nil || pt.Type != nil {
		t.Fatalf("raw path: %+v, %v", pt, err)
	}
	for path, want := range map[string]string{
		"COUNT":     `did you mean Count?`,
		"id":        `"id" is the attribute name of field ID`,
		"Tags[0]":   "is stored as a set",
		"Total.X":   "is neither a struct nor a map",
		"Tags.X":    "has no parts a path can name",
		"Lines[x]":  "is not a non-negative integer",
		"Address.Q": "has no field",
		".City":     "does not start with a field name",
	} {
		if _, err := WalkPath(m, path, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("WalkPath(%q): %v, want %q", path, err, want)
		}
	}
}

func TestEncodeAtTakesWhatConvertsWithoutLoss(t *testing.T) {
	m := entity(t)
	av, err := EncodeAt(m, codec.Room{}, nil, "Count", 5, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := av.(*types.AttributeValueMemberN); !ok || n.Value != "5" {
		t.Fatalf("Count = %#v", av)
	}
	if _, err := EncodeAt(m, codec.Room{}, nil, "Count", 300, false); err == nil || !strings.Contains(err.Error(), "cannot hold 300") {
		t.Fatalf("300 into a uint8: %v", err)
	}
	if av, err := EncodeAt(m, codec.Room{}, nil, "Ptr", 7, false); err != nil || av.(*types.AttributeValueMemberN).Value != "7" {
		t.Fatalf("7 into an *int: %#v, %v", av, err)
	}
	if av, err := EncodeAt(m, codec.Room{}, nil, "Tags", "a", true); err != nil || av.(*types.AttributeValueMemberS).Value != "a" {
		t.Fatalf("an element of a set: %#v, %v", av, err)
	}
	if av, err := EncodeAt(m, codec.Room{}, nil, "Ptr", nil, false); err != nil || !av.(*types.AttributeValueMemberNULL).Value {
		t.Fatalf("nil: %#v, %v", av, err)
	}
}

func TestSetOperandMakesASetOfAnyGoShape(t *testing.T) {
	m := entity(t)
	tags := field(t, m, "Tags")
	check := func(v any, number bool) (types.AttributeValue, error) {
		av, err := EncodeAt(m, codec.Room{}, tags, "Tags", v, true)
		if err != nil {
			return nil, err
		}
		return SetOperand(m, v, tags, av, number)
	}
	av, err := check(map[string]bool{"b": true, "a": true, "c": false}, false)
	if err != nil {
		t.Fatal(err)
	}
	if ss := av.(*types.AttributeValueMemberSS).Value; !reflect.DeepEqual(ss, []string{"a", "b"}) {
		t.Fatalf("set %v", ss)
	}
	if av, err := check("x", true); err != nil || !reflect.DeepEqual(av.(*types.AttributeValueMemberSS).Value, []string{"x"}) {
		t.Fatalf("one element: %#v, %v", av, err)
	}
	if _, err := check([]string{}, false); err == nil || !strings.Contains(err.Error(), "empty set") {
		t.Fatalf("empty: %v", err)
	}
	lines := field(t, m, "Lines")
	av, _ = EncodeAt(m, codec.Room{}, lines, "Lines", []string{"x"}, true)
	if _, err := SetOperand(m, []string{"x"}, lines, av, false); err == nil || !strings.Contains(err.Error(), "stored as a list") {
		t.Fatalf("a list field: %v", err)
	}
	labels := field(t, m, "Labels")
	if _, err := SetOperand(m, "x", labels, &types.AttributeValueMemberS{Value: "x"}, true); err == nil || !strings.Contains(err.Error(), "stored as a map") {
		t.Fatalf("a map field: %v", err)
	}
}

func TestOperatorsChecks(t *testing.T) {
	m := entity(t)
	for op := range Operators {
		if Operators[op].Name == "" || len(Operators[op].Action) == 0 {
			t.Errorf("operator %d is incomplete", op)
		}
	}
	if Unknown(OpSet, "Note") || !Unknown(OpSet, "Address.City") || !Unknown(OpIncrement, "Count") {
		t.Error("Unknown")
	}
	note := field(t, m, "Note")
	// An omitempty field's zero value is removed, as Put leaves it out.
	if av, err := Operators[OpSet].Check(m, "Note", "", note, &types.AttributeValueMemberS{}); av != nil || err != nil {
		t.Fatalf("Set of an omitted zero: %#v, %v", av, err)
	}
	if av, err := Operators[OpSet].Check(m, "Address.Zip", "", field(t, m, "Address"), &types.AttributeValueMemberS{}); av != nil || err != nil {
		t.Fatalf("Set of a nested omitted zero: %#v, %v", av, err)
	}
	lines := field(t, m, "Lines")
	av, err := Operators[OpAppend].Check(m, "Lines", "x", lines, &types.AttributeValueMemberS{Value: "x"})
	if l, ok := av.(*types.AttributeValueMemberL); err != nil || !ok || len(l.Value) != 1 {
		t.Fatalf("Append of one element: %#v, %v", av, err)
	}
	if _, err := Operators[OpAppend].Check(m, "Tags", "x", field(t, m, "Tags"), &types.AttributeValueMemberS{Value: "x"}); err == nil {
		t.Fatal("Append to a set")
	}
	if _, err := Operators[OpIncrement].Check(m, "Note", "x", note, &types.AttributeValueMemberS{Value: "x"}); err == nil || !strings.Contains(err.Error(), "takes a number") {
		t.Fatalf("Increment of a string: %v", err)
	}
}

func TestOmitsZeroAndSetValue(t *testing.T) {
	m := entity(t)
	if !OmitsZero(m, "Note", "") || OmitsZero(m, "Note", "x") || OmitsZero(m, "ID", "") || !OmitsZero(m, "Address.Zip", "") || OmitsZero(m, "Items[0].Zip", "") {
		t.Fatal("OmitsZero")
	}
	ptr := field(t, m, "Ptr")
	if v := SetValue(3, ptr); v.Type() != ptr.Type || *(v.Interface().(*int)) != 3 {
		t.Fatalf("SetValue(3) of an *int: %v", v)
	}
	if v := SetValue(nil, ptr); !v.IsNil() {
		t.Fatalf("SetValue(nil): %v", v)
	}
	if v := SetValue(7, field(t, m, "Count")); v.Interface() != uint8(7) {
		t.Fatalf("SetValue(7) of a uint8: %v", v)
	}
}

// raw renders paths as themselves and values as their Go text, so that a
// condition tree can be read in a test.
type raw struct{}

func (raw) Path(_ *expr.Builder, path string) (string, error) { return path, nil }
func (raw) Value(_ *expr.Builder, _ string, v any, _ bool) (string, error) {
	return v.(*types.AttributeValueMemberN).Value, nil
}

func TestRangeCheckConditionsAndReasons(t *testing.T) {
	m := entity(t)
	count := field(t, m, "Count")
	rc, ok := RangeCheckOf(m, &Operators[OpIncrement], "Count", count, false, &types.AttributeValueMemberN{Value: "10"})
	if !ok {
		t.Fatal("no range check of a uint8")
	}
	got, err := expr.Render(rc.Cond(), raw{}, new(expr.Builder))
	if err != nil {
		t.Fatal(err)
	}
	if want := "(attribute_not_exists(Count)) OR (Count <= 245)"; got != want {
		t.Fatalf("condition %q, want %q", got, want)
	}
	reason := RangeReason([]RangeCheck{rc}, map[string]types.AttributeValue{"count": &types.AttributeValueMemberN{Value: "250"}})
	if !strings.Contains(reason, "would store 260, beyond what a uint8 holds (255)") {
		t.Fatalf("reason %q", reason)
	}
	if r := RangeReason([]RangeCheck{rc}, map[string]types.AttributeValue{"count": &types.AttributeValueMemberN{Value: "1"}}); r != "" {
		t.Fatalf("reason within range: %q", r)
	}
	if r := RangeReason([]RangeCheck{rc}, map[string]types.AttributeValue{"count": &types.AttributeValueMemberNULL{Value: true}}); !strings.Contains(r, "holds NULL") {
		t.Fatalf("reason on NULL: %q", r)
	}
	dec, _ := RangeCheckOf(m, &Operators[OpDecrement], "Count", count, false, &types.AttributeValueMemberN{Value: "3"})
	if got, _ := expr.Render(dec.Cond(), raw{}, new(expr.Builder)); got != "Count >= 3" {
		t.Fatalf("Decrement's condition %q", got)
	}
	if _, ok := RangeCheckOf(m, &Operators[OpIncrement], "Total", field(t, m, "Total"), false, &types.AttributeValueMemberN{Value: "1"}); ok {
		t.Fatal("an int64 is not range-checked")
	}
}

func TestUnknownFieldIsAnError(t *testing.T) {
	if err := UnknownField(entity(t), "Nope"); err == nil || errors.Unwrap(err) != nil || !strings.Contains(err.Error(), `entity Order has no field "Nope"`) {
		t.Fatalf("%v", err)
	}
}

func TestPathExprAndEncodeCond(t *testing.T) {
	m := entity(t)
	b := new(expr.Builder)
	p, nested, err := PathExpr(m, b, "Items[1].City")
	if err != nil || !nested {
		t.Fatalf("%q, %v, %v", p, nested, err)
	}
	top, nested, err := PathExpr(m, b, "Count")
	if err != nil || nested || top == p {
		t.Fatalf("%q, %v, %v", top, nested, err)
	}
	if _, _, err := PathExpr(m, b, "Nope"); err == nil || !strings.Contains(err.Error(), "no field") {
		t.Fatalf("unknown field: %v", err)
	}
	if _, _, err := PathExpr(nil, b, ""); err == nil {
		t.Fatal("an empty path")
	}
	av, err := EncodeCond(m, "Address.Zip", "", false)
	if err != nil || av.(*types.AttributeValueMemberS).Value != "" {
		t.Fatalf("a nested omitted zero is compared as given: %#v, %v", av, err)
	}
	if av, err := EncodeCond(nil, "raw", 3, false); err != nil || av.(*types.AttributeValueMemberN).Value != "3" {
		t.Fatalf("a raw attribute: %#v, %v", av, err)
	}
	if _, err := EncodeCond(m, "Count", "x", false); err == nil {
		t.Fatal("a string for a uint8")
	}
}
