package singletable

import (
	"fmt"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/compress"
	writes "github.com/singletable/singletable/internal/write"
)

// The compression feature: a field tagged `singletable:"compress"` (or
// declared by compress.Fields) is stored compressed in a binary attribute
// once its encoding reaches the entity's threshold, and restored on every
// read. The work is the codec plan's: Define gives the entity a plan whose
// field is stored through compress.Field (a codec.Transform), so that every
// path that encodes or decodes through the plan (Put, Update's Set, Get,
// queries, collections, batches, transactions, scans, stream images,
// Table.Decode) compresses and restores it, and the item-size check counts
// the compressed size. What is here is the model's side: which fields may
// be compressed, and the refusals of what cannot read a compressed value.
// The options beyond the tag are package compress's (bridge_compress.go).

// compressSettings are the options of package compress: the codec of
// writes and the threshold (writeSpec.settings["compress"]).
type compressSettings struct {
	codec   compress.Codec
	minSize int
	given   bool // compress.With was given
}

// defaultCompressMinSize is the threshold when none is given: DynamoDB
// bills writes by the KB, so a smaller value rarely saves a unit.
const defaultCompressMinSize = 1024

// compressField is the compression feature's hooks: an update may only
// Set (or Remove) a compressed field whole.
type compressField struct {
	noHooks
	fields []*codec.Field
	set    compressSettings
}

// resolveCompress resolves the compressed fields: top-level fields that no
// key, index key, index condition or expiry reads, each stored through the
// entity's codec and threshold. It runs after the other managed features,
// whose fields it may not claim.
func resolveCompress(r *managedResolver) (managedField, *ModelError) {
	m := r.m
	set, _ := r.spec.settings["compress"].(compressSettings)
	names := r.names["compress"]
	if len(names) == 0 {
		if set.given {
			return nil, r.fail("", "compress.With is given, but no field is compressed: tag one `singletable:\"compress\"` or declare it with compress.Fields")
		}
		return nil, nil
	}
	switch {
	case !set.given:
		set.codec, set.minSize = compress.Gzip, defaultCompressMinSize
	case set.codec == nil:
		return nil, r.fail("", "compress.With: the codec is nil")
	case set.minSize < 0:
		return nil, r.fail("", "compress.With: the threshold (%d bytes) is negative", set.minSize)
	}
	if err := compress.Register(set.codec); err != nil {
		// Registered, values it writes are readable by every entity.
		return nil, r.fail("", "compress.With: %v", err)
	}
	h := &compressField{set: set}
	why := "a compressed field's stored value is compressed bytes"
	for _, name := range names {
		f, ok := m.Fields.ByGoName(name)
		switch {
		case !ok:
			return nil, r.fail(name, "%s", m.noSuchField(name, "a compressed field"))
		case m.KeyFields[name]:
			return nil, r.fail(name, "a compressed field cannot be part of the primary key: %s, which a key cannot be built from", why)
		case m.managed.expires != nil && m.managed.expires.GoName == name:
			return nil, r.fail(name, "the expiry field cannot be compressed: DynamoDB's time to live reads it as a number")
		}
		for _, ei := range m.Indexes {
			// Uses too: an index keyed on the field's own attribute
			// (derived: DependsOn leaves it out) would be keyed on bytes.
			if ei.DependsOn(name) || ei.PK.Uses(name) || (ei.SK != nil && ei.SK.Uses(name)) {
				return nil, r.fail(name, "index %s's key or When condition reads the field, which cannot be compressed: %s, which an index key cannot be built from", ei.Index.Name, why)
			}
		}
		if err := r.claim("compress", f); err != nil {
			return nil, err
		}
		plan, err := m.Plan.Transformed(f, &compress.Field{Codec: set.codec, MinSize: set.minSize})
		if err != nil {
			return nil, r.fail(name, "the field cannot be compressed: %v", err)
		}
		m.Plan = plan
		h.fields = append(h.fields, f)
	}
	return h, nil
}

// compressed is the compressed field top (a top-level Go field name) of
// entity m, or nil.
func (m *entityModel) compressed(top string) *codec.Field {
	for _, mf := range m.managed.fields {
		if h, ok := mf.(*compressField); ok {
			for _, f := range h.fields {
				if f.GoName == top {
					return f
				}
			}
		}
	}
	return nil
}

// refuseCompressed refuses a condition, filter or When naming a compressed
// field (path starts with it): the service would compare its compressed
// bytes, never the value.
func (m *entityModel) refuseCompressed(path string) error {
	if m == nil {
		return nil
	}
	top := topField(path)
	if m.compressed(top) == nil {
		return nil
	}
	return fmt.Errorf("field %s is compressed (singletable:\"compress\"): a condition or filter on %s would compare the compressed bytes DynamoDB holds, not the value; filter after reading instead", top, path)
}

// onUpdate refuses a change to a compressed field other than a whole-value
// Set, SetIfNotExists or Remove: the others compute on the stored value,
// which is compressed bytes, or name a path inside it.
func (h *compressField) onUpdate(w *write, plan *writes.Plan) error {
	for _, c := range plan.Changes {
		top := topField(c.Field)
		if w.a.m.compressed(top) == nil {
			continue
		}
		if c.Field != top {
			return &InputError{Op: w.a.op, Reason: fmt.Sprintf("%s(%q): field %s is compressed (singletable:\"compress\"), so a path inside it cannot be updated: DynamoDB holds it as compressed bytes; Set %s whole", writes.Operators[c.Op].Name, c.Field, top, top)}
		}
		switch c.Op {
		case changeSet, changeSetIfNotExists, changeRemove:
		default:
			return &InputError{Op: w.a.op, Reason: fmt.Sprintf("%s(%q): field %s is compressed (singletable:\"compress\"): DynamoDB holds it as compressed bytes, which %s cannot compute on; Set it whole", writes.Operators[c.Op].Name, c.Field, top, writes.Operators[c.Op].Name)}
		}
	}
	return nil
}
