package singletable

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/read"
)

// A read's request: its options checked against the declaration (which
// options a pattern, a GetItem pattern or a collection takes), then the
// Query built from the keys, the sort condition, the filter and the
// projection.

// settingsFor collects and checks the options of a read.
func (d *readDecl) settingsFor(op string, opts []QueryOption) (*settings, error) {
	return checkedSettings(d, op, opts)
}

// checkedSettings is settingsFor for the options of any read of d: a query's
// or a Pattern.Get's (the options its declaration refuses are checked
// here, by name).
func checkedSettings[O option](d *readDecl, op string, opts []O) (*settings, error) {
	if d.err != nil {
		return nil, d.err
	}
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	fail := func(format string, args ...any) (*settings, error) {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	var getOnly string // a query option a GetItem pattern cannot use
	if d.isGet() {
		getOnly = s.given("Limit", "After", "Descending", "Ascending", "Filter", "FetchFull", "PartialMatch", "SortFields")
	}
	switch {
	case d.scan:
		return fail("the pattern scans index %s (ScanIndex): read it with Scan", d.index.index.Name)
	case getOnly != "":
		return fail("%s does not apply: the pattern runs as GetItem, which takes only ConsistentRead and Project", getOnly)
	case s.limit < 0:
		return fail("Limit must not be negative")
	case s.read.hasFanConcurrency && (d.fan == nil && (d.prefixBucket == nil || !s.read.partial) || s.read.fanConcurrency < 1):
		return fail("FanOutConcurrency(%d) applies to patterns that fan out over shards or time buckets, with n >= 1", s.read.fanConcurrency)
	case s.read.hasFanCeiling && (!d.fans() || s.read.fanCeiling < 1):
		return fail("MaxFanOutRequests(%d) applies to patterns that fan out over shards or time buckets, with n >= 1", s.read.fanCeiling)
	case s.consistent && d.index != nil && !d.index.Local():
		return fail("ConsistentRead: index %s is a global secondary index, which serves only eventually consistent reads", d.index.index.Name)
	case s.descending && s.read.ascending:
		return fail("both Ascending and Descending are given")
	case s.read.partial && d.sort != sortPrefix:
		return fail("%s applies to SortPrefix patterns only", partialName(s.read.timePrec))
	case s.read.hasSortFields && (s.read.sortFields < 0 || d.sort == sortDefault || d.sort == sortEquals || d.sort == sortBeginsWith):
		return fail("SortFields(%d) applies to SortPrefix, SortBetween and the sort comparisons, with n >= 0", s.read.sortFields)
	case s.read.fetchFull && d.fullItems():
		where := "the table"
		if d.index != nil {
			where = "index " + d.index.index.Name + ", which projects ALL"
		}
		return fail("FetchFull: %s already returns whole items", where)
	}
	return s, nil
}

// checkDB makes sure the read belongs to the DB's table.
func (d *readDecl) checkDB(op string, db *DB) error {
	if db == nil {
		return &InputError{Op: op, Reason: "the DB is nil: make one with New"}
	}
	if db.table != d.table {
		return &InputError{Op: op, Reason: "declared on table " + d.table.schema.Name + ", not on this DB's table " + db.table.schema.Name}
	}
	return nil
}

// buildQuery builds the first Query of a read of partition pk.
func (d *readDecl) buildQuery(db *DB, op string, mem *readMember, s *settings, pk string, sk skCond) (*readReq, error) {
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	r := &readReq{d: d, db: db, mem: mem, s: s, expiry: db.expiryFor(s, d.entities...), pk: pk, sk: sk}
	r.Op, r.Src, r.m = op, r, d.meter(db, s, op)
	if err := d.checkExpiry(op, s, r.expiry); err != nil {
		return nil, err
	}
	desc := (d.descending || s.descending) && !s.read.ascending
	var b expr.Builder
	var keyCond string // one concatenation either way
	if sk.nat != nil {
		r.Binding = read.Binding{Pattern: d.name, Descending: desc, KeyAttrs: d.keyAttrs()}
		sk.nat.binding(len(d.index.index.PKAttrs), &r.Binding)
		keyCond = sk.nat.render(&b)
	} else {
		pkAV := d.partitionValue(pk)
		r.Binding = read.Binding{Pattern: d.name, Partition: pk, Sort: read.SortCond{Op: sk.op, A: sk.a, B: sk.b}, Descending: desc,
			KeyAttrs: d.keyAttrs(), PKAttr: d.pkAttr(), SKAttr: d.skAttr(), PKValue: pkAV}
		pkName, pkValue := b.Name(d.pkAttr()), b.Value(pkAV)
		if c := sk.render(&b, d.skAttr()); c != "" {
			keyCond = pkName + " = " + pkValue + " AND " + c
		} else {
			keyCond = pkName + " = " + pkValue
		}
	}
	// The request is part of r: one allocation for both.
	in := &r.Query
	in.TableName = aws.String(db.name)
	in.KeyConditionExpression = aws.String(keyCond)
	if d.index != nil {
		in.IndexName = aws.String(d.index.index.Name)
	}
	// The filter: the entity type (when the index carries it), then the caller's.
	var filter string
	if !d.collection && d.carriesType() {
		filter = b.Name(d.table.schema.TypeAttr) + " = " + b.Value(expr.S(d.entities[0].Name))
	}
	if !s.read.filter.IsZero() {
		if err := d.checkFilter(op, s.read.filter); err != nil {
			return nil, err
		}
		// Rendered with a copy of b on the heap (renderCond keeps its
		// builder), so that b stays on the stack for reads with no filter.
		fb := new(expr.Builder)
		*fb = b
		f, err := d.renderFor(op, s.read.filter, fb)
		if err != nil {
			return nil, err
		}
		b = *fb
		if filter == "" {
			filter = f
		} else {
			filter = "(" + filter + ") AND (" + f + ")"
		}
	}
	if filter != "" {
		in.FilterExpression = aws.String(filter)
	}
	if in.FilterExpression != nil {
		if err := checkExpression(op, "filter", *in.FilterExpression); err != nil {
			return nil, err
		}
	}
	// The projection.
	if s.read.fetchFull {
		r.fetch = &fetchSpec{consistent: s.consistent} // an LSI read with ConsistentRead fetches consistently too
		r.FetchBatch = maxBatchGet
		if len(s.read.project) > 0 {
			attrs, err := d.projection(op, s.read.project, true)
			if err != nil {
				return nil, err
			}
			r.fetch.attrs = attrs
		}
		r.parseKeys = len(s.read.project) > 0
	} else if len(s.read.project) > 0 {
		p, err := d.project(op, s.read.project, &b)
		if err != nil {
			return nil, err
		}
		in.ProjectionExpression = aws.String(p)
		r.parseKeys = true
	} else if !d.fullItems() {
		r.parseKeys = true
	}
	in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Names, b.Values
	if desc {
		in.ScanIndexForward = aws.Bool(false)
	}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if s.limit > 0 {
		in.Limit = aws.Int32(int32(min(s.limit, 1<<30)))
	}
	secret, err := db.cursorSecret(op)
	if err != nil {
		return nil, err
	}
	r.Secret = secret
	if s.read.hasCursor && s.read.cursor != "" {
		start, err := db.openCursor(&r.Binding, s.read.cursor)
		if err != nil {
			return nil, err
		}
		in.ExclusiveStartKey = start
	}
	return r, nil
}

// renderFor renders a condition over the fields of the read's entities.
// For a collection, each member that has the fields it names renders it
// with its own attribute names and encodings; when they all render the
// same expression (the usual case: a field stored alike by every member)
// that is the filter, else each member's is joined with its entity type,
// ((type = A AND a's) OR (type = B AND b's)), so that a field stored as
// "name" by one member and "title" by another matches both. Rendering it
// with the first member alone dropped the others' matching items.
func (d *readDecl) renderFor(op string, c Cond, b *expr.Builder) (string, error) {
	if c.IsZero() {
		return "", nil
	}
	var firstErr error
	var members []*entityModel
	var first expr.Builder
	var firstExpr string
	same := true
	for _, m := range d.entities {
		var scratch expr.Builder
		s, err := renderCond(c, m, &scratch)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if len(members) == 0 {
			first, firstExpr = scratch, s
		} else if same && (s != firstExpr || !reflect.DeepEqual(scratch.Names, first.Names) || !reflect.DeepEqual(scratch.Values, first.Values)) {
			same = false
		}
		members = append(members, m)
	}
	if len(members) == 0 {
		return "", filterError(op, firstErr)
	}
	if same {
		s, err := renderCond(c, members[0], b)
		if err != nil {
			return "", filterError(op, err)
		}
		return s, nil
	}
	if !d.carriesType() {
		names := make([]string, len(members))
		for i, m := range members {
			names[i] = m.Name
		}
		return "", &InputError{Op: op, Reason: fmt.Sprintf("Filter: the members %s store the fields it names under different attributes or encodings, and index %s does not carry the entity type (%s) that would tell their items apart; filter one entity's pattern, or store the field alike",
			strings.Join(names, ", "), d.index.index.Name, d.table.schema.TypeAttr)}
	}
	var out strings.Builder
	for i, m := range members {
		s, err := renderCond(c, m, b)
		if err != nil {
			return "", filterError(op, err)
		}
		if i > 0 {
			out.WriteString(" OR ")
		}
		out.WriteString("(" + b.Name(d.table.schema.TypeAttr) + " = " + b.Value(expr.S(m.Name)) + " AND (" + s + "))")
	}
	return out.String(), nil
}

// checkFilter refuses a filter on the read's own key attributes, which
// DynamoDB refuses (a ValidationException: they belong in the key
// condition), such as a field stored as the attribute an index is keyed on
// (IndexKeys("email", "")); and one on attributes the index does not
// carry: it would silently match nothing.
func (d *readDecl) checkFilter(op string, c Cond) error {
	var b expr.Builder
	if _, err := d.renderFor(op, c, &b); err != nil {
		return err
	}
	for _, attr := range b.Names {
		if attr == d.pkAttr() || (attr != "" && attr == d.skAttr()) || (d.native() && slices.Contains(d.index.index.KeyAttrs(), attr)) {
			on := "the table"
			if d.index != nil {
				on = "index " + d.index.index.Name
			}
			return &InputError{Op: op, Reason: fmt.Sprintf("Filter: attribute %s is a key attribute of %s, which DynamoDB does not filter on; give its value in the pattern's key condition", attr, on)}
		}
	}
	if d.fullItems() {
		return nil
	}
	for _, attr := range b.Names {
		if !d.projects(attr) {
			return &InputError{Op: op, Reason: fmt.Sprintf("Filter: attribute %s is not projected into index %s (%s), so the filter would match nothing", attr, d.index.index.Name, d.index.index.Projection)}
		}
	}
	return nil
}
