package singletable

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
	"github.com/singletable/singletable/internal/read"
)

// Scans
//
// Patterns never scan the table (a ScanIndex pattern scans an index:
// scan_index.go): a full-table read is its own, visibly named operation. Entity.Scan reads every item of one entity (a Scan filtered on
// the entity type: it still reads, and pays for, the whole table); DB.Scan
// reads every item of the table, each decoded into its entity's Go type,
// with the items of types the model does not register reported, never
// dropped. Both split the table into Segments read in parallel (at most
// ScanConcurrency at once), take a Filter and a PageSize, report progress
// (OnProgress) and resume from a saved position (ResumeScan). Migrations
// (package migrate) walk the table through the same engine, reached
// through bridge_migrate.go.

// maxSegments is DynamoDB's limit on TotalSegments.
const maxSegments = 1000000

// defaultScanConcurrency is how many segments are read at once without
// ScanConcurrency.
const defaultScanConcurrency = 4

// walkSettings are what the scan options add up to (package migrate
// fills them through bridge_migrate.go).
type walkSettings struct {
	segments, concurrency, pageSize int
	hasSegments                     bool // Segments was given (0 is then wrong)
	progress                        func(ScanProgress)
	resume                          string
	// refused says why an option's value was refused (the first such),
	// for scanRequest to report: 0 means "the default" only inside the
	// library (package migrate's defaults), never from a caller.
	refused string
}

// refuse records why an option's value was refused, keeping the first.
func (w *walkSettings) refuse(format string, args ...any) {
	if w.refused == "" {
		w.refused = fmt.Sprintf(format, args...)
	}
}

// scanOpt is a scan option.
type scanOpt struct{ set func(*walkSettings) }

func (o scanOpt) apply(s *settings) { o.set(s.walkSettings()) }
func (scanOpt) scanOption()         {}

// walkSettings returns s's walk settings, made on first use.
func (s *settings) walkSettings() *walkSettings {
	if s.walk == nil {
		s.walk = &walkSettings{}
	}
	return s.walk
}

// Segments splits the scan into n segments (DynamoDB's TotalSegments, 1
// to 1,000,000, else an *InputError; default 1) read in parallel,
// ScanConcurrency at a time.
// Each segment is an independent sequence of pages; results interleave.
func Segments(n int) ScanOption {
	return scanOpt{func(w *walkSettings) { w.segments, w.hasSegments = n, true }}
}

// ScanConcurrency bounds how many segments are read at once: n at least
// 1 (else an *InputError); default min(Segments, 4).
func ScanConcurrency(n int) ScanOption {
	return scanOpt{func(w *walkSettings) {
		if n < 1 {
			w.refuse("ScanConcurrency(%d) must be at least 1", n)
		}
		w.concurrency = n
	}}
}

// PageSize caps the items each Scan request reads (its Limit; n at least
// 1, else an *InputError); DynamoDB also ends a page at 1 MB. Smaller
// pages make progress and resumable positions finer and spread the read
// capacity a scan consumes.
func PageSize(n int) ScanOption {
	return scanOpt{func(w *walkSettings) {
		if n < 1 {
			w.refuse("PageSize(%d) must be at least 1", n)
		}
		w.pageSize = n
	}}
}

// OnProgress calls f after each page a segment has finished with (the
// loop has handled its items), one call at a time, from the scan's
// goroutines. A nil f is an *InputError.
func OnProgress(f func(ScanProgress)) ScanOption {
	return scanOpt{func(w *walkSettings) {
		if f == nil {
			w.refuse("OnProgress(nil): the function is nil")
		}
		w.progress = f
	}}
}

// ResumeScan resumes a scan from a position an earlier one reported
// (ScanProgress.Position): each segment starts after the last page it
// finished, and finished segments are not read again. The position must
// come from a scan of the same entity (or of the whole table) with the
// same Segments, through a DB with the same cursor key; any other is a
// *CursorError (ErrInvalidCursor) and nothing is sent. An empty position
// starts from the beginning.
func ResumeScan(position string) ScanOption {
	return scanOpt{func(w *walkSettings) { w.resume = position }}
}

// ScanProgress is a scan's progress after one page.
type ScanProgress struct {
	// Segment is the segment that finished a page; SegmentScanned is how
	// many items it has read so far (filtered items included).
	Segment        int
	SegmentScanned int64
	// Scanned is how many items every segment has read so far, the runs
	// before a resume included.
	Scanned int64
	// SegmentsDone of TotalSegments have read their last page.
	SegmentsDone, TotalSegments int
	// Position resumes the scan after every page finished so far (see
	// ResumeScan): a sealed, opaque string, safe to store.
	Position string
}

// ScannedItem is one item of a table scan (DB.Scan).
type ScannedItem struct {
	// Entity is the item's entity type, as its type attribute names it
	// ("" when it has none).
	Entity string
	// Value is the item decoded into its entity's Go type (a T, not a
	// *T), or nil when the model registers no entity of that type (such
	// as a unique-value guard item, "_unique"): see Known.
	Value any
	// Item is the item as stored.
	Item map[string]types.AttributeValue
}

// Known reports whether the item is of an entity the model registers.
func (s ScannedItem) Known() bool { return s.Value != nil }

// scanReq is a scan resolved for one call: the engine's walk (read.Walk:
// the request every page copies, where each segment stands, the walk
// itself), and what the root adds.
type scanReq struct {
	read.Walk
	m *entityModel // the entity scanned; nil for the whole table
	w walkSettings
	// onPage is called after a segment finished a page, with Mu held; an
	// error stops the scan.
	onPage func(ScanProgress) error
	// expiry leaves expired items out of Entity.Scan and DB.Scan, as of
	// every read (ttl.go).
	expiry expiryCheck
	meter  *meter // nil: not metered (meter.go)
}

// scanRequest resolves a scan of entity m (nil: the whole table).
func (db *DB) scanRequest(op string, m *entityModel, s *settings) (*scanReq, error) {
	return db.scanIndexRequest(op, m, nil, s)
}

// scanIndexRequest resolves a scan of entity m (nil: every entity) in
// index d (a ScanIndex pattern; nil: the table).
func (db *DB) scanIndexRequest(op string, m *entityModel, d *readDecl, s *settings) (*scanReq, error) {
	fail := func(format string, args ...any) (*scanReq, error) {
		return nil, &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	if m != nil {
		if err := db.checkTable(op, m); err != nil {
			return nil, err
		}
	}
	r := &scanReq{m: m}
	r.Op, r.Total, r.Bind = op, 1, "scan *"
	if m != nil {
		r.Bind = "scan " + m.Name
		r.meter = db.meter(s, op, m.Name, "", "")
	} else {
		r.meter = db.meter(s, op, "", "", "")
	}
	if d != nil { // a position binds the index too
		r.Bind += " on " + d.index.index.Name
		if r.meter != nil { // metered by the index it reads (observe, capacity)
			r.meter = db.meter(s, op, m.Name, d.name, d.index.index.Name)
		}
	}
	if s.walk != nil {
		r.w = *s.walk
	}
	if r.w.hasSegments {
		r.Total = r.w.segments
	}
	switch {
	case r.w.refused != "":
		return fail("%s", r.w.refused)
	case r.Total < 1 || r.Total > maxSegments:
		return fail("Segments(%d): a scan has 1 to %d segments", r.w.segments, maxSegments)
	case r.w.concurrency < 0:
		return fail("ScanConcurrency(%d) must be at least 1", r.w.concurrency)
	case r.w.pageSize < 0:
		return fail("PageSize(%d) must be at least 1", r.w.pageSize)
	}
	if r.w.concurrency == 0 {
		r.w.concurrency = min(r.Total, defaultScanConcurrency)
	}
	r.Concurrency = r.w.concurrency
	if m != nil {
		r.expiry = db.expiryFor(s, m)
	} else {
		// Each item by its own entity's expiry; one of an unknown type
		// is never left out.
		r.expiry = db.expiryFor(s)
	}
	in := &r.In
	in.TableName = aws.String(db.name)
	var b expr.Builder
	var filter string
	if m != nil && !m.table.schema.TypeByKeys && (d == nil || d.projects(m.table.schema.TypeAttr)) {
		filter = b.Name(m.table.schema.TypeAttr) + " = " + b.Value(expr.S(m.Name))
	}
	if d != nil {
		in.IndexName = aws.String(d.index.index.Name)
		if err := d.checkScan(op, s, r.expiry); err != nil {
			return nil, err
		}
	}
	if c := s.read.filter; !c.IsZero() {
		// An entity's fields by their Go names; the whole table's by
		// attribute names, as no one entity's names apply.
		f, err := renderCond(c, m, &b)
		if err != nil {
			return nil, filterError(op, err)
		}
		if filter == "" {
			filter = f
		} else {
			filter = "(" + filter + ") AND (" + f + ")"
		}
	}
	if filter != "" {
		if err := checkExpression(op, "filter", filter); err != nil {
			return nil, err
		}
		in.FilterExpression = aws.String(filter)
		in.ExpressionAttributeNames, in.ExpressionAttributeValues = b.Names, b.Values
	}
	if r.w.pageSize > 0 {
		in.Limit = aws.Int32(int32(min(r.w.pageSize, 1<<30)))
	}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if r.Total > 1 {
		in.TotalSegments = aws.Int32(int32(r.Total))
	}
	secret, err := db.cursorSecret(op)
	if err != nil {
		return nil, err
	}
	r.Secret = secret
	r.Reset()
	if r.w.resume != "" {
		if err := r.open(db.cursor.keys, r.w.resume); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// open sets where every segment starts from a sealed position.
func (r *scanReq) open(keys [][]byte, position string) error {
	return cursorError(r.Op, r.Open(keys, position))
}

// seal encodes where every segment stands. Called with Mu held.
func (r *scanReq) seal() (string, error) {
	pos, err := r.Seal()
	if err != nil {
		return "", &InputError{Op: r.Op, Reason: err.Error()}
	}
	return pos, nil
}

// walk reads every segment left, ScanConcurrency at a time, handing each
// page to handle, until every segment is done or one fails (which stops
// the others), reporting progress to OnProgress and onPage. Positions
// only move past pages handled in full.
func (r *scanReq) walk(ctx context.Context, client Client, handle read.PageFunc) error {
	r.watch()
	return r.Run(ctx, client, handle)
}

// each runs the scan as a loop's (see read.Walk.Each), reporting progress
// to OnProgress.
func (r *scanReq) each(ctx context.Context, client Client, each func(map[string]types.AttributeValue) bool, fail func(error)) {
	r.watch()
	r.Each(ctx, client, each, fail)
}

// watch has the walk report its pages when OnProgress or onPage wants
// them: a walk no one watches seals no position.
func (r *scanReq) watch() {
	if r.w.progress != nil || r.onPage != nil {
		r.Progress = r.progress
	}
}

// progress reports a page a segment has finished with.
func (r *scanReq) progress(rp read.Progress) error {
	p := ScanProgress{Segment: rp.Segment, SegmentScanned: rp.SegmentScanned, Scanned: rp.Scanned,
		SegmentsDone: rp.SegmentsDone, TotalSegments: rp.TotalSegments}
	var err error
	if p.Position, err = r.seal(); err != nil {
		return err
	}
	if r.w.progress != nil {
		r.w.progress(p)
	}
	if r.onPage != nil {
		return r.onPage(p)
	}
	return nil
}

// Entity scans

// ScanInput is the first Scan request Scan sends (a dry run): a Scan of
// the table filtered on the entity type, and on Filter's condition (over
// the entity's fields). With Segments, the first segment's.
func (e *Entity[T]) ScanInput(db *DB, opts ...ScanOption) (*dynamodb.ScanInput, error) {
	return e.m.scanInput(db, opts)
}

func (m *entityModel) scanInput(db *DB, opts []ScanOption) (*dynamodb.ScanInput, error) {
	r, err := m.scanRequest(db, opts)
	if err != nil {
		return nil, err
	}
	return r.First(), nil
}

func (m *entityModel) scanRequest(db *DB, opts []ScanOption) (*scanReq, error) {
	op := m.Name + ".Scan"
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	return db.scanRequest(op, m, s)
}

// Scan iterates over every item of the entity in the table: a full-table
// Scan filtered on the entity type, which reads (and pays for) every item
// of the table, so it is for maintenance, exports and migrations, not for
// serving requests (declare a Pattern for those). Items come in no
// particular order; with Segments, the segments' pages interleave. Expired
// items are left out, as by every read (see Expires; IncludeExpired keeps
// them); migrations see every stored item. An
// error ends the iteration (a decoding error yields the error and goes on
// if the loop does); breaking out of the loop stops every segment.
func (e *Entity[T]) Scan(ctx context.Context, db *DB, opts ...ScanOption) iter.Seq2[T, error] {
	return seqOf[T](e.query.entityScan(ctx, db, opts))
}

// entityScan is the read of Entity.Scan, d the entity's query (see
// entityQuery): it scans d's entity.
func (d *readDecl) entityScan(ctx context.Context, db *DB, opts []ScanOption) readIter {
	return readIter{run: runEntityScan, ctx: ctx, db: db, d: d, more: &iterArgs{scanOpts: opts}}
}

// runEntityScan runs the read of Entity.Scan (see readIter).
func runEntityScan(it readIter, dst reflect.Value, y itemYield) {
	m, db := it.d.entities[0], it.db
	r, err := m.scanRequest(db, it.more.scanOpts)
	if err != nil {
		y.item(err)
		return
	}
	r.each(it.ctx, db.via(r.meter, 0), func(item map[string]types.AttributeValue) bool {
		if r.expiry.expired(item) {
			return true
		}
		dst.SetZero()
		if other, err := m.otherByKeys(r.Op, item); other {
			return true // another entity's: the scan filters on no type
		} else if err != nil {
			return y.item(err)
		}
		if err := m.decode(item, dst); err != nil {
			dst.SetZero()
			return y.item(err)
		}
		return y.item(nil)
	}, func(err error) { dst.SetZero(); y.item(err) })
}

// Table scans

// ScanInput is the first Scan request DB.Scan sends (a dry run). A Filter
// names attributes as stored (not Go fields: the items are of every
// entity).
func (db *DB) ScanInput(opts ...ScanOption) (*dynamodb.ScanInput, error) {
	r, err := db.tableScan(opts)
	if err != nil {
		return nil, err
	}
	return r.First(), nil
}

func (db *DB) tableScan(opts []ScanOption) (*scanReq, error) {
	s, err := collect("Scan", opts)
	if err != nil {
		return nil, err
	}
	return db.scanRequest("Scan", nil, s)
}

// Scan iterates over every item of the table, each decoded into the Go
// type of the entity its type attribute names. An item of a type the
// model does not register (a unique-value guard, "_unique", or another
// application's) is yielded too, with a nil Value and its raw Item, never
// dropped. An item of an entity (by its type or, untyped, by its keys)
// that does not decode is yielded as its error (a *DecodeError). An item
// is left out when it has expired by its own entity's
// expiry (see Expires; IncludeExpired keeps them): an item of an entity
// with no expiry, or of an unknown type, is yielded whatever its TTL
// attribute holds. A Filter names attributes as stored. Otherwise it works as Entity.Scan.
func (db *DB) Scan(ctx context.Context, opts ...ScanOption) iter.Seq2[ScannedItem, error] {
	return func(yield func(ScannedItem, error) bool) {
		r, err := db.tableScan(opts)
		if err != nil {
			yield(ScannedItem{}, err)
			return
		}
		r.each(ctx, db.via(r.meter, 0), func(item map[string]types.AttributeValue) bool {
			if r.expiry.expired(item) {
				return true
			}
			v, m, err := db.table.decodeItem(r.Op, item)
			var unknown *UnknownEntityError
			if errors.As(err, &unknown) && len(unknown.Candidates) < 2 {
				return yield(ScannedItem{Entity: unknown.Type, Item: item}, nil)
			}
			if err != nil {
				return yield(ScannedItem{}, err)
			}
			return yield(ScannedItem{Entity: m.Name, Value: v, Item: item}, nil)
		}, func(err error) { yield(ScannedItem{}, err) })
	}
}
