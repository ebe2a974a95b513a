package singletable

import (
	"context"
	"fmt"
	"iter"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Index scans
//
// A sparse index (one that holds only the items a When condition or an
// absent value lets in: the pending orders, the flagged accounts) is read
// whole by a Scan of the index, which costs only what the index holds.
// Such a scan is declared as a pattern, so that the sheet lists it and
// Lint can tell when the index is not sparse for the entity (the scan then
// costs as much as reading every item of the entity):
//
//	var FlaggedAccounts = Accounts.Pattern("FlaggedAccounts").On("Flagged").ScanIndex().Must()
//	for a, err := range FlaggedAccounts.Scan(ctx, db, st.Segments(4)) { ... }
//
// It runs on the table scan's engine: Segments, ScanConcurrency, PageSize,
// OnProgress and ResumeScan (a position binds the index), Filter over the
// entity's fields (those the index carries), typed results decoded as a
// query of the index decodes them (fields in the keys parsed back on a
// KEYS_ONLY or INCLUDE index), and the TTL rule of every read.
// ConsistentRead applies on a local secondary index only.

// ScanIndex makes the pattern scan its index (given with On, a GSI or an
// LSI) whole, instead of querying one partition: the pattern takes no
// Partition and no sort condition, and is read with Scan (its Query, Get
// and All are refused). The entity must write keys into the index. Lint
// warns when the index holds every item of the entity (no When, no field
// whose absence leaves an item out).
func (p *Pattern[T]) ScanIndex() *Pattern[T] { return &Pattern[T]{d: p.d.withScan()} }

// checkScanDecl checks a ScanIndex declaration (after check).
func (d *readDecl) checkScanDecl() error {
	switch {
	case d.index == nil:
		return d.fail("ScanIndex scans an index: name it with On (a scan of the table is Entity.Scan)")
	case d.partRaw != "":
		return d.fail("ScanIndex reads the whole index: it takes no Partition")
	case d.sort != sortDefault:
		return d.fail("ScanIndex reads the whole index: it takes no %s", sortOpNames[d.sort])
	case d.descending:
		return d.fail("ScanIndex reads the whole index in no order: it takes no Descending")
	}
	return nil
}

// checkScan checks a scan of the index against the options: a strongly
// consistent read only on an LSI, the TTL rule (an index that does not
// carry the TTL attribute cannot leave expired items out), a filter on
// what the index carries.
func (d *readDecl) checkScan(op string, s *settings, c expiryCheck) error {
	fail := func(format string, args ...any) error {
		return &InputError{Op: op, Reason: fmt.Sprintf(format, args...)}
	}
	ix := d.index.index
	switch {
	case s.consistent && !ix.IsLocal():
		return fail("ConsistentRead: index %s is a global secondary index, which serves only eventually consistent reads", ix.Name)
	case c.attr != "" && !d.projects(c.attr):
		return fail("index %s (%s) does not project the TTL attribute %s, so expired items cannot be left out: add IncludeExpired(), or project %s into the index", ix.Name, ix.Projection, c.attr, c.attr)
	case !s.read.filter.IsZero():
		return d.checkFilter(op, s.read.filter)
	}
	return nil
}

// scanRequest resolves a scan of the pattern's index for one call.
func (d *readDecl) scanRequest(db *DB, opts []ScanOption) (*scanReq, error) {
	op := d.name
	if d.err != nil {
		return nil, d.err
	}
	if !d.scan {
		return nil, &InputError{Op: op, Reason: "the pattern queries one partition: Scan applies to patterns declared with ScanIndex"}
	}
	if err := d.checkDB(op, db); err != nil {
		return nil, err
	}
	s, err := collect(op, opts)
	if err != nil {
		return nil, err
	}
	return db.scanIndexRequest(op, d.entities[0], d, s)
}

// ScanInput is the first Scan request Scan sends (a dry run): with
// Segments, the first segment's.
func (p *Pattern[T]) ScanInput(db *DB, opts ...ScanOption) (*dynamodb.ScanInput, error) {
	return p.decl().scanInput(db, opts)
}

func (d *readDecl) scanInput(db *DB, opts []ScanOption) (*dynamodb.ScanInput, error) {
	r, err := d.scanRequest(db, opts)
	if err != nil {
		return nil, err
	}
	return r.First(), nil
}

// Scan iterates over every item of the entity in the index of a ScanIndex
// pattern, as Entity.Scan does over the table (segments, progress,
// resumable positions, Filter, expired items left out). On an index that
// does not carry the entity type (KEYS_ONLY), the items of other entities
// are told apart by their keys and left out. An error ends the iteration
// (a decoding error yields the error and goes on if the loop does);
// breaking out of the loop stops every segment.
func (p *Pattern[T]) Scan(ctx context.Context, db *DB, opts ...ScanOption) iter.Seq2[T, error] {
	return seqOf[T](p.decl().scanIndex(ctx, db, opts))
}

// scanIndex is the read of Pattern.Scan.
func (d *readDecl) scanIndex(ctx context.Context, db *DB, opts []ScanOption) readIter {
	return readIter{run: runIndexScan, ctx: ctx, db: db, d: d, more: &iterArgs{scanOpts: opts}}
}

// runIndexScan runs the read of Pattern.Scan (see readIter).
func runIndexScan(it readIter, dst reflect.Value, y itemYield) {
	d, db := it.d, it.db
	r, err := d.scanRequest(db, it.more.scanOpts)
	if err != nil {
		y.item(err)
		return
	}
	mem, typed := d.members[0], d.projects(d.table.schema.TypeAttr)
	r.each(it.ctx, db.via(r.meter, 0), func(item map[string]types.AttributeValue) bool {
		if r.expiry.expired(item) {
			return true
		}
		if !typed {
			// No type to filter on: the keys say whose item it is.
			if other, err := d.table.memberOf(r.Op, item); err != nil || other.m != mem.m {
				return true
			}
		} else if other, err := mem.m.otherByKeys(r.Op, item); other {
			return true // untyped, on a table read by its keys: not the entity's
		} else if err != nil {
			return y.item(err)
		}
		dst.SetZero()
		if err := mem.decode(r.Op, item, dst, !d.fullItems()); err != nil {
			dst.SetZero()
			return y.item(err)
		}
		return y.item(nil)
	}, func(err error) { dst.SetZero(); y.item(err) })
}

// sparseFor reports whether index entry ei leaves some items of entity m
// out: a When condition, or a key field whose absent value (a nil
// pointer, an empty string, a zero time) leaves the item out.
func sparseFor(m *entityModel, d *readDecl) bool {
	ei := d.members[0].ei
	return ei != nil && (ei.When != nil || len(absentFields(m, ei)) > 0)
}
