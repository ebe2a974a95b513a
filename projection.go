package singletable

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
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
	if mem.ei != nil {
		out = append(out, kt{mem.ei.pk, mem.ei.index.pk})
		if mem.ei.sk != nil {
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

// Batch reads of FetchFull retry unprocessed keys with exponential backoff
// and jitter, this many times before failing.
const (
	fetchAttempts  = 8
	fetchBaseDelay = 20 * time.Millisecond
	fetchMaxDelay  = time.Second
)

// fetchItems reads the whole items of raws (index items) from the table, in
// the order of raws; an item deleted meanwhile is nil.
func (r *readReq) fetchItems(ctx context.Context, db *DB, raws []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error) {
	t := r.d.table
	out := make([]map[string]types.AttributeValue, len(raws))
	pos := map[string][]int{}
	var keys []map[string]types.AttributeValue
	for i, raw := range raws {
		k := map[string]types.AttributeValue{t.pk: raw[t.pk]}
		if t.sk != "" {
			k[t.sk] = raw[t.sk]
		}
		id := keyID(k, t)
		if _, dup := pos[id]; !dup {
			keys = append(keys, k)
		}
		pos[id] = append(pos[id], i)
	}
	requests := 0
	for start := 0; start < len(keys); start += maxBatchGet {
		ka := types.KeysAndAttributes{Keys: keys[start:min(start+maxBatchGet, len(keys))]}
		if r.fetch.attrs != nil {
			var b expr.Builder
			names := make([]string, len(r.fetch.attrs))
			for i, a := range r.fetch.attrs {
				names[i] = b.Name(a)
			}
			ka.ProjectionExpression = aws.String(strings.Join(names, ", "))
			ka.ExpressionAttributeNames = b.Names
		}
		pending := map[string]types.KeysAndAttributes{db.name: ka}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt == fetchAttempts {
				n := len(pending[db.name].Keys)
				return nil, requests, fmt.Errorf("singletable: %s: FetchFull: DynamoDB left %d keys unprocessed after %d attempts", r.op, n, fetchAttempts)
			}
			if attempt > 0 {
				if err := sleepBackoff(ctx, attempt); err != nil {
					return nil, requests, err
				}
			}
			res, err := db.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: pending})
			requests++
			if err != nil {
				return nil, requests, opError(r.op+" FetchFull", err)
			}
			for _, item := range res.Responses[db.name] {
				for _, i := range pos[keyID(item, t)] {
					out[i] = item
				}
			}
			pending = nil
			if u, ok := res.UnprocessedKeys[db.name]; ok && len(u.Keys) > 0 {
				pending = map[string]types.KeysAndAttributes{db.name: u}
			}
		}
	}
	return out, requests, nil
}

// sleepBackoff waits before retry number attempt (1, 2 ...): full jitter
// over an exponentially growing cap.
func sleepBackoff(ctx context.Context, attempt int) error {
	ceiling := min(fetchBaseDelay<<attempt, fetchMaxDelay)
	d := time.Duration(rand.Int64N(int64(ceiling)) + 1)
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// keyID identifies an item by its table key.
func keyID(item map[string]types.AttributeValue, t *Table) string {
	return keyText(item[t.pk]) + "\x00" + keyText(item[t.sk])
}

func keyText(av types.AttributeValue) string {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return "S" + v.Value
	case *types.AttributeValueMemberN:
		return "N" + v.Value
	case *types.AttributeValueMemberB:
		return "B" + string(v.Value)
	}
	return ""
}
