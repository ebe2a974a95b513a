package singletable

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
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

// itemFacts are what transactions and batches need to know of an encoded
// item or key, worked out while encoding it rather than read back from the
// map.
type itemFacts struct {
	size     int    // itemSize of the item (of what addKeys added, from addKeys)
	keyBytes int    // itemSize of its table key attributes
	id       itemID // its table key's values
}

// addKeys renders the primary key of struct value v into dst and, with
// full, the entity type and the key of every index v belongs to (see
// indexKey). The facts' size is what they add to the item's itemSize. The
// attribute values are room's when it has room for them (a caller that
// allocates them with something else), else allocated together.
func (m *entityModel) addKeys(dst map[string]types.AttributeValue, v reflect.Value, full bool, room []types.AttributeValueMemberS) (facts itemFacts, err error) {
	// The buffer and the spans stay on the stack as long as they are only
	// appended to and passed by value (a helper taking them by pointer
	// would move them to the heap); larger keys grow them onto the heap.
	var bufArray [256]byte
	var spanArray [8]keySpan
	buf, spans := bufArray[:0], spanArray[:0]
	t := m.table
	if m.shard != nil {
		if v, err = m.placeShard(v); err != nil {
			return facts, err
		}
	}

	start := len(buf)
	buf, _, err = m.appendKey(buf, m.PK, t.schema.PK, t.schema.PKLimit, v, nil)
	if err != nil {
		return facts, err
	}
	if m.PKMayBeReserved && isGuardKey(buf[start:], t.schema.Delim) {
		return facts, &KeyError{Entity: m.Name, Attr: t.schema.PK, Template: m.PK.Raw,
			Reason: fmt.Sprintf("the key %q starts with %q, which is reserved for unique-value guard items", string(buf[start:]), guardType+string(t.schema.Delim))}
	}
	spans = append(spans, keySpan{t.schema.PK, start, len(buf)})
	if m.SK != nil {
		start = len(buf)
		if buf, _, err = m.appendKey(buf, m.SK, t.schema.SK, maxSortKeyBytes, v, nil); err != nil {
			return facts, err
		}
		spans = append(spans, keySpan{t.schema.SK, start, len(buf)})
	}

	for i := 0; full && i < len(m.Indexes); i++ {
		ei := m.Indexes[i]
		if !ei.Writes() { // keys the item has anyway: nothing to write
			removed, err := m.indexFieldKeys(ei, dst)
			if err != nil {
				return facts, err
			}
			facts.size -= removed
			continue
		}
		if ei.When != nil && !ei.When(v) {
			continue
		}
		keyStart, keySpans := len(buf), len(spans)
		var missing bool
		if ei.PKFrom == model.KeyOwn {
			buf, missing, err = m.appendKey(buf, ei.PK, ei.Index.PK, maxPartitionKeyBytes, v, nil)
			if err == nil {
				spans = append(spans, keySpan{ei.Index.PK, keyStart, len(buf)})
			}
		}
		if err == nil && ei.SK != nil && ei.SKFrom == model.KeyOwn {
			start = len(buf)
			buf, missing, err = m.appendKey(buf, ei.SK, ei.Index.SK, maxSortKeyBytes, v, nil)
			spans = append(spans, keySpan{ei.Index.SK, start, len(buf)})
		}
		switch {
		case missing: // a key field is empty: the item is not in the index
			buf, spans = buf[:keyStart], spans[:keySpans]
		case err != nil:
			return facts, err
		}
	}

	text := string(buf)
	n := len(spans)
	if full {
		n++
	}
	values := room[:0:0]
	if cap(room) >= n {
		values = room[:n]
	} else {
		values = make([]types.AttributeValueMemberS, n)
	}
	for i, sp := range spans {
		values[i].Value = text[sp.start:sp.end]
		dst[sp.attr] = &values[i]
		facts.size += len(sp.attr) + sp.end - sp.start
	}
	// The table key comes first: the partition key, then the sort key.
	facts.id.pk, facts.keyBytes = values[0].Value, len(t.schema.PK)+len(values[0].Value)
	if m.SK != nil {
		facts.id.sk = values[1].Value
		facts.keyBytes += len(t.schema.SK) + len(values[1].Value)
	}
	if full {
		values[n-1].Value = m.Name
		dst[t.schema.TypeAttr] = &values[n-1]
		facts.size += len(t.schema.TypeAttr) + len(m.Name)
	}
	return facts, nil
}

// appendKey appends the key tpl renders from v (or from the values of its
// placeholders, vals, when not nil), for attribute attr, to buf.
// On failure buf comes back as it was, with a *KeyError; missing reports
// that the failure is an empty key field (an error for a table key; for an
// index key, the item is not in the index).
func (m *entityModel) appendKey(buf []byte, tpl *keys.Template, attr string, limit int, v reflect.Value, vals []reflect.Value) (out []byte, missing bool, err error) {
	start := len(buf)
	if vals != nil {
		out, err = tpl.AppendKeyFrom(buf, vals)
	} else {
		out, err = tpl.AppendKey(buf, v)
	}
	if err != nil {
		return buf[:start], errors.As(err, new(keys.MissingError)), m.keyError(tpl, attr, err)
	}
	if err := m.checkKeySize(attr, tpl.Raw, "", len(out)-start, limit); err != nil {
		return buf[:start], false, err
	}
	return out, false, nil
}

// checkKeySize refuses a key of n bytes over the service's limit for its
// attribute, naming what made it: a template, or a unique field's guard.
func (m *entityModel) checkKeySize(attr, template, field string, n, limit int) error {
	if n <= limit {
		return nil
	}
	what := "the key"
	if field != "" {
		what = "the key of the unique-value guard item"
	}
	return &KeyError{Entity: m.Name, Attr: attr, Template: template, Field: field,
		Reason: fmt.Sprintf("%s is %d bytes; DynamoDB allows %d", what, n, limit)}
}
