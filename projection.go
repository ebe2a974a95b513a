package singletable

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Projections
//
// A read returns what the index holds. A KEYS_ONLY index carries the table
// and index keys, an INCLUDE index those plus the attributes it names, and
// a read with the Project option the fields asked for. Such results are
// decoded with the fields recoverable from the keys: every field the
// entity's table and index key templates name is parsed back from the key
// attributes, so a membership read through an inverted KEYS_ONLY index
// still carries both of its IDs. A key parses only as its own template (a
// value never holds the raw delimiter), and a field several keys give is
// taken from the most precise: see docs/rules.md. FetchFull reads the whole items instead,
// with one BatchGetItem per page (per 100 items).

// fetchSpec is a FetchFull read's batch get.
type fetchSpec struct {
	consistent bool
	attrs      []string // what to read: nil for whole items
}

// keyTemplates lists the member's key templates with their attributes: the
// table's, then the index's.
func (mem *readMember) keyTemplates() []struct {
	tpl  *keys.Template
	attr string
} {
	type kt = struct {
		tpl  *keys.Template
		attr string
	}
	t := mem.m.table
	out := []kt{{mem.m.PK, t.schema.PK}}
	if mem.m.SK != nil {
		out = append(out, kt{mem.m.SK, t.schema.SK})
	}
	// Only the index's own keys: the table's are above, and a field's own
	// attribute is decoded as the field.
	if mem.ei != nil {
		if mem.ei.PKFrom == model.KeyOwn {
			out = append(out, kt{mem.ei.PK, mem.ei.Index.PK})
		}
		if mem.ei.SK != nil && mem.ei.SKFrom == model.KeyOwn {
			out = append(out, kt{mem.ei.SK, mem.ei.Index.SK})
		}
	}
	return out
}

// fromKeys reports whether the field can be parsed back from the keys a
// read of this member returns.
func (mem *readMember) fromKeys(field string) bool {
	for _, k := range mem.keyTemplates() {
		if k.tpl.Uses(field) {
			return true
		}
	}
	return false
}

// decode decodes an item of the member into v (an addressable struct
// value). With parseKeys, the fields written in the key templates are
// parsed from the keys first (see keySkips), and the attributes the item
// carries are laid over them. An untyped item of a table read by its keys
// is decoded so whatever the read when it lacks the attribute of a key
// field: written by other code, it may keep such a field only in its keys.
func (mem *readMember) decode(op string, item map[string]types.AttributeValue, v reflect.Value, parseKeys bool) error {
	if !parseKeys && mem.m.table.untyped(item) && mem.lacksKeyAttr(item) {
		parseKeys = true
	}
	if h := mem.m.revision(); h != nil && !h.isCurrent(item) && (!parseKeys || mem.revisioned(h, item)) {
		if got, ok := item[mem.m.table.schema.TypeAttr].(*types.AttributeValueMemberS); !ok || got.Value == mem.m.Name {
			return h.read(mem.m, item, v, func(item map[string]types.AttributeValue) error {
				v.SetZero()
				return mem.decodeCurrent(op, item, v, parseKeys)
			})
		}
	}
	return mem.decodeCurrent(op, item, v, parseKeys)
}

// lacksKeyAttr reports whether item lacks the attribute of a field the
// member's key templates name (a key-only field has none): the other code
// may keep such a field only in its keys, to be parsed back from them. An
// item that has them all decodes from its attributes alone, as fast as a
// typed item.
func (mem *readMember) lacksKeyAttr(item map[string]types.AttributeValue) bool {
	tpls := [4]*keys.Template{mem.m.PK, mem.m.SK}
	if mem.ei != nil {
		if mem.ei.PKFrom == model.KeyOwn {
			tpls[2] = mem.ei.PK
		}
		if mem.ei.SKFrom == model.KeyOwn {
			tpls[3] = mem.ei.SK
		}
	}
	for _, tpl := range tpls {
		if tpl == nil {
			continue
		}
		for _, ph := range tpl.Placeholders() {
			if ph.KeyOnly || ph.Field == nil {
				continue
			}
			if _, ok := item[ph.Field.Attr]; !ok {
				return true
			}
		}
	}
	return false
}

// revisioned reports whether item tells its revision: an index that does
// not project every attribute may leave the revision out, and a partial
// item cannot be upgraded; it is decoded as it is. (A read that needs no
// key parsing has whole items, FetchFull's of such an index too: decode
// does not ask.)
func (mem *readMember) revisioned(h *revisionField, item map[string]types.AttributeValue) bool {
	if mem.ei == nil || mem.ei.Index.Projection == types.ProjectionTypeAll || mem.ei.Index.Projection == "" {
		return true
	}
	_, ok := item[h.attr]
	return ok
}

// decodeCurrent is decode of an item at the entity's current revision.
func (mem *readMember) decodeCurrent(op string, item map[string]types.AttributeValue, v reflect.Value, parseKeys bool) error {
	m := mem.m
	if err := mem.decodeKeys(op, item, v, parseKeys); err != nil {
		return err
	}
	if parseKeys { // the key-only fields are parsed back with the others
		if err := m.Plan.Decode(item, v); err != nil {
			return m.decodeError(op, item, err)
		}
		return nil
	}
	return m.decodeFields(op, item, v)
}

// decodeKeys is decode's first half: the type attribute's check and, with
// parseKeys, the fields parsed from the keys. It alone says whether an
// item is the member's (parsesKeys): a wrong attribute is a decode error,
// not another entity.
func (mem *readMember) decodeKeys(op string, item map[string]types.AttributeValue, v reflect.Value, parseKeys bool) error {
	m := mem.m
	if got, ok := item[m.table.schema.TypeAttr].(*types.AttributeValueMemberS); ok && got.Value != m.Name {
		return &EntityMismatchError{Want: m.Name, Got: got.Value, Key: m.keyOfItem(item)}
	}
	if parseKeys {
		kts := mem.keyTemplates()
		var present [4]bool
		all := true
		for i, k := range kts {
			_, present[i] = item[k.attr].(*types.AttributeValueMemberS)
			all = all && present[i]
		}
		if !all {
			// A raw item (Decode, a stream record) may lack the table's
			// keys, which every item of the table has.
			if err := m.checkKeys(op, item); err != nil {
				return err
			}
		}
		skips := mem.skips
		if !all || skips == nil {
			skips = keySkips(kts, present[:len(kts)])
		}
		for i, k := range kts {
			if !present[i] {
				continue
			}
			if err := k.tpl.ParseKey(item[k.attr].(*types.AttributeValueMemberS).Value, v, skips[i]); err != nil {
				return fmt.Errorf("singletable: %s: item %s is not a %s item: %s: %v: %w",
					op, formatKey(m.keyOfItem(item)), m.Name, k.attr, err, ErrWrongEntity)
			}
		}
	}
	return nil
}

// keySkips decides, for a field that several of the keys present give,
// which one to take: the most precise (the table's sort key "AT#{At}"
// holds the whole time, an index's "DAY#{At:2006-01-02}" only its day),
// the first of equals. skips[i][j] marks placeholder j of template i as
// given better by another key.
func keySkips(kts []struct {
	tpl  *keys.Template
	attr string
}, present []bool) [][]bool {
	type best struct{ tpl, ph, rank int }
	chosen := map[string]best{}
	for i, k := range kts {
		if !present[i] {
			continue
		}
		for j, ph := range k.tpl.Placeholders() {
			r := ph.Precision()
			if b, ok := chosen[ph.Field.GoName]; !ok || r < b.rank {
				chosen[ph.Field.GoName] = best{i, j, r}
			}
		}
	}
	out := make([][]bool, len(kts))
	for i, k := range kts {
		phs := k.tpl.Placeholders()
		out[i] = make([]bool, len(phs))
		for j, ph := range phs {
			b := chosen[ph.Field.GoName]
			out[i][j] = b.tpl != i || b.ph != j
		}
	}
	return out
}

// fetchItems reads the whole items of raws (index items) from the table, in
// the order of raws; an item deleted meanwhile is nil. Keys DynamoDB leaves
// unprocessed are retried within DefaultRetryPolicy; any still unread then
// fail the read.
func (r *readReq) fetchItems(ctx context.Context, db *DB, raws []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error) {
	t := r.d.table
	pos := make([]int, len(raws)) // raws[i] is keys[pos[i]]
	var keys []batchKey
	seen := newItemIndex(len(raws), func(i int) model.ItemID { return keys[i].id })
	for i, raw := range raws {
		k := t.keyOfItem(raw)
		id := t.idOf(k)
		j, dup := seen.add(id, len(keys))
		if !dup {
			j = len(keys)
			keys = append(keys, batchKey{key: k, id: id})
		}
		pos[i] = j
	}
	found := make([]map[string]types.AttributeValue, len(keys))
	left, requests, err := db.getItems(ctx, keys, seen, getSpec{attrs: r.fetch.attrs, consistent: r.fetch.consistent, m: r.m.onTable()}, defaultConcurrency, DefaultRetryPolicy,
		func(i int, item map[string]types.AttributeValue) { found[i] = item })
	if len(left) > 0 {
		if err == nil {
			err = fmt.Errorf("DynamoDB left %d keys unprocessed after %d attempts", len(left), DefaultRetryPolicy.MaxAttempts)
		}
		return nil, requests, fmt.Errorf("singletable: %s: FetchFull: %w", r.Op, err)
	}
	out := make([]map[string]types.AttributeValue, len(raws))
	for i := range raws {
		out[i] = found[pos[i]]
	}
	return out, requests, nil
}

// projection lists the attributes to read for Project(fields): the fields'
// attributes, the keys and the entity type. Without fetch, a field the index
// does not carry must be recoverable from the keys.
func (d *readDecl) projection(op string, fields []string, fetch bool) ([]string, error) {
	var attrs []string
	add := func(a string) {
		if a != "" && !slices.Contains(attrs, a) {
			attrs = append(attrs, a)
		}
	}
	for _, name := range fields {
		// Every member with the field: a collection's members may store
		// it under different attribute names.
		found := false
		for _, mem := range d.members {
			f, ok := mem.m.Fields.ByGoName(name)
			if !ok {
				// A key-only field: read back from the table key, which
				// every read returns.
				if _, ko := mem.m.KeyOnlyOf(name); ko {
					found = true
				}
				continue
			}
			found = true
			if !fetch && !d.projects(f.Attr) {
				if mem.fromKeys(name) {
					continue // recovered from the keys
				}
				return nil, &InputError{Op: op, Reason: fmt.Sprintf("Project(%q): index %s (%s) does not carry the field and the keys do not hold it; add FetchFull()", name, d.index.index.Name, d.index.index.Projection)}
			}
			add(f.Attr)
		}
		if !found {
			return nil, &InputError{Op: op, Reason: d.unknownProjection(name)}
		}
	}
	if !fetch {
		for _, a := range d.keyAttrs() {
			add(a)
		}
	} else {
		add(d.table.schema.PK)
		add(d.table.schema.SK)
	}
	if fetch || d.projects(d.table.schema.TypeAttr) {
		add(d.table.schema.TypeAttr)
	}
	if d.expires() && (fetch || d.projects(d.table.schema.TTLAttr)) {
		add(d.table.schema.TTLAttr) // to leave expired items out (ttl.go)
	}
	// The shape revision, to upgrade an older item (and refuse a newer
	// one): without it, a current item would read as the base revision
	// and be upgraded again.
	for _, mem := range d.members {
		if h := mem.m.revision(); h != nil && (fetch || d.projects(h.attr)) {
			add(h.attr)
		}
	}
	return attrs, nil
}

// unknownProjection explains a Project name that no entity of the read
// has as a field: a path (Project takes whole top-level fields), an
// attribute name, or another case of a field's Go name.
func (d *readDecl) unknownProjection(name string) string {
	msg := fmt.Sprintf("Project(%q): no such field", name)
	if i := strings.IndexAny(name, ".["); i > 0 {
		for _, mem := range d.members {
			if _, ok := mem.m.Fields.ByGoName(name[:i]); ok {
				return fmt.Sprintf("%s: Project takes whole top-level fields, not paths: Project(%q)", msg, name[:i])
			}
		}
	}
	for _, mem := range d.members {
		if f, ok := mem.m.Fields.ByAttr(name); ok {
			return fmt.Sprintf("%s: %q is the attribute name of %s's field %s; Project names Go fields", msg, name, mem.m.Name, f.GoName)
		}
		for _, f := range mem.m.Fields.List {
			if strings.EqualFold(f.GoName, name) {
				return fmt.Sprintf("%s: did you mean %s?", msg, f.GoName)
			}
		}
	}
	return msg
}

// project renders the ProjectionExpression of a read of fields (Project)
// with b.
func (d *readDecl) project(op string, fields []string, b *expr.Builder) (string, error) {
	attrs, err := d.projection(op, fields, false)
	if err != nil {
		return "", err
	}
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = b.Name(a)
	}
	p := strings.Join(names, ", ")
	if err := checkExpression(op, "projection", p); err != nil {
		return "", err
	}
	return p, nil
}
