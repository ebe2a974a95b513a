package singletable

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/model"
	"github.com/singletable/singletable/internal/read"
)

// Reading an index with a multi-attribute key (native.go)
//
// The params give every partition attribute's value, and the sort fields
// left to right: equality on each partition attribute and on every sort
// attribute given but the last, which takes the pattern's condition
// (SortEquals, SortPrefix: equality on each given, PartialMatch:
// begins_with on the last; the comparisons and SortBetween on the last).
// The sort fields given are those up to the last one the params set (a
// non-zero value or a non-nil pointer): a zero number before it is the
// value 0, an absent string before it is refused, a trailing zero number
// is left out. So {Status: "OPEN"} reads status = OPEN whatever the
// number after it; a comparison applies to the zero number right after
// the last field set (priority >= 0 within OPEN, never another status);
// SortBetween's shorter bound takes its zero numbers; SortEquals takes
// every field; SortFields(n), or a pointer field, says otherwise. The values are the fields' own, typed: a number
// bound compares as a number.

// nativeCond is a read's key condition over a multi-attribute key.
type nativeCond struct {
	eq   []keyEq // the partition's attributes, then the sort equalities
	attr string  // the sort attribute the condition op applies to; "" none
	op   string  // "=", "<", "<=", ">", ">=", "begins_with" or "BETWEEN"
	a, b types.AttributeValue
}

// keyEq is one equality of a key condition.
type keyEq struct {
	attr string
	v    types.AttributeValue
}

// render writes the key condition.
func (c *nativeCond) render(b *expr.Builder) string {
	var s strings.Builder
	for i, e := range c.eq {
		if i > 0 {
			s.WriteString(" AND ")
		}
		s.WriteString(b.Name(e.attr) + " = " + b.Value(e.v))
	}
	if c.op == "" {
		return s.String()
	}
	n := b.Name(c.attr)
	s.WriteString(" AND ")
	switch c.op {
	case "begins_with":
		s.WriteString("begins_with(" + n + ", " + b.Value(c.a) + ")")
	case "BETWEEN":
		s.WriteString(n + " BETWEEN " + b.Value(c.a) + " AND " + b.Value(c.b))
	default:
		s.WriteString(n + " " + c.op + " " + b.Value(c.a))
	}
	return s.String()
}

// avText is a key value as text, for a cursor's binding: quoted, so that
// values joined stay apart.
func avText(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return strconv.Quote(v.Value)
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return "b" + base64.StdEncoding.EncodeToString(v.Value)
	}
	return ""
}

// binding fills in what a cursor of the read is bound to: the partition's
// values (Partition), the sort equalities and condition (Sort's digest),
// and every equality a start key must meet.
func (c *nativeCond) binding(npk int, b *read.Binding) {
	var part, sort []string
	for i, e := range c.eq {
		if i < npk {
			part = append(part, e.attr+"="+avText(e.v))
		} else {
			sort = append(sort, e.attr+"="+avText(e.v))
		}
		b.Equal = append(b.Equal, read.KeyValue{Attr: e.attr, Value: e.v})
	}
	b.Partition = strings.Join(part, ", ")
	if c.op != "" || len(sort) > 0 {
		b.Sort = read.SortCond{Op: "native " + c.op, A: strings.Join(sort, ", ") + "; " + c.attr + " " + avText(c.a), B: avText(c.b)}
	}
}

// native reports whether the read's index has a multi-attribute key.
func (d *readDecl) native() bool { return d.index != nil && d.index.index.Native() }

// checkNative checks a read of a multi-attribute index as declared.
func (d *readDecl) checkNative() error {
	ix := &d.index.index
	switch {
	case d.collection:
		return d.fail("index %s has a multi-attribute key: a collection reads one partition template shared by its members; declare a pattern per entity", ix.Name)
	case d.partRaw != "":
		return d.fail("index %s has a multi-attribute key (%s): its partition is the values of those attributes' fields, given by the params; leave Partition out", ix.Name, nativeKeyText(ix.PKAttrs))
	case d.sort != sortDefault && len(ix.SKAttrs) == 0:
		return d.fail("index %s has no sort key, so %s does not apply", ix.Name, sortOpNames[d.sort])
	}
	if d.sort == sortBeginsWith {
		if d.sortLit == "" {
			return d.fail("SortBeginsWith needs a non-empty prefix")
		}
		for _, mem := range d.members {
			if f := mem.ei.Native.SK[0]; model.FieldAttrType(f) != types.ScalarAttributeTypeS {
				return d.fail("SortBeginsWith applies to a string, and index %s's first sort attribute %s is field %s, a %s", ix.Name, ix.SKAttrs[0], f.GoName, f.Type)
			}
		}
	}
	return nil
}

// nativeMember is entity m's part in the read's multi-attribute index, or
// the declaration error saying why it has none.
func (d *readDecl) nativeMember(m *entityModel) (*model.EntityIndex, error) {
	for _, ei := range m.Indexes {
		if ei.Index == &d.index.index {
			return ei, nil
		}
	}
	var lacks []string
	for _, a := range d.index.index.KeyAttrs() {
		if _, ok := m.Fields.ByAttr(a); !ok {
			lacks = append(lacks, a)
		}
	}
	return nil, d.fail("entity %s is not in index %s: it stores no field as %s, of the index's multi-attribute key", m.Name, d.index.index.Name, strings.Join(lacks, ", "))
}

// keySet reports whether the caller set a sort field's value in params: a
// non-nil pointer (even to a zero), or any other non-zero value.
func keySet(fv reflect.Value) bool {
	if fv.Kind() == reflect.Pointer {
		return !fv.IsNil()
	}
	return !fv.IsZero()
}

// keyGiven reports whether a key field's value in params is a value: not
// absent (a nil pointer, an empty string or binary, a zero time); a plain
// number always is (0 is a number).
func keyGiven(f *codec.Field, fv reflect.Value) bool {
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			return false
		}
		fv = fv.Elem()
	}
	if model.FieldAttrType(f) == types.ScalarAttributeTypeN && fv.Kind() != reflect.Struct {
		return true
	}
	return !fv.IsZero()
}

// nativeCond renders the key condition of a read of a multi-attribute
// index from params (and a SortBetween's upper bound): every partition
// attribute's value, and the sort condition on the sort fields given.
// Bad params are an *InputError or *KeyError before anything is sent.
func (d *readDecl) nativeCond(op string, mem *readMember, params, upper reflect.Value, s *settings) (string, skCond, error) {
	m, ei := mem.m, mem.ei
	ix := ei.Index
	fail := func(format string, args ...any) (string, skCond, error) {
		return "", skCond{}, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	encode := func(f *codec.Field, attr string, v reflect.Value) (types.AttributeValue, error) {
		av, ok, err := m.Plan.EncodeFieldValue(f, v.FieldByIndex(f.Index))
		if err != nil {
			return nil, &KeyError{Entity: m.Name, Attr: attr, Template: "{" + f.GoName + "}", Field: f.GoName, Reason: err.Error()}
		}
		if !ok || model.AbsentKeyValue(av) {
			return nil, &KeyError{Entity: m.Name, Attr: attr, Template: "{" + f.GoName + "}", Field: f.GoName,
				Reason: "the value is empty; the read needs one (an item with an empty value is not in the index)"}
		}
		limit := maxSortKeyBytes
		if slices.Contains(ix.PKAttrs, attr) {
			limit = maxPartitionKeyBytes
		}
		if err := m.CheckFieldKey(ix, f.GoName, attr, "{"+f.GoName+"}", av, limit); err != nil {
			return nil, err
		}
		return av, nil
	}
	c := &nativeCond{}
	for i, f := range ei.Native.PK {
		if !keyGiven(f, params.FieldByIndex(f.Index)) {
			return "", skCond{}, &KeyError{Entity: m.Name, Attr: ix.PKAttrs[i], Template: "{" + f.GoName + "}", Field: f.GoName,
				Reason: "the value is empty; the read needs one (an item with an empty value is not in the index)"}
		}
		av, err := encode(f, ix.PKAttrs[i], params)
		if err != nil {
			return "", skCond{}, err
		}
		c.eq = append(c.eq, keyEq{ix.PKAttrs[i], av})
	}
	// given counts the sort fields v sets: up to the last one set (a
	// non-zero value, or a non-nil pointer). A zero number before it is
	// the value 0; any other absent value before it is a gap, refused,
	// never dropped. A trailing zero number is not set: SortFields(n), or
	// a pointer field, says it is.
	given := func(v reflect.Value, what string) (int, error) {
		if s.read.hasSortFields {
			if s.read.sortFields > len(ei.Native.SK) {
				return 0, &InputError{Op: op, Reason: fmt.Sprintf("SortFields(%d): index %s has %d sort attributes", s.read.sortFields, ix.Name, len(ei.Native.SK))}
			}
			return s.read.sortFields, nil
		}
		n := 0
		for i, f := range ei.Native.SK {
			if keySet(v.FieldByIndex(f.Index)) {
				n = i + 1
			}
		}
		for i, f := range ei.Native.SK[:max(n-1, 0)] {
			if !keyGiven(f, v.FieldByIndex(f.Index)) {
				return 0, &InputError{Op: op, Reason: fmt.Sprintf("%s give sort field %s but not %s before it: index %s's sort attributes are matched left to right (equality on each, the condition on the last given)",
					what, ei.Native.SK[n-1].GoName, ei.Native.SK[i].GoName, ix.Name)}
			}
		}
		return n, nil
	}
	// extend widens n, the sort fields v sets, by the next one when a
	// comparison applies there: a zero plain number is the only value
	// meant ({Role: "agent"} with SortGreaterOrEqual reads level >= 0
	// within the role; SortFields(1) compares roles).
	extend := func(n int, v reflect.Value) int {
		if n < len(ei.Native.SK) && !s.read.hasSortFields {
			if f := ei.Native.SK[n]; keyGiven(f, v.FieldByIndex(f.Index)) {
				return n + 1
			}
		}
		return n
	}
	n := 0
	switch d.sort {
	case sortDefault, sortBeginsWith:
	case sortEquals:
		// Every sort field: a zero number is the value 0.
		for _, f := range ei.Native.SK {
			if !keyGiven(f, params.FieldByIndex(f.Index)) {
				return fail("SortEquals needs every sort field of index %s: %s is empty", ix.Name, f.GoName)
			}
		}
		n = len(ei.Native.SK)
	default:
		var err error
		if n, err = given(params, "the params"); err != nil {
			return "", skCond{}, err
		}
		if d.sort != sortPrefix && d.sort != sortBetween {
			n = extend(n, params)
		}
	}
	var err error
	sortEq := func(v reflect.Value, k int) error {
		for i := 0; i < k; i++ {
			av, err := encode(ei.Native.SK[i], ix.SKAttrs[i], v)
			if err != nil {
				return err
			}
			c.eq = append(c.eq, keyEq{ix.SKAttrs[i], av})
		}
		return nil
	}
	last := func(v reflect.Value, k int) (types.AttributeValue, error) {
		c.attr = ix.SKAttrs[k-1]
		return encode(ei.Native.SK[k-1], c.attr, v)
	}
	switch d.sort {
	case sortDefault:
	case sortBeginsWith:
		c.attr, c.op, c.a = ix.SKAttrs[0], "begins_with", expr.S(d.sortLit)
	case sortEquals:
		if err := sortEq(params, n); err != nil {
			return "", skCond{}, err
		}
	case sortPrefix:
		if s.read.partial && s.read.timePrec != 0 {
			return fail("%s applies to a time in a key template; index %s's sort attributes are fields' own values (use SortBetween for a period)", partialName(s.read.timePrec), ix.Name)
		}
		if !s.read.partial || n == 0 {
			if err := sortEq(params, n); err != nil {
				return "", skCond{}, err
			}
			break
		}
		if f := ei.Native.SK[n-1]; model.FieldAttrType(f) != types.ScalarAttributeTypeS {
			return fail("PartialMatch: the last sort field given, %s, is a %s; begins_with applies to a string", f.GoName, f.Type)
		}
		if err := sortEq(params, n-1); err != nil {
			return "", skCond{}, err
		}
		if c.a, err = last(params, n); err != nil {
			return "", skCond{}, err
		}
		c.op = "begins_with"
	case sortBetween:
		hn, err := given(upper, "the upper bound's params")
		if err != nil {
			return "", skCond{}, err
		}
		// The bounds range over the sort fields either sets: a zero
		// number where the other bound sets one is the value 0 (BETWEEN 0
		// AND 9); an absent string there is refused.
		ln := n
		// Neither bound sets one: a zero first number is the one meant.
		if n = max(ln, hn); n == 0 {
			n = extend(0, params)
		}
		for _, b := range [2]reflect.Value{params, upper} {
			for _, f := range ei.Native.SK[:n] {
				if !keyGiven(f, b.FieldByIndex(f.Index)) {
					return fail("SortBetween: both bounds give the same sort fields, at least one (the lower sets %d, the upper %d; %s is empty in one)", ln, hn, f.GoName)
				}
			}
		}
		if n == 0 {
			return fail("SortBetween: both bounds give the same sort fields, at least one (neither sets one)")
		}
		if err := sortEq(params, n-1); err != nil {
			return "", skCond{}, err
		}
		for i := 0; i < n-1; i++ {
			hv, err := encode(ei.Native.SK[i], ix.SKAttrs[i], upper)
			if err != nil {
				return "", skCond{}, err
			}
			if !codec.Equal(hv, c.eq[len(ei.Native.PK)+i].v) {
				return fail("SortBetween: the bounds differ in sort field %s, which comes before the last given (%s): only the last one ranges", ei.Native.SK[i].GoName, ei.Native.SK[n-1].GoName)
			}
		}
		if c.a, err = last(params, n); err != nil {
			return "", skCond{}, err
		}
		if c.b, err = encode(ei.Native.SK[n-1], c.attr, upper); err != nil {
			return "", skCond{}, err
		}
		if cmp, ok := codec.Compare(c.a, c.b); ok && cmp > 0 {
			return fail("SortBetween: the lower bound %s is above the upper bound %s", avText(c.a), avText(c.b))
		}
		c.op = "BETWEEN"
	default: // the comparisons
		if n == 0 {
			return fail("%s needs a value for the sort field %s", sortOpNames[d.sort], ei.Native.SK[0].GoName)
		}
		if err := sortEq(params, n-1); err != nil {
			return "", skCond{}, err
		}
		if c.a, err = last(params, n); err != nil {
			return "", skCond{}, err
		}
		c.op = map[sortOp]string{sortLT: "<", sortLE: "<=", sortGT: ">", sortGE: ">="}[d.sort]
	}
	parts := make([]string, len(ei.Native.PK))
	for i, e := range c.eq[:len(ei.Native.PK)] {
		parts[i] = e.attr + "=" + avText(e.v)
	}
	return strings.Join(parts, ", "), skCond{nat: c}, nil
}

// describeNative writes the key condition of a read of a multi-attribute
// index, for the sheet.
func (d *readDecl) describeNative() string {
	ix := &d.index.index
	var parts []string
	for _, a := range ix.PKAttrs {
		parts = append(parts, a+" = {"+a+"}")
	}
	s := strings.Join(parts, " AND ")
	sk := nativeKeyText(ix.SKAttrs)
	switch d.sort {
	case sortDefault:
		return s
	case sortEquals:
		for _, a := range ix.SKAttrs {
			s += " AND " + a + " = {" + a + "}"
		}
		return s
	case sortPrefix:
		return s + " AND = on the sort attributes given (" + sk + ", left to right)"
	case sortBeginsWith:
		return s + fmt.Sprintf(" AND begins_with(%s, %q)", ix.SKAttrs[0], d.sortLit)
	case sortBetween:
		return s + " AND = on the sort attributes given (" + sk + ") but the last, BETWEEN on the last"
	}
	op := map[sortOp]string{sortLT: "<", sortLE: "<=", sortGT: ">", sortGE: ">="}[d.sort]
	return s + " AND = on the sort attributes given (" + sk + ") but the last, " + op + " on the last"
}
