package singletable

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/model"
)

// Entities told apart by their keys
//
// A table the library adopts was written by code that never stored an
// entity type: its keys say what an item is. Under WithTypeAttribute's
// "keys" option, an item without the type attribute is of the one entity
// whose table key templates parse its keys: the matcher Table.Decode uses
// (decode.go). An item two entities' templates parse is ambiguous, an
// *UnknownEntityError naming both, never a guess; an item no template
// parses is of no entity.

// parseTypeAttribute sets the type attribute and its options from
// WithTypeAttribute's argument: "name[,keys][,omit]".
func parseTypeAttribute(s *model.Schema, spec string) error {
	name, opts, _ := strings.Cut(spec, ",")
	s.TypeAttr, s.TypeByKeys, s.TypeOmit = name, false, false
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "keys":
			s.TypeByKeys = true
		case "omit":
			s.TypeByKeys, s.TypeOmit = true, true
		default:
			return fmt.Errorf("WithTypeAttribute(%q): unknown option %q (the options are keys and omit)", spec, o)
		}
	}
	return nil
}

// untyped reports whether item is to be told apart by its keys: the table
// reads by keys and the item carries no type attribute.
func (t *Table) untyped(item map[string]types.AttributeValue) bool {
	if !t.schema.TypeByKeys {
		return false
	}
	_, typed := item[t.schema.TypeAttr].(*types.AttributeValueMemberS)
	return !typed
}

// byKeys lists the entities whose table key templates parse item's keys.
func (t *Table) byKeys(op string, item map[string]types.AttributeValue) []*entityModel {
	t.mu.RLock()
	entities := append([]*entityModel(nil), t.entityOrder...)
	t.mu.RUnlock()
	var out []*entityModel
	for _, m := range entities {
		if m.parsesKeys(op, item) {
			out = append(out, m)
		}
	}
	return out
}

// parsesKeys reports whether m's table key templates parse item's keys;
// its other attributes do not count (a wrong one is a decode error).
func (m *entityModel) parsesKeys(op string, item map[string]types.AttributeValue) bool {
	return m.tableMember().parsesKeys(op, item)
}

// parsesKeys reports whether the member's key templates parse item's keys
// (and its type attribute, if any, names the member's entity); the other
// attributes do not count: the keys decide whose item it is, and a wrong
// attribute is that entity's decode error.
func (mem *readMember) parsesKeys(op string, item map[string]types.AttributeValue) bool {
	probe := reflect.New(mem.m.Type).Elem()
	return mem.decodeKeys(op, item, probe, true) == nil
}

// unknownByKeys is the error of an untyped item that is of no entity, or
// of several (candidates).
func (t *Table) unknownByKeys(item map[string]types.AttributeValue, candidates []*entityModel) *UnknownEntityError {
	e := &UnknownEntityError{Table: t.schema.Name, Key: t.keyOfItem(item), Item: item}
	if len(candidates) > 1 {
		for _, m := range candidates {
			e.Candidates = append(e.Candidates, m.Name)
		}
	}
	return e
}

// checkByKeys checks that an untyped item is of entity m by its keys: an
// item of another entity is an *EntityMismatchError naming it; one of no
// entity or of several, an *UnknownEntityError.
func (m *entityModel) checkByKeys(op string, item map[string]types.AttributeValue) error {
	found := m.table.byKeys(op, item)
	switch {
	case len(found) == 1 && found[0] == m:
		return nil
	case len(found) == 1:
		return &EntityMismatchError{Want: m.Name, Got: found[0].Name, Key: m.keyOfItem(item)}
	}
	return m.table.unknownByKeys(item, found)
}

// otherByKeys reports whether an item a read of m returned is not m's:
// its type attribute names another type (the library's writes carry it),
// or, without one, its keys are another entity's, or of no entity the
// model declares (the other code's counters and locks). Skip it: the read
// filters on no type, and a typed table's filter would have left all of
// them out. An untyped item m's templates parse along with another's is
// ambiguous: an error.
func (m *entityModel) otherByKeys(op string, item map[string]types.AttributeValue) (bool, error) {
	if !m.table.schema.TypeByKeys {
		return false, nil
	}
	if t, typed := item[m.table.schema.TypeAttr].(*types.AttributeValueMemberS); typed {
		return t.Value != m.Name, nil
	}
	found := m.table.byKeys(op, item)
	switch {
	case !slices.Contains(found, m):
		return true, nil
	case len(found) == 1:
		return false, nil
	}
	return false, m.table.unknownByKeys(item, found)
}

// dropOthers removes from a scan page of m's items (a migration's walk,
// which filters on no type on a table read by its keys) the items their
// keys make another entity's; an ambiguous item stays, for the decode to
// report.
func (m *entityModel) dropOthers(op string, out *dynamodb.ScanOutput) *dynamodb.ScanOutput {
	if !m.table.schema.TypeByKeys || out == nil {
		return out
	}
	kept := out.Items[:0:0]
	for _, item := range out.Items {
		if other, _ := m.otherByKeys(op, item); !other {
			kept = append(kept, item)
		}
	}
	out.Items = kept
	return out
}
