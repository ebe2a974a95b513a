package singletable

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/revision"
	writes "github.com/singletable/singletable/internal/write"
)

// The shape-revision feature (package revision's options): an entity
// declares the revision of its item shape, which every write stores in a
// reserved attribute (defaultRevisionAttr) no Go field holds, distinct
// from the optimistic-lock version. Reads upgrade an older item through
// the registered upgraders before the caller sees it (entityModel.decode
// and readMember.decode, the two decoders every read path goes through),
// and refuse a newer one (*revision.NewerError) unless ReadNewer. Under
// WriteBack, Get and the entity's queries of whole items write an older
// item back upgraded (writeBack), with migrate.UpgradeRevisions' write
// (migrationWrite, version kept).
//
// Writes protect what a newer revision derives (index keys, unique
// guards) from older code during a rolling deploy:
//   - Put, TxPut: the stored revision must not be newer than the writer's.
//   - Update, TxUpdate: the stored revision must be the writer's (or the
//     item absent): an update of an older item would mark it current
//     without its upgrade, and one of a newer item would be old code
//     rewriting new keys. Read it (which upgrades it) and Put it.
//   - A write refused so is a *revision.ConflictError (refusal), told from
//     the item the failed write returns.
//   - Create needs no item; BatchWrite takes no condition, so a batch
//     stores the writer's revision unchecked.
//
// A current item costs a read one map lookup and a string compare.

// defaultRevisionAttr is the attribute revisions are stored in.
const defaultRevisionAttr = "_rev"

// revisionSettings are package revision's options
// (writeSpec.settings["revision"]).
type revisionSettings struct {
	current, base int
	attr          string
	given         bool
	readNewer     bool
	writeBack     bool
	steps         []revisionStep
}

// revisionStep is an upgrader from revision from to from+1: typed (over a
// pointer to the decoded value, of type typ) or raw (over the item).
type revisionStep struct {
	from  int
	typ   reflect.Type
	typed func(any) error
	raw   func(map[string]types.AttributeValue) error
}

func revisionSettingsOf(s *writeSpec) *revisionSettings {
	if s.settings == nil {
		s.settings = map[string]any{}
	}
	rs, _ := s.settings["revision"].(*revisionSettings)
	if rs == nil {
		rs = &revisionSettings{}
		s.settings["revision"] = rs
	}
	return rs
}

// revisionField is the feature's hooks and what reads need.
type revisionField struct {
	noHooks
	entity        string
	attr          string
	current, base int
	readNewer     bool
	writeBack     bool
	// curText is the current revision's text; every write stores a value
	// of its own (value), since a Client may modify what it is given.
	curText string
	steps   []revisionStep // by from - base
	// putCond and updCond are the writes' conditions, built once.
	putCond, updCond Cond
}

// resolveRevision resolves the entity's revision: a current revision at
// least its base, an attribute no key, index key or field uses, and
// upgraders from revisions in [base, current) over the entity's type.
func resolveRevision(r *managedResolver) (managedField, *ModelError) {
	rs, _ := r.spec.settings["revision"].(*revisionSettings)
	if rs == nil {
		return nil, nil
	}
	m := r.m
	if !rs.given {
		return nil, r.fail("", "revision.Upgrade, revision.ReadNewer or revision.WriteBack is given, but not revision.Current: declare the entity's current shape revision")
	}
	switch {
	case rs.base < 0:
		return nil, r.fail("", "revision.Current: the base revision (%d) is negative", rs.base)
	case rs.current < rs.base:
		return nil, r.fail("", "revision.Current: the current revision (%d) is below the base revision (%d)", rs.current, rs.base)
	}
	attr := rs.attr
	if attr == "" {
		attr = defaultRevisionAttr
	}
	if what := m.attrUse(attr); what != "" {
		return nil, r.fail("", "revision.Current: the revision attribute %q is already %s; name another (revision.CurrentFrom)", attr, what)
	}
	h := &revisionField{entity: m.Name, attr: attr, current: rs.current, base: rs.base, readNewer: rs.readNewer, writeBack: rs.writeBack,
		curText: strconv.Itoa(rs.current), steps: make([]revisionStep, rs.current-rs.base)}
	for _, s := range rs.steps {
		switch {
		case s.from < rs.base || s.from >= rs.current:
			return nil, r.fail("", "revision.Upgrade from revision %d: the entity's revisions are %d (base) to %d (current), so upgraders go from %d to %d", s.from, rs.base, rs.current, rs.base, rs.current-1)
		case s.typed == nil && s.raw == nil:
			return nil, r.fail("", "revision.Upgrade from revision %d: the upgrader is nil", s.from)
		case s.typed != nil && s.typ != m.Type:
			return nil, r.fail("", "revision.Upgrade from revision %d: the upgrader takes *%s, but the entity is %s", s.from, s.typ, m.Type)
		}
		if prev := h.steps[s.from-rs.base]; prev.typed != nil || prev.raw != nil {
			return nil, r.fail("", "revision.Upgrade from revision %d is given twice", s.from)
		}
		h.steps[s.from-rs.base] = s
	}
	// A typed upgrader decodes into the current Go type, which holds only
	// the current shape's fields: a raw one after it would see an item
	// that lost what the type does not hold.
	typed := -1
	for i, s := range h.steps {
		switch {
		case s.typed != nil && typed < 0:
			typed = i
		case s.raw != nil && typed >= 0:
			return nil, r.fail("", "revision.UpgradeItem from revision %d follows revision.Upgrade from revision %d: a typed upgrader works on the current Go type, so raw upgraders (over the item) must come first; write the earlier one over the item too", rs.base+i, rs.base+typed)
		}
	}
	notNewer := Cond{expr.CompareAttr(attr, "<=", h.curText)}
	same := Cond{expr.CompareAttr(attr, "=", h.curText)}
	h.putCond = Or(attrNotExists(attr), notNewer)
	if rs.base == rs.current {
		h.updCond = Or(attrNotExists(attr), same)
	} else {
		h.updCond = Or(m.table.notExists, same)
	}
	m.managed.revision = h
	return h, nil
}

// attrUse says what attribute attr is to the entity's table or fields,
// "" if nothing.
func (m *entityModel) attrUse(attr string) string {
	s := m.table.schema
	switch attr {
	case s.PK, s.SK:
		return "a table key attribute"
	case s.TypeAttr:
		return "the entity type attribute"
	case s.TTLAttr:
		return "the TTL attribute"
	}
	for _, ix := range append(append([]*GSI(nil), m.table.gsis...), m.table.lsis...) {
		if attr == ix.index.PK || attr == ix.index.SK {
			return "a key attribute of index " + ix.index.Name
		}
	}
	for i := range m.Fields.List {
		if f := &m.Fields.List[i]; f.Attr == attr {
			if is(m.managed.version, f) {
				return "the version field's attribute (" + f.GoName + "): a revision is never the optimistic-lock version"
			}
			return "field " + f.GoName + "'s attribute"
		}
	}
	return ""
}

// onPut needs the stored revision not newer than the writer's (the item
// itself carries the revision: entityModel.item).
func (h *revisionField) onPut(w *write, _ reflect.Value) error {
	if w.mode != writeCreate && w.mode != writeBatch {
		w.check(h.putCond)
	}
	return nil
}

// onUpdate stores the current revision, on an item at it (or absent).
func (h *revisionField) onUpdate(w *write, plan *writes.Plan) error {
	plan.Update.Act(expr.ClauseSet, w.b.Name(h.attr), " = ", w.b.Value(h.value()))
	w.check(h.updCond)
	return nil
}

// value is the current revision as stored: a new value for each request,
// which a Client may modify without touching the next one.
func (h *revisionField) value() types.AttributeValue {
	return &types.AttributeValueMemberN{Value: h.curText}
}

// revision is the entity's revision feature, or nil.
func (m *entityModel) revision() *revisionField { return m.managed.revision }

// isCurrent reports whether item is at the current revision: the fast
// path of every read, which allocates nothing.
func (h *revisionField) isCurrent(item map[string]types.AttributeValue) bool {
	switch n := item[h.attr].(type) {
	case *types.AttributeValueMemberN:
		return n.Value == h.curText
	case nil:
		return h.base == h.current
	}
	return false
}

// stored is item's revision: its attribute, or the base when it has none.
func (h *revisionField) stored(m *entityModel, item map[string]types.AttributeValue) (int, error) {
	switch n := item[h.attr].(type) {
	case nil:
		return h.base, nil
	case *types.AttributeValueMemberN:
		if v, err := strconv.Atoi(n.Value); err == nil && v >= 0 {
			return v, nil
		}
	}
	return 0, &DecodeError{Entity: m.Name, Attr: h.attr, Key: m.keyOfItem(item), Reason: "the shape revision attribute is not a non-negative integer number"}
}

// read decodes item, which is not at the current revision, into v through
// decode: an older one upgraded step by step (the raw steps on a copy of
// the item, then the typed ones on v), a newer one refused unless
// readNewer.
func (h *revisionField) read(m *entityModel, item map[string]types.AttributeValue, v reflect.Value, decode func(map[string]types.AttributeValue) error) error {
	rev, err := h.stored(m, item)
	if err != nil {
		return err
	}
	if rev > h.current {
		if h.readNewer {
			return decode(item)
		}
		return &revision.NewerError{Entity: m.Name, Stored: rev, Current: h.current, Key: formatKey(m.keyOfItem(item))}
	}
	item, r, err := h.rawSteps(m, item, rev)
	if err != nil {
		return err
	}
	if err := decode(item); err != nil {
		return err
	}
	for ; r < h.current; r++ {
		if s := h.steps[r-h.base]; s.typed != nil {
			if err := s.typed(v.Addr().Interface()); err != nil {
				return &revision.UpgradeError{Entity: m.Name, From: r, Key: formatKey(m.keyOfItem(item)), Err: err}
			}
		}
	}
	return nil
}

// rawSteps runs the raw upgraders of item, stored at revision rev (not
// newer than the current one), on a copy of it: the item they leave and
// the revision it is at (the first typed upgrader's, or the current).
func (h *revisionField) rawSteps(m *entityModel, item map[string]types.AttributeValue, rev int) (map[string]types.AttributeValue, int, error) {
	r, copied := max(rev, h.base), false // stored before the base: the base's shape
	for ; r < h.current && h.steps[r-h.base].typed == nil; r++ {
		if s := h.steps[r-h.base]; s.raw != nil {
			if !copied {
				item, copied = maps.Clone(item), true
			}
			if err := s.raw(item); err != nil {
				return nil, r, &revision.UpgradeError{Entity: m.Name, From: r, Key: formatKey(m.keyOfItem(item)), Err: err}
			}
		}
	}
	return item, r, nil
}

// revisionOf is the revision the sheet and lint show: "" for an entity
// without revisions.
func (m *entityModel) revisionOf() string {
	h := m.revision()
	if h == nil {
		return ""
	}
	wb := ""
	if h.writeBack {
		wb = ", written back on read"
	}
	if h.base != 0 {
		return fmt.Sprintf("%d (base %d, attribute %s%s)", h.current, h.base, h.attr, wb)
	}
	return fmt.Sprintf("%d (attribute %s%s)", h.current, h.attr, wb)
}

// entityRevisions are the table's entities that declare a revision, in
// registration order.
func (t *Table) entityRevisions() []*entityModel {
	t.mu.RLock()
	defer t.mu.RUnlock()
	var out []*entityModel
	for _, m := range t.entityOrder {
		if m.revision() != nil {
			out = append(out, m)
		}
	}
	return out
}

// revisionsLine is the sheet's line of the entities' shape revisions, ""
// when none declares one.
func (t *Table) revisionsLine() string {
	var parts []string
	for _, m := range t.entityRevisions() {
		parts = append(parts, m.Name+" "+m.revisionOf())
	}
	if len(parts) == 0 {
		return ""
	}
	return "Shape revisions: " + strings.Join(parts, "; ") + ".\n\n"
}

// revisionIssues are lint's findings of shape revisions: each entity's
// revision, so that a deploy's review sees which shape its code writes.
func (t *Table) revisionIssues() []LintIssue {
	var out []LintIssue
	for _, m := range t.entityRevisions() {
		out = append(out, LintIssue{Severity: LintInfo, Subject: "entity " + m.Name,
			Message: "shape revision " + m.revisionOf() + ": every write stores it; older items are upgraded on read, and writes refuse items of a newer revision"})
	}
	return out
}

// refusal is the *revision.ConflictError of action a, whose condition
// failed on item (stored) at a revision its condition refuses: a Put's of
// a newer item, an Update's of any other revision than the writer's. nil
// when the revision is not why (h nil: the entity has no revisions; a
// Create, which checks no revision). It needs no request: the failed
// write returned the item (ReturnValuesOnConditionCheckFailure ALL_OLD).
func (h *revisionField) refusal(a *action, item map[string]types.AttributeValue, ce *ConditionError) error {
	if h == nil || (a.Kind != actPut && a.Kind != actUpdate) || a.WhenExists == failAlreadyExists {
		return nil
	}
	rev, err := h.stored(a.m, item)
	if err != nil || rev == h.current || (a.Kind == actPut && rev < h.current) {
		return nil
	}
	ce.Reason = fmt.Sprintf("the item is at shape revision %d, the writer's is %d", rev, h.current)
	return &revision.ConflictError{Op: a.op, Entity: a.m.Name, Key: formatKey(a.sentKey()), Stored: rev, Writer: h.current, Err: ce}
}

// carried is the item whose attributes unknown to the model a migration of
// raw carries over: raw as the item upgraders leave it (an attribute one
// renamed or removed is not put back), raw itself with no revisions. An
// item of a newer revision is a *revision.NewerError, whatever ReadNewer:
// writing it in the writer's shape would drop what the writer does not
// know.
func (h *revisionField) carried(m *entityModel, raw map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	if h == nil || h.isCurrent(raw) {
		return raw, nil
	}
	rev, err := h.stored(m, raw)
	if err != nil {
		return nil, err
	}
	if rev > h.current {
		return nil, &revision.NewerError{Entity: m.Name, Stored: rev, Current: h.current, Key: formatKey(m.keyOfItem(raw))}
	}
	out, _, err := h.rawSteps(m, raw, rev)
	return out, err
}

// unchanged renders the condition that item's stored revision is still
// as read (raw), for a migration's write.
func (h *revisionField) unchanged(raw map[string]types.AttributeValue, b *expr.Builder) string {
	if av, ok := raw[h.attr]; ok {
		return b.Name(h.attr) + " = " + b.Value(av)
	}
	return "attribute_not_exists(" + b.Name(h.attr) + ")"
}

// writeBack is revision.WriteBack's write of item, read whole by a Get or
// a query of the entity, decoded and upgraded into v: the upgraded item
// written back (the migration pass's write, migrationWrite, version kept),
// conditioned on the item being unchanged since it was read. Nothing is
// sent when the item is current, or its upgrade would move its key; a
// failed condition (another writer was first) is skipped, and any other
// failure too: the reader has its value, and the DB's observer sees the
// request and its error (op "<Entity>.WriteBack").
func (db *DB) writeBack(ctx context.Context, m *entityModel, item map[string]types.AttributeValue, v reflect.Value, s *settings) {
	h := m.revision()
	if h == nil || !h.writeBack || h.isCurrent(item) {
		return
	}
	op := m.Name + ".WriteBack"
	w, err := m.migrationWrite(op, db.name, item, v, false, true, db.now)
	if err != nil || w == nil || w.Put == nil {
		return
	}
	w.Put.ReturnConsumedCapacity = "" // the meter asks when the call or the observer wants it
	_, _ = db.via(db.meter(s, op, m.Name, "", ""), 0).PutItem(ctx, w.Put)
}

// writeBack is DB.writeBack of an item read by r into rv, when r
// reads the entity's whole items: never through an index that does not
// project them all, a projection (Project), a read whose fields come from
// the keys, or a read of several entities (a collection's).
func (r *readReq) writeBack(ctx context.Context, item map[string]types.AttributeValue, rv reflect.Value) {
	mem := r.mem
	if mem == nil {
		return
	}
	h := mem.m.revision()
	if h == nil || !h.writeBack || h.isCurrent(item) || r.parseKeys || r.fetch != nil || len(r.s.read.project) > 0 {
		return
	}
	if mem.ei != nil && mem.ei.Index.Projection != types.ProjectionTypeAll && mem.ei.Index.Projection != "" {
		return
	}
	if rv.Type() != mem.m.Type {
		return
	}
	r.db.writeBack(ctx, mem.m, item, rv, r.s)
}
