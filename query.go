package singletable

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// QueryInput is the first Query request Query sends: the partition given by
// the partition-key fields of params, and the sort keys that begin with the
// entity's sort template rendered as far as params give its fields. With
// "ORDER#{Date}#{ID}", params with no Date query begins_with "ORDER#", and
// params with Date "2024-01-15" query begins_with "ORDER#2024-01-15#" (which
// cannot match 2024-01-150). A filter on the entity type keeps other
// entities of the partition out. Of the query options it takes Limit,
// Descending, Ascending and ConsistentRead; for the others, declare a
// Pattern.
func (e *Entity[T]) QueryInput(db *DB, params T, opts ...QueryOption) (*dynamodb.QueryInput, error) {
	in, _, err := e.queryInput(db, params, opts)
	return in, err
}

func (e *Entity[T]) queryInput(db *DB, params T, opts []QueryOption) (*dynamodb.QueryInput, *settings, error) {
	m := e.m
	op := m.ops.query
	s, err := collect(op, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, err
	}
	switch o := s.given("After", "Filter", "Project", "FetchFull", "PartialMatch", "SortFields"); {
	case o != "":
		return nil, nil, &InputError{Op: op, Reason: o + " applies to declared reads (Pattern, Collection), not to Entity.Query"}
	case s.limit < 0:
		return nil, nil, &InputError{Op: op, Reason: "Limit must not be negative"}
	case s.descending && s.read.ascending:
		return nil, nil, &InputError{Op: op, Reason: "both Ascending and Descending are given"}
	}
	v := reflect.ValueOf(&params).Elem()
	pk, err := m.renderTableKey(m.pk, m.table.pk, maxPartitionKeyBytes, v)
	if err != nil {
		return nil, nil, err
	}
	var b expr.Builder
	keyCond := b.Name(m.table.pk) + " = " + b.Value(expr.S(pk))
	if m.sk != nil {
		prefix, complete, err := m.sk.renderPrefix(v, -1)
		if err != nil {
			return nil, nil, m.keyError(m.sk, m.table.sk, err)
		}
		switch {
		case complete:
			keyCond += " AND " + b.Name(m.table.sk) + " = " + b.Value(expr.S(prefix))
		case prefix != "":
			keyCond += " AND begins_with(" + b.Name(m.table.sk) + ", " + b.Value(expr.S(prefix)) + ")"
		}
	}
	filter := b.Name(m.table.typeAttr) + " = " + b.Value(expr.S(m.name))
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(db.name),
		KeyConditionExpression:    aws.String(keyCond),
		FilterExpression:          aws.String(filter),
		ExpressionAttributeNames:  b.Names,
		ExpressionAttributeValues: b.Values,
	}
	if s.descending && !s.read.ascending {
		in.ScanIndexForward = aws.Bool(false)
	}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if s.limit > 0 {
		in.Limit = aws.Int32(int32(min(s.limit, 1<<30)))
	}
	return in, s, nil
}

// Query returns the entity's items in the partition given by params (see
// QueryInput), following DynamoDB's pages until Limit items are found or
// the partition is exhausted.
func (e *Entity[T]) Query(ctx context.Context, db *DB, params T, opts ...QueryOption) ([]T, error) {
	in, s, err := e.queryInput(db, params, opts)
	if err != nil {
		return nil, err
	}
	var out []T
	err = queryPages(ctx, db, e.m.ops.query, in, s.limit, func(items []map[string]types.AttributeValue) error {
		// Room for the whole page at once, and each item decoded in place:
		// a T decoded through reflect.ValueOf(&v) would escape to the heap,
		// one allocation per item.
		out = slices.Grow(out, len(items))
		for _, item := range items {
			out = append(out, *new(T))
			if err := e.m.decode(item, reflect.ValueOf(&out[len(out)-1]).Elem()); err != nil {
				out = out[:len(out)-1] // as before: the items decoded until the error
				return err
			}
		}
		return nil
	})
	return out, err
}

// queryPages sends in and its following pages, handing each page's items
// to yield, until limit items were yielded (0: no limit) or the results
// end. Each page asks only for the items still wanted, in a request of its
// own (see readReq.run).
func queryPages(ctx context.Context, db *DB, op string, in *dynamodb.QueryInput, limit int, yield func([]map[string]types.AttributeValue) error) error {
	start := in.ExclusiveStartKey
	n := 0
	for {
		page := *in
		page.ExclusiveStartKey = start
		if limit > 0 {
			page.Limit = aws.Int32(int32(min(limit-n, 1<<30)))
		}
		res, err := db.client.Query(ctx, &page)
		if err != nil {
			return opError(op, err)
		}
		if err := yield(res.Items); err != nil {
			return err
		}
		n += len(res.Items)
		if len(res.LastEvaluatedKey) == 0 || (limit > 0 && n >= limit) {
			return nil
		}
		start = res.LastEvaluatedKey
	}
}

// readReq is a named read resolved for one call: the first request, and
// what paging and decoding need.
type readReq struct {
	d         *readDecl
	op        string
	mem       *readMember // the member whose params gave the keys (patterns)
	s         *settings
	query     *dynamodb.QueryInput
	get       *dynamodb.GetItemInput
	binding   cursorBinding
	secret    []byte
	parseKeys bool       // recover fields from keys: the read may not carry them all
	fetch     *fetchSpec // FetchFull
}

// settingsFor collects and checks the options of a read.
func (d *readDecl) settingsFor(op string, opts []QueryOption) (*settings, error) {
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
	case getOnly != "":
		return fail("%s does not apply: the pattern runs as GetItem, which takes only ConsistentRead and Project", getOnly)
	case s.limit < 0:
		return fail("Limit must not be negative")
	case s.consistent && d.index != nil:
		return fail("ConsistentRead: index %s is a global secondary index, which serves only eventually consistent reads", d.index.name)
	case s.descending && s.read.ascending:
		return fail("both Ascending and Descending are given")
	case s.read.partial && d.sort != sortPrefix:
		return fail("PartialMatch applies to SortPrefix patterns only")
	case s.read.hasSortFields && (s.read.sortFields < 0 || d.sort == sortDefault || d.sort == sortEquals || d.sort == sortBeginsWith):
		return fail("SortFields(%d) applies to SortPrefix, SortBetween and the sort comparisons, with n >= 0", s.read.sortFields)
	case s.read.fetchFull && d.fullItems():
		where := "the table"
		if d.index != nil {
			where = "index " + d.index.name + ", which projects ALL"
		}
		return fail("FetchFull: %s already returns whole items", where)
	}
	return s, nil
}

// checkDB makes sure the read belongs to the DB's table.
func (d *readDecl) checkDB(op string, db *DB) error {
	if db.table != d.table {
		return &InputError{Op: op, Reason: "declared on table " + d.table.name + ", not on this DB's table " + db.table.name}
	}
	return nil
}

// buildQuery builds the first Query of a read of partition pk.
func (d *readDecl) buildQuery(db *DB, op string, mem *readMember, s *settings, pk string, sk skCond) (*readReq, error) {
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	r := &readReq{d: d, op: op, mem: mem, s: s}
	desc := (d.descending || s.descending) && !s.read.ascending
	r.binding = cursorBinding{pattern: d.name, partition: pk, sort: sk, descending: desc, keyAttrs: d.keyAttrs()}
	var b expr.Builder
	keyCond := b.Name(d.pkAttr()) + " = " + b.Value(d.partitionValue(pk))
	if c := sk.render(&b, d.skAttr()); c != "" {
		keyCond += " AND " + c
	}
	in := &dynamodb.QueryInput{
		TableName:              aws.String(db.name),
		KeyConditionExpression: aws.String(keyCond),
	}
	if d.index != nil {
		in.IndexName = aws.String(d.index.name)
	}
	// The filter: the entity type (when the index carries it), then the caller's.
	var parts []string
	if !d.collection && d.projects(d.table.typeAttr) {
		parts = append(parts, b.Name(d.table.typeAttr)+" = "+b.Value(expr.S(d.entities[0].name)))
	}
	if !s.read.filter.IsZero() {
		if err := d.checkFilter(op, s.read.filter); err != nil {
			return nil, err
		}
		f, err := d.renderFor(op, s.read.filter, &b)
		if err != nil {
			return nil, err
		}
		parts = append(parts, f)
	}
	switch len(parts) {
	case 1:
		in.FilterExpression = aws.String(parts[0])
	case 2:
		in.FilterExpression = aws.String("(" + parts[0] + ") AND (" + parts[1] + ")")
	}
	if in.FilterExpression != nil {
		if err := checkExpression(op, "filter", *in.FilterExpression); err != nil {
			return nil, err
		}
	}
	// The projection.
	if s.read.fetchFull {
		r.fetch = &fetchSpec{consistent: false}
		if len(s.read.project) > 0 {
			attrs, err := d.projection(op, s.read.project, true)
			if err != nil {
				return nil, err
			}
			r.fetch.attrs = attrs
		}
		r.parseKeys = len(s.read.project) > 0
	} else if len(s.read.project) > 0 {
		attrs, err := d.projection(op, s.read.project, false)
		if err != nil {
			return nil, err
		}
		names := make([]string, len(attrs))
		for i, a := range attrs {
			names[i] = b.Name(a)
		}
		in.ProjectionExpression = aws.String(strings.Join(names, ", "))
		if err := checkExpression(op, "projection", *in.ProjectionExpression); err != nil {
			return nil, err
		}
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
	r.secret = secret
	if s.read.hasCursor && s.read.cursor != "" {
		start, err := openCursor(db.cursor.keys, r.binding, s.read.cursor)
		if err != nil {
			return nil, err
		}
		in.ExclusiveStartKey = start
	}
	r.query = in
	return r, nil
}

// renderFor renders a condition over the fields of the read's entities: for
// a collection, with the first member whose fields it names.
func (d *readDecl) renderFor(op string, c Cond, b *expr.Builder) (string, error) {
	if c.IsZero() {
		return "", nil
	}
	var firstErr error
	for _, m := range d.entities {
		var scratch expr.Builder
		if _, err := renderCond(c, m, &scratch); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		s, err := renderCond(c, m, b)
		if err != nil {
			return "", filterError(op, err)
		}
		return s, nil
	}
	return "", filterError(op, firstErr)
}

// checkFilter refuses a filter on attributes the index does not carry: it
// would silently match nothing.
func (d *readDecl) checkFilter(op string, c Cond) error {
	if d.fullItems() {
		return nil
	}
	var b expr.Builder
	if _, err := d.renderFor(op, c, &b); err != nil {
		return err
	}
	for _, attr := range b.Names {
		if !d.projects(attr) {
			return &InputError{Op: op, Reason: fmt.Sprintf("Filter: attribute %s is not projected into index %s (%s), so the filter would match nothing", attr, d.index.name, d.index.projection)}
		}
	}
	return nil
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
			f, ok := mem.m.fields.ByGoName(name)
			if !ok {
				continue
			}
			found = true
			if !fetch && !d.projects(f.Attr) {
				if mem.fromKeys(name) {
					continue // recovered from the keys
				}
				return nil, &InputError{Op: op, Reason: fmt.Sprintf("Project(%q): index %s (%s) does not carry the field and the keys do not hold it; add FetchFull()", name, d.index.name, d.index.projection)}
			}
			add(f.Attr)
		}
		if !found {
			return nil, &InputError{Op: op, Reason: fmt.Sprintf("Project(%q): no such field", name)}
		}
	}
	if !fetch {
		for _, a := range d.keyAttrs() {
			add(a)
		}
	} else {
		add(d.table.pk)
		add(d.table.sk)
	}
	if fetch || d.projects(d.table.typeAttr) {
		add(d.table.typeAttr)
	}
	return attrs, nil
}
