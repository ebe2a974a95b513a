package singletable

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// Package export's way in (see internal/bridge/export.go): the model as
// plain data, from what the sheet and lint already compute, and the item
// a sample value is stored as.
func init() {
	bridge.Export = func(table any) *bridge.ExportModel { return table.(*Table).exportModel() }
	bridge.ExportItem = func(table any, entity string, v any) (string, map[string]types.AttributeValue, error) {
		return table.(*Table).exportItem(entity, v)
	}
	bridge.SchemaDifferences = func(table any, d *types.TableDescription) []string {
		return table.(*Table).schemaDifferences(d)
	}
}

func (t *Table) exportModel() *bridge.ExportModel {
	t.mu.RLock()
	entities := slices.Clone(t.entityOrder)
	t.mu.RUnlock()
	out := &bridge.ExportModel{}
	for _, m := range entities {
		out.Entities = append(out.Entities, exportEntity(m))
	}
	for _, d := range t.reads.all() {
		r := bridge.ExportRead{Name: d.name, Collection: d.collection, Descending: d.descending}
		for _, m := range d.entities {
			r.Entities = append(r.Entities, m.Name)
		}
		if d.err != nil {
			r.Err = d.err.Error()
			out.Reads = append(out.Reads, r)
			continue
		}
		r.Operation, r.KeyCondition, r.SkipsExpired = d.operation(), d.describeKeys(), d.expires()
		if r.SkipsExpired && t.schema.TTLAttr != "" {
			// The check a Query makes with no options (expiryFor's, for
			// entities that expire): does the index carry the TTL attribute?
			r.ExpiryRefused = d.checkExpiry("", &settings{}, expiryCheck{attr: t.schema.TTLAttr}) != nil
		}
		if d.index != nil {
			r.Index = d.index.Name()
		}
		if d.fan != nil {
			r.FanOut = d.fan.describe()
		}
		out.Reads = append(out.Reads, r)
	}
	return out
}

func exportEntity(m *entityModel) bridge.ExportEntity {
	e := bridge.ExportEntity{Name: m.Name, PK: m.PK.Raw}
	if m.SK != nil {
		e.SK = m.SK.Raw
	}
	for _, ei := range m.Indexes {
		k := bridge.ExportIndexKey{Index: ei.Index.Name, PK: ei.PK.Raw, PKFrom: sourceName(ei.PKFrom), When: slices.Clone(ei.WhenFields), WhenText: ei.WhenText}
		if ei.SK != nil {
			k.SK, k.SKFrom = ei.SK.Raw, sourceName(ei.SKFrom)
		}
		if ei.Native != nil {
			k.PK, k.SK = nativeFieldsText(ei.Native.PK), nativeFieldsText(ei.Native.SK)
		}
		for _, f := range absentFields(m, ei) {
			if !slices.Contains(ei.WhenFields, f.Field.GoName) { // When speaks for those, as in the sheet
				k.Sparse = append(k.Sparse, f.Field.GoName)
			}
		}
		e.Indexes = append(e.Indexes, k)
	}
	for i := range m.Fields.List {
		f := &m.Fields.List[i]
		e.Fields = append(e.Fields, bridge.ExportField{GoName: f.GoName, Attr: f.Attr, Type: exportAttrType(f)})
	}
	mg := &m.managed
	name := func(f *codec.Field) string {
		if f == nil {
			return ""
		}
		return f.GoName
	}
	e.Version, e.Created, e.Updated, e.Expires = name(mg.version), name(mg.created), name(mg.updated), name(mg.expires)
	e.ExpiresAfter = mg.expiresAfter
	for _, u := range mg.unique {
		e.Unique = append(e.Unique, u.GoName)
	}
	if m.Shard != nil {
		e.Shard = fmt.Sprintf("%s of %d", m.Shard.Field.GoName, m.Shard.N)
	}
	return e
}

func sourceName(s model.KeySource) string {
	switch s {
	case model.KeyTable:
		return "table key"
	case model.KeyField:
		return "field"
	}
	return ""
}

// exportAttrType is the DynamoDB type field f is stored as: the scalar key
// type where it has one (model.FieldAttrType), else by its Go kind.
func exportAttrType(f *codec.Field) string {
	if t := model.FieldAttrType(f); t != "" {
		return string(t)
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case f.Tag.AsStrSet:
		return "SS"
	case f.Tag.AsNumSet:
		return "NS"
	case f.Tag.AsBinSet:
		return "BS"
	case t.Kind() == reflect.Bool:
		return "BOOL"
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return "L"
	}
	return "M"
}

// exportItem is the item the entity of v's type stores for v: see
// bridge.ExportItem.
func (t *Table) exportItem(entity string, v any) (string, map[string]types.AttributeValue, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	t.mu.RLock()
	var m *entityModel
	for _, e := range t.entityOrder {
		if !rv.IsValid() || e.Type != rv.Type() || (entity != "" && e.Name != entity) {
			continue
		}
		if m != nil {
			t.mu.RUnlock()
			return "", nil, &InputError{Op: "export", Reason: fmt.Sprintf("sample of type %s: entities %s and %s both store it; name the entity (export.Sample)", rv.Type(), m.Name, e.Name)}
		}
		m = e
	}
	t.mu.RUnlock()
	if m == nil {
		what := "no entity"
		if entity != "" {
			what = "no entity " + entity
		}
		return "", nil, &InputError{Op: "export", Reason: fmt.Sprintf("sample of type %T: %s of table %s stores that type", v, what, t.Name())}
	}
	// item needs an addressable value (the shard field is placed in a copy).
	c := reflect.New(rv.Type()).Elem()
	c.Set(rv)
	item, _, err := m.item(c)
	if err != nil {
		return "", nil, err
	}
	return m.Name, item, nil
}
