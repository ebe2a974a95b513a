package singletable

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

// Lint and the sheet on multi-attribute index keys (native.go): which
// template indexes could be one, and how the items of entities sharing
// one are told apart, since its keys carry no prefix naming the entity.

// lintNative adds the findings on multi-attribute keys: a template index
// key that could be one (info), and a shared one whose items cannot be
// told apart on a table read by its keys (error).
func (t *Table) lintNative(by map[string][]keyPlace, add func(LintSeverity, string, string, ...any)) {
	for _, ix := range t.gsis {
		ps := by[ix.index.Name]
		if ix.index.Native() {
			if how, ok := t.nativeApart(ps); !ok {
				add(LintError, "index "+ix.index.Name, "%s", how)
			}
			continue
		}
		// Only an index one entity writes: in an overloaded one the
		// literals tell the entities apart, which a multi-attribute key
		// cannot (its attributes are the fields' values alone).
		if len(ps) != 1 {
			continue
		}
		if msg := nativeCandidate(ix, ps[0]); msg != "" {
			add(LintInfo, "entity "+ps[0].m.Name, "%s", msg)
		}
	}
}

// nativeCandidate says how entity place p's template key on index ix could
// be a multi-attribute key, and what moving costs; "" when it cannot (a
// When, a part from the table's keys, a placeholder that is no field's own
// S or N attribute as the template renders it: a time's layout, a bool;
// more than four fields, or a field twice) or holds one field a part.
func nativeCandidate(ix *GSI, p keyPlace) string {
	ei := p.ei
	if ei.When != nil || !ei.Writes() {
		return ""
	}
	var seen []string
	var numbers []string
	part := func(tpl *keys.Template, from model.KeySource) ([]string, bool) {
		if from == model.KeyTable {
			return nil, false
		}
		phs := tpl.Placeholders()
		if len(phs) == 0 || len(phs) > model.MaxKeyAttrs {
			return nil, false
		}
		var attrs []string
		for _, ph := range phs {
			f := ph.Field
			typ := model.FieldAttrType(f)
			ok := !ph.KeyOnly && (ph.Kind == keys.KindString && typ == types.ScalarAttributeTypeS ||
				(ph.Kind == keys.KindInt || ph.Kind == keys.KindUint) && typ == types.ScalarAttributeTypeN)
			for _, s := range seen {
				ok = ok && s != f.GoName
			}
			if !ok {
				return nil, false
			}
			seen = append(seen, f.GoName)
			attrs = append(attrs, f.Attr)
			if typ == types.ScalarAttributeTypeN && from == model.KeyOwn {
				numbers = append(numbers, f.GoName)
			}
		}
		return attrs, true
	}
	pk, ok := part(ei.PK, ei.PKFrom)
	if !ok {
		return ""
	}
	var sk []string
	if ei.SK != nil {
		if sk, ok = part(ei.SK, ei.SKFrom); !ok {
			return ""
		}
	}
	if len(pk) == 1 && len(sk) <= 1 {
		// One field a part: an index over the fields' own attributes
		// (IndexKeys("teamId", "userId")) already does without a copy;
		// the finding is for the composite templates a single attribute
		// could not hold before.
		return ""
	}
	name := ix.index.Name + "Native"
	msg := fmt.Sprintf("index %s key %s holds only its own fields: it could be a multi-attribute key, WithGSI(%q, IndexKeys(%q, %q)), its fields' own attributes. Moving costs no backfill: nothing is written for it, so the items already stored are in it once EnsureTable(AddMissingIndexes()) creates it; keep %s (and the writes of its attributes) until every reader has moved, then drop it",
		ix.index.Name, describePlace(p), name, strings.Join(pk, ","), strings.Join(sk, ","), ix.index.Name)
	if len(numbers) > 0 {
		msg += fmt.Sprintf("; %s then sort as numbers, not as rendered text", strings.Join(numbers, ", "))
	}
	return msg
}

// nativeApart says how a read of a multi-attribute index tells apart the
// items of the entities in it (ps), for the sheet; ok is false when it
// cannot: on a table that reads by keys, two of them whose table keys can
// collide.
func (t *Table) nativeApart(ps []keyPlace) (how string, ok bool) {
	var names []string
	for _, p := range ps {
		names = append(names, p.m.Name)
	}
	switch {
	case len(ps) < 2:
		return "", true
	case !t.schema.TypeByKeys:
		return fmt.Sprintf("shared by %s: a read tells them apart by the type attribute %s", strings.Join(names, ", "), t.schema.TypeAttr), true
	}
	for i, a := range ps {
		for _, b := range ps[i+1:] {
			ta := keyPlace{m: a.m, pk: a.m.PK, sk: a.m.SK}
			tb := keyPlace{m: b.m, pk: b.m.PK, sk: b.m.SK}
			if collide(ta, tb, t.schema.Delim) {
				return fmt.Sprintf("shared by %s, whose keys carry no entity prefix, on a table that tells items apart by their keys: the table keys of %s (%s) and %s (%s) can collide, so an item without the type attribute %s read from it cannot be told apart; give their table keys distinct literal prefixes, or use a multi-attribute key for one entity only",
					strings.Join(names, ", "), a.m.Name, describePlace(ta), b.m.Name, describePlace(tb), t.schema.TypeAttr), false
			}
		}
	}
	how = "shared by " + strings.Join(names, ", ") + ": a read tells them apart by their table keys"
	if !t.schema.TypeOmit {
		how += " where an item has no type attribute " + t.schema.TypeAttr
	}
	return how, true
}
