package singletable

import (
	"context"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Projections
//
// A read returns what the index holds. A KEYS_ONLY index carries the table
// and index keys, an INCLUDE index those plus the attributes it names, and
// a read with the Project option the fields asked for. Such results are
// decoded with the fields recoverable from the keys: every field the
// entity's table and index key templates name is parsed back from the key
// attributes, so a membership read through an inverted KEYS_ONLY index
// still carries both of its IDs. FetchFull reads the whole items instead,
// with one BatchGetItem per page (per 100 items).

// fetchSpec is a FetchFull read's batch get.
type fetchSpec struct {
	consistent bool
	attrs      []string // what to read: nil for whole items
}

// keyTemplates lists the member's key templates with their attributes: the
// table's, then the index's.
func (mem *readMember) keyTemplates() []struct {
	tpl  *template
	attr string
} {
	type kt = struct {
		tpl  *template
		attr string
	}
	t := mem.m.table
	out := []kt{{mem.m.pk, t.pk}}
	if mem.m.sk != nil {
		out = append(out, kt{mem.m.sk, t.sk})
	}
	// Only the index's own keys: the table's are above, and a field's own
	// attribute is decoded as the field.
	if mem.ei != nil {
		if mem.ei.pkFrom == keyOwn {
			out = append(out, kt{mem.ei.pk, mem.ei.index.pk})
		}
		if mem.ei.sk != nil && mem.ei.skFrom == keyOwn {
			out = append(out, kt{mem.ei.sk, mem.ei.index.sk})
		}
	}
	return out
}

// fromKeys reports whether the field can be parsed back from the keys a
// read of this member returns.
func (mem *readMember) fromKeys(field string) bool {
	for _, k := range mem.keyTemplates() {
		if k.tpl.uses(field) {
			return true
		}
	}
	return false
}

// decode decodes an item of the member into v (an addressable struct
// value). With parseKeys, the fields written in the key templates are
// parsed from the keys first, and the attributes the item carries are laid
// over them.
func (mem *readMember) decode(op string, item map[string]types.AttributeValue, v reflect.Value, parseKeys bool) error {
	m := mem.m
	if got, ok := item[m.table.typeAttr].(*types.AttributeValueMemberS); ok && got.Value != m.name {
		return &EntityMismatchError{Want: m.name, Got: got.Value, Key: m.keyOfItem(item)}
	}
	if parseKeys {
		for _, k := range mem.keyTemplates() {
			s, ok := item[k.attr].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			if err := k.tpl.parse(s.Value, v); err != nil {
				return fmt.Errorf("singletable: %s: item %s is not a %s item: %s: %v: %w",
					op, formatKey(m.keyOfItem(item)), m.name, k.attr, err, ErrWrongEntity)
			}
		}
	}
	if err := m.plan.Decode(item, v); err != nil {
		return fmt.Errorf("singletable: %s: decoding %s: %w", op, m.name, err)
	}
	return nil
}

// fetchItems reads the whole items of raws (index items) from the table, in
// the order of raws; an item deleted meanwhile is nil. Keys DynamoDB leaves
// unprocessed are retried within DefaultRetryPolicy; any still unread then
// fail the read.
func (r *readReq) fetchItems(ctx context.Context, db *DB, raws []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error) {
	t := r.d.table
	pos := make([]int, len(raws)) // raws[i] is keys[pos[i]]
	seen := map[itemID]int{}
	var keys []map[string]types.AttributeValue
	for i, raw := range raws {
		k := keyOf(t, raw)
		id := t.idOf(k)
		j, dup := seen[id]
		if !dup {
			j = len(keys)
			seen[id] = j
			keys = append(keys, k)
		}
		pos[i] = j
	}
	found, left, requests, err := db.getItems(ctx, keys, getSpec{attrs: r.fetch.attrs}, defaultConcurrency, DefaultRetryPolicy)
	if len(left) > 0 {
		if err == nil {
			err = fmt.Errorf("DynamoDB left %d keys unprocessed after %d attempts", len(left), DefaultRetryPolicy.MaxAttempts)
		}
		return nil, requests, fmt.Errorf("singletable: %s: FetchFull: %w", r.op, err)
	}
	out := make([]map[string]types.AttributeValue, len(raws))
	for i := range raws {
		out[i] = found[pos[i]]
	}
	return out, requests, nil
}
