package model

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// An item's key attributes (its table key, the type attribute and the key
// of every index it belongs to) are rendered together: the key strings
// into one buffer on the stack, copied out as one string that each key is
// a substring of, and their attribute values taken from one slice. An
// order with two GSI keys costs two allocations instead of thirteen.

// keySpan is one rendered key: attr's value is the bytes start:end of the
// buffer.
type keySpan struct {
	attr       string
	start, end int
}

// ItemFacts are what transactions and batches need to know of an encoded
// item or key, worked out while encoding it rather than read back from the
// map.
type ItemFacts struct {
	Size     int    // the item's size as DynamoDB counts it (from AddKeys: what it added)
	KeyBytes int    // itemSize of its table key attributes
	ID       ItemID // its table key's values
	KeyText  int    // bytes of key text AddKeysIn rendered
}

// AddKeys renders the primary key of struct value v into dst and, with
// full, the entity type and the key of every index v belongs to (see
// IndexKey). The facts' size is what they add to the item's itemSize. The
// attribute values are room's when it has room for them (a caller that
// allocates them with something else), else allocated together.
func (e *Entity) AddKeys(dst map[string]types.AttributeValue, v reflect.Value, full bool, room []types.AttributeValueMemberS) (facts ItemFacts, err error) {
	return e.AddKeysIn(dst, v, full, room, nil)
}

// AddKeysIn is AddKeys with the keys' text copied into text when its
// capacity holds it (memory its caller allocated with something else, see
// codec.Plan.EncodeItem, which nothing writes again), else into a string
// of its own.
func (e *Entity) AddKeysIn(dst map[string]types.AttributeValue, v reflect.Value, full bool, room []types.AttributeValueMemberS, text []byte) (facts ItemFacts, err error) {
	// The buffer and the spans stay on the stack as long as they are only
	// appended to and passed by value (a helper taking them by pointer
	// would move them to the heap); larger keys grow them onto the heap.
	if full && v.CanAddr() {
		if fk := e.flat(); fk != nil {
			if facts, ok := e.addKeysFlat(fk, dst, v.Addr().UnsafePointer(), room, text); ok {
				return facts, nil
			}
		}
	}
	var bufArray [256]byte
	var spanArray [8]keySpan
	buf, spans := bufArray[:0], spanArray[:0]
	s := e.Schema
	if e.Shard != nil {
		if v, err = e.PlaceShard(v); err != nil {
			return facts, err
		}
	}

	start := len(buf)
	buf, _, err = e.appendKey(buf, e.PK, s.PK, s.PKLimit, v, nil)
	if err != nil {
		return facts, err
	}
	if e.PKMayBeReserved && IsGuardKey(buf[start:], s.Delim) {
		return facts, &KeyError{Entity: e.Name, Attr: s.PK, Template: e.PK.Raw,
			Reason: fmt.Sprintf("the key %q starts with %q, which is reserved for unique-value guard items", string(buf[start:]), GuardType+string(s.Delim))}
	}
	spans = append(spans, keySpan{s.PK, start, len(buf)})
	if e.SK != nil {
		start = len(buf)
		if buf, _, err = e.appendKey(buf, e.SK, s.SK, MaxSortKeyBytes, v, nil); err != nil {
			return facts, err
		}
		spans = append(spans, keySpan{s.SK, start, len(buf)})
	}

	for i := 0; full && i < len(e.PartialIndexes); i++ {
		removed, err := e.IndexFieldKeys(e.PartialIndexes[i], dst)
		if err != nil {
			return facts, err
		}
		facts.Size -= removed
	}
	for i := 0; full && i < len(e.Indexes); i++ {
		ei := e.Indexes[i]
		if !ei.Writes() { // keys the item has anyway: nothing to write
			removed, err := e.IndexFieldKeys(ei, dst)
			if err != nil {
				return facts, err
			}
			facts.Size -= removed
			continue
		}
		if ei.When != nil && !ei.When(v) {
			continue
		}
		keyStart, keySpans := len(buf), len(spans)
		// This index's own: an earlier index's missing key (its error
		// set) says nothing of this one's.
		var missing bool
		var keyErr error
		if ei.PKFrom == KeyOwn {
			buf, missing, keyErr = e.appendKey(buf, ei.PK, ei.Index.PK, MaxPartitionKeyBytes, v, nil)
			if keyErr == nil {
				spans = append(spans, keySpan{ei.Index.PK, keyStart, len(buf)})
			}
		}
		if keyErr == nil && ei.SK != nil && ei.SKFrom == KeyOwn {
			start = len(buf)
			buf, missing, keyErr = e.appendKey(buf, ei.SK, ei.Index.SK, MaxSortKeyBytes, v, nil)
			spans = append(spans, keySpan{ei.Index.SK, start, len(buf)})
		}
		switch {
		case missing: // a key field is empty: the item is not in the index
			buf, spans = buf[:keyStart], spans[:keySpans]
		case keyErr != nil:
			return facts, keyErr
		}
	}

	var str string
	if facts.KeyText = len(buf); len(buf) > 0 && cap(text) >= len(buf) {
		// Safe: the bytes are text's, and written here only.
		text = append(text[:0], buf...)
		str = unsafe.String(unsafe.SliceData(text), len(text))
	} else {
		str = string(buf)
	}
	n := len(spans)
	full = full && !s.TypeOmit
	if full {
		n++
	}
	values := keyValues(room, n)
	for i, sp := range spans {
		values[i].Value = str[sp.start:sp.end]
		dst[sp.attr] = &values[i]
		facts.Size += len(sp.attr) + sp.end - sp.start
	}
	e.keyFacts(dst, &facts, values, full)
	return facts, nil
}

// keyValues returns n key values: room's when it has them.
func keyValues(room []types.AttributeValueMemberS, n int) []types.AttributeValueMemberS {
	if cap(room) >= n {
		return room[:n]
	}
	return make([]types.AttributeValueMemberS, n)
}

// keyFacts completes the facts of an item whose key values are values,
// the table key's first (the partition key, then the sort key), and, when
// typed, the type attribute's last, which it sets in dst.
func (e *Entity) keyFacts(dst map[string]types.AttributeValue, facts *ItemFacts, values []types.AttributeValueMemberS, typed bool) {
	s := e.Schema
	facts.ID.PK, facts.KeyBytes = values[0].Value, len(s.PK)+len(values[0].Value)
	if e.SK != nil {
		facts.ID.SK = values[1].Value
		facts.KeyBytes += len(s.SK) + len(values[1].Value)
	}
	if typed {
		n := len(values)
		values[n-1].Value = e.Name
		dst[s.TypeAttr] = &values[n-1]
		facts.Size += len(s.TypeAttr) + len(e.Name)
	}
}

// appendKey appends the key tpl renders from v (or from the values of its
// placeholders, vals, when not nil), for attribute attr, to buf.
// On failure buf comes back as it was, with a *KeyError; missing reports
// that the failure is an empty key field (an error for a table key; for an
// index key, the item is not in the index).
func (e *Entity) appendKey(buf []byte, tpl *keys.Template, attr string, limit int, v reflect.Value, vals []reflect.Value) (out []byte, missing bool, err error) {
	start := len(buf)
	if vals != nil {
		out, err = tpl.AppendKeyFrom(buf, vals)
	} else {
		out, err = tpl.AppendKey(buf, v)
	}
	if err != nil {
		return buf[:start], errors.As(err, new(keys.MissingError)), e.TemplateKeyError(tpl, attr, err)
	}
	// The comparison first: CheckKeySize builds its error in place, too
	// big a frame to inline, and a call for every key attribute cost
	// about 2 % of bench/'s Put.
	if n := len(out) - start; n > limit {
		return buf[:start], false, e.CheckKeySize(attr, tpl.Raw, "", n, limit)
	}
	return out, false, nil
}

// CheckKeySize refuses a key of n bytes over the service's limit for its
// attribute, naming what made it: a template, or a unique field's guard.
func (e *Entity) CheckKeySize(attr, template, field string, n, limit int) error {
	if n <= limit {
		return nil
	}
	what := "the key"
	if field != "" {
		what = "the key of the unique-value guard item"
	}
	return &KeyError{Entity: e.Name, Attr: attr, Template: template, Field: field,
		Reason: fmt.Sprintf("%s is %d bytes; DynamoDB allows %d", what, n, limit)}
}

// key renders the primary key attributes of struct value v.
func (e *Entity) Key(v reflect.Value) (map[string]types.AttributeValue, error) {
	key, _, err := e.KeyFacts(v, nil)
	return key, err
}

// KeyFacts renders the primary key attributes of struct value v, with the
// key's facts (its ItemID and size); their values are room's when it has
// room for them (see AddKeys).
func (e *Entity) KeyFacts(v reflect.Value, room []types.AttributeValueMemberS) (map[string]types.AttributeValue, ItemFacts, error) {
	key := make(map[string]types.AttributeValue, 2)
	facts, err := e.AddKeys(key, v, false, room)
	if err != nil {
		return nil, facts, err
	}
	return key, facts, nil
}

// RenderTableKey renders a table key: every field must have a value.
func (e *Entity) RenderTableKey(tpl *keys.Template, attr string, limit int, v reflect.Value) (string, error) {
	s, err := tpl.Render(v)
	if err != nil {
		return "", e.TemplateKeyError(tpl, attr, err)
	}
	if len(s) > limit {
		return "", &KeyError{Entity: e.Name, Attr: attr, Template: tpl.Raw,
			Reason: fmt.Sprintf("the key is %d bytes; DynamoDB allows %d", len(s), limit)}
	}
	return s, nil
}

func (e *Entity) TemplateKeyError(tpl *keys.Template, attr string, err error) error {
	var missing keys.MissingError
	var fe *keys.FieldError
	switch {
	case errors.As(err, &missing):
		return &KeyError{Entity: e.Name, Attr: attr, Template: tpl.Raw, Field: missing.Field,
			Reason: "the value is empty; every field of a table key needs one"}
	case errors.As(err, &fe):
		return &KeyError{Entity: e.Name, Attr: attr, Template: tpl.Raw, Field: fe.Field, Reason: fe.Reason}
	default:
		return &KeyError{Entity: e.Name, Attr: attr, Template: tpl.Raw, Reason: err.Error()}
	}
}

// KeyFieldError is the *KeyError of field goName when err says its value
// is not valid UTF-8 and a key (the table's or an index's) reads the field,
// else nil: one rule for key fields on every path, as rendering a key (a
// Get's, a Query's) says, even where the field's value is encoded first.
func (e *Entity) KeyFieldError(goName string, err error) *KeyError {
	if !errors.Is(err, codec.ErrInvalidUTF8) {
		return nil
	}
	ke := &KeyError{Entity: e.Name, Field: goName, Reason: "value is not valid UTF-8"}
	switch {
	case e.PK.Uses(goName):
		ke.Attr, ke.Template = e.Schema.PK, e.PK.Raw
	case e.SK != nil && e.SK.Uses(goName):
		ke.Attr, ke.Template = e.Schema.SK, e.SK.Raw
	default:
		if ei, _, ok := e.IndexOfField(goName); ok && ei.Native != nil {
			ke.Attr, _, _, _ = ei.nativeAttr(goName)
			ke.Template = "{" + goName + "}"
			return ke
		}
		for _, ei := range e.Indexes {
			if ei.PK.Uses(goName) || ei.SK != nil && ei.SK.Uses(goName) {
				attr, tpl, _ := ei.FieldKey(!ei.PK.Uses(goName))
				ke.Attr, ke.Template = attr, tpl.Raw
				return ke
			}
		}
		return nil
	}
	return ke
}

// IndexKey renders an entity's key for one GSI. ok is false when the item
// belongs outside the index: a key field is empty, or the index's When
// condition does not hold.
func (e *Entity) IndexKey(ei *EntityIndex, v reflect.Value) (pk, sk string, ok bool, err error) {
	if e.Shard != nil {
		if v, err = e.PlaceShard(v); err != nil {
			return "", "", false, err
		}
	}
	if ei.When != nil && !ei.When(v) {
		return "", "", false, nil
	}
	return e.renderIndexKey(ei, v, nil, nil)
}

// IndexKeyFrom is IndexKey of an index without a When condition, on an
// entity without shards, from the values of the placeholders of its
// partition key (pkVals) and sort key (skVals); see
// keys.Template.AppendKeyFrom.
func (e *Entity) IndexKeyFrom(ei *EntityIndex, pkVals, skVals []reflect.Value) (pk, sk string, ok bool, err error) {
	return e.renderIndexKey(ei, reflect.Value{}, pkVals, skVals)
}

// renderIndexKey renders index ei's key from struct value v, or from the
// values of its placeholders when they are given (see appendKey).
func (e *Entity) renderIndexKey(ei *EntityIndex, v reflect.Value, pkVals, skVals []reflect.Value) (pk, sk string, ok bool, err error) {
	// Both keys into one buffer on the stack, copied out as one string.
	var bufArray [256]byte
	buf, missing, err := e.appendKey(bufArray[:0], ei.PK, ei.Index.PK, MaxPartitionKeyBytes, v, pkVals)
	split := len(buf)
	if err == nil && ei.SK != nil {
		buf, missing, err = e.appendKey(buf, ei.SK, ei.Index.SK, MaxSortKeyBytes, v, skVals)
	}
	switch {
	case missing: // a key field is empty: the item is not in the index
		return "", "", false, nil
	case err != nil:
		return "", "", false, err
	}
	text := string(buf)
	pk, sk = text[:split], text[split:]
	return pk, sk, true, nil
}

// AbsentKeyValue reports whether av, stored under an index key attribute,
// must be left out instead: DynamoDB refuses an empty string or binary, and
// any non-key type (NULL), in an index key attribute. The item is then not
// in the index, as for an empty value in a rendered key.
func AbsentKeyValue(av types.AttributeValue) bool {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return v.Value == ""
	case *types.AttributeValueMemberB:
		return len(v.Value) == 0
	case *types.AttributeValueMemberN:
		return false
	}
	return true
}

// indexFieldKeys checks the field attributes index ei is keyed on, as the
// item holds them: a value DynamoDB would refuse in an index key for its
// type (AbsentKeyValue) is removed, the item then not in the index, and
// the bytes removed from the item's size returned; a value too long for
// the key it is, which DynamoDB would refuse, is a *KeyError.
func (e *Entity) IndexFieldKeys(ei *EntityIndex, item map[string]types.AttributeValue) (removed int, err error) {
	if ei.Native != nil {
		return e.nativeFieldKeys(ei, item)
	}
	for _, sort := range [2]bool{false, true} {
		from := ei.PKFrom
		if sort {
			from = ei.SKFrom
		}
		if from != KeyField {
			continue
		}
		attr, tpl, limit := ei.FieldKey(sort)
		n, err := e.fieldKeyValue(ei.Index, item, tpl.Lead().Field.GoName, attr, tpl.Raw, limit)
		if err != nil {
			return 0, err
		}
		removed += n
	}
	return removed, nil
}

// fieldKeyValue is IndexFieldKeys for one key attribute, attr, which holds
// field goName's value: removed is the bytes an absent value took out.
func (e *Entity) fieldKeyValue(ix *Index, item map[string]types.AttributeValue, goName, attr, template string, limit int) (removed int, err error) {
	av, ok := item[attr]
	switch {
	case !ok:
		return 0, nil
	case AbsentKeyValue(av):
		delete(item, attr)
		return len(attr) + codec.Size(av), nil
	}
	return 0, e.CheckFieldKey(ix, goName, attr, template, av, limit)
}

// CheckFieldKey refuses the value of field goName, stored under attr, a
// key attribute of index ix, when it is longer than that key's limit.
func (e *Entity) CheckFieldKey(ix *Index, goName, attr, template string, av types.AttributeValue, limit int) error {
	n := 0
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		n = len(v.Value)
	case *types.AttributeValueMemberB:
		n = len(v.Value)
	}
	if ix.Native() {
		// The caller may have named the index's first attributes
		// (FieldKey): the field's own attribute is its key here. Looked
		// up only past the lower of the two limits, which every value of
		// a Put passes without a lookup or an allocation.
		if n <= min(MaxPartitionKeyBytes, MaxSortKeyBytes) {
			return nil
		}
		if ei, _, ok := e.IndexOfField(goName); ok && ei.Index == ix {
			attr, _, limit, _ = ei.nativeAttr(goName)
			template = "{" + goName + "}"
		}
	}
	if n <= limit {
		return nil
	}
	return &KeyError{Entity: e.Name, Attr: attr, Template: template, Field: goName,
		Reason: fmt.Sprintf("the value is %d bytes; DynamoDB allows %d in a key of index %s", n, limit, ix.Name)}
}

// GuardType is the type attribute of unique-value guard items; no entity
// may use it, so a guard never decodes as an entity.
const GuardType = "_unique"

// CheckGuardNamespace refuses an entity whose items could be taken for
// guard items: its name, or a partition template that starts in their
// namespace. A Define step, before the managed fields are resolved.
func CheckGuardNamespace(_ *Spec, e *Entity) *Error {
	fail := func(reason string, args ...any) *Error {
		return &Error{Table: e.Schema.Name, Entity: e.Name, Reason: fmt.Sprintf(reason, args...)}
	}
	if e.Name == GuardType {
		return fail("the entity name %q is reserved for unique-value guard items", GuardType)
	}
	reserved := GuardType + string(e.Schema.Delim)
	p := e.PK.LiteralPrefix()
	if strings.HasPrefix(p, reserved) {
		return fail("the partition template %q starts with %q, which is reserved for unique-value guard items", e.PK.Raw, reserved)
	}
	// A template that starts with a placeholder (or with part of the
	// reserved prefix) could still render it from a value: each such key
	// is checked as it is rendered (AddKeys).
	e.PKMayBeReserved = strings.HasPrefix(reserved, p)
	return nil
}

// IsGuardKey reports whether a rendered partition key is in the namespace
// of guard items: "_unique" and the delimiter.
func IsGuardKey(key []byte, delim byte) bool {
	n := len(GuardType)
	return len(key) > n && string(key[:n]) == GuardType && key[n] == delim
}

// ItemID identifies an item of a table by the values of its key
// attributes. Transactions, batches and FetchFull compare ItemIDs to find
// the same item twice and to match the keys DynamoDB returns unprocessed:
// a small struct as a map key costs no allocation, where formatKey builds
// (and sorts) a string per item. formatKey stays for messages.
type ItemID struct{ PK, SK string }

// CheckIndexValue refuses v as field goName's value where an index key the
// entity writes from a template renders it (its shape, a time's year, a
// padding width, UTF-8), as rendering that key would: Update checks a
// value it sets before it reads the other fields the key needs, so that
// no read is sent for an update that must fail.
func (e *Entity) CheckIndexValue(goName string, v reflect.Value) error {
	var buf [64]byte
	for _, ei := range e.Indexes {
		for _, part := range [2]struct {
			tpl  *keys.Template
			from KeySource
			attr string
		}{{ei.PK, ei.PKFrom, ei.Index.PK}, {ei.SK, ei.SKFrom, ei.Index.SK}} {
			if part.tpl == nil || part.from != KeyOwn {
				continue
			}
			for _, ph := range part.tpl.Placeholders() {
				if ph.Field.GoName != goName {
					continue
				}
				if _, _, err := ph.AppendValue(buf[:0], v, part.tpl.Delim); err != nil {
					return e.TemplateKeyError(part.tpl, part.attr, err)
				}
			}
		}
	}
	return nil
}
