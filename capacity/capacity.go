// Package capacity measures and estimates what a singletable model costs
// in DynamoDB capacity units and dollars, per access pattern and per
// write:
//
//   - Into collects a call's consumed capacity, as DynamoDB reports it,
//     summed over every page, fan-out leg, batch request (retries
//     included) and transaction action, by table and by index;
//   - the estimates (ItemSize, WriteOf, MoveOf, ReadOf, Sheet) compute by
//     the service's rules what a value or a page of a pattern costs,
//     before any traffic;
//   - Model prices a traffic profile on demand and provisioned, with the
//     break-even, reserved capacity and storage;
//   - Compare sets the estimates against the units a run consumed (from
//     package observe's records), pattern by pattern;
//   - Count counts a pattern's items (Select COUNT) and what that cost.
//
// See docs/capacity.md.
package capacity

import (
	"errors"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Units are capacity units: read units (RCU, or on demand read request
// units) and write units (WCU, write request units).
type Units struct {
	Read, Write float64
}

// Total is Read plus Write.
func (u Units) Total() float64 { return u.Read + u.Write }

// Add returns u plus v.
func (u Units) Add(v Units) Units { return Units{u.Read + v.Read, u.Write + v.Write} }

// Consumed is the capacity one call (or several: see Add) consumed.
type Consumed struct {
	// Units is the total: every request's, the table's and its indexes'.
	Units
	// Table is the table's own units by table name (its indexes' not
	// included); Index the units of each global secondary index by name.
	// Nil until a request reported some.
	Table map[string]Units
	Index map[string]Units
	// Requests is how many requests reported, or were estimated.
	Requests int
	// Estimated is the part of Units the library estimated rather than
	// DynamoDB reported: requests it billed without saying how much (a
	// failed conditional write, a cancelled transaction; see EstimateOf).
	Estimated Units
}

// Add adds o to c.
func (c *Consumed) Add(o Consumed) {
	c.Units = c.Units.Add(o.Units)
	c.Estimated = c.Estimated.Add(o.Estimated)
	c.Requests += o.Requests
	for k, v := range o.Table {
		c.Table = addTo(c.Table, k, v)
	}
	for k, v := range o.Index {
		c.Index = addTo(c.Index, k, v)
	}
}

func addTo(m map[string]Units, k string, v Units) map[string]Units {
	if m == nil {
		m = map[string]Units{}
	}
	m[k] = m[k].Add(v)
	return m
}

// AddReported adds the consumed capacity of responses (nil ones are
// skipped) as DynamoDB reported them, of reads or writes, and returns the
// units added: for code that sends its own requests (package migrate).
func (c *Consumed) AddReported(write bool, ccs ...*types.ConsumedCapacity) float64 {
	before := c.Total()
	for _, cc := range ccs {
		if cc != nil {
			c.add(write, cc, false)
		}
	}
	return c.Total() - before
}

// add adds one response's consumed capacity.
func (c *Consumed) add(write bool, cc *types.ConsumedCapacity, estimated bool) {
	units := func(p *float64) Units {
		var f float64
		if p != nil {
			f = *p
		}
		if write {
			return Units{Write: f}
		}
		return Units{Read: f}
	}
	total := units(cc.CapacityUnits)
	c.Units = c.Units.Add(total)
	c.Requests++
	if estimated {
		c.Estimated = c.Estimated.Add(total)
	}
	table := ""
	if cc.TableName != nil {
		table = *cc.TableName
	}
	own := total
	if cc.Table != nil {
		own = units(cc.Table.CapacityUnits)
	}
	for name, ix := range cc.GlobalSecondaryIndexes {
		u := units(ix.CapacityUnits)
		c.Index = addTo(c.Index, name, u)
		if cc.Table == nil {
			own = Units{own.Read - u.Read, own.Write - u.Write}
		}
	}
	for name, ix := range cc.LocalSecondaryIndexes {
		c.Index = addTo(c.Index, name, units(ix.CapacityUnits))
	}
	c.Table = addTo(c.Table, table, own)
}

// Option is Into's option: it fits every operation of the core (each
// operation's option interface), the reads of packages that take query
// options (graph's relations), and graph's Link and Unlink (the two
// internal marks: graph.LinkOption and graph.UnlinkOption are sealed by
// them, so that of the core's options only Into is one).
type Option interface {
	st.GetOption
	st.PatternGetOption
	st.EntityQueryOption
	st.CollectionOption
	st.PutOption
	st.DeleteOption
	st.UpdateOption
	st.TxOption
	st.BatchGetOption
	st.BatchWriteOption
	st.ScanOption
	bridge.GraphLinkOption
	bridge.GraphUnlinkOption
}

// Into makes every request of the call it is given to ask DynamoDB for
// its consumed capacity (ReturnConsumedCapacity INDEXES), and adds what
// each reports to *c: every page of a query, every leg of a fan-out,
// every request of a batch (its retries included), a transaction's
// actions, an Update's read before its write. When the call fails with a
// failed condition or a cancelled transaction, which DynamoDB bills
// without reporting, c gets the library's estimate, counted in
// c.Estimated too. Requests are sent, and their golden files read,
// exactly as without it but for that one field.
//
// Concurrent calls may share one option value (it locks while it adds);
// two Into options must not share a c. Read c after the call returns (an
// All or Scan iterator: after the loop). Into(nil) is a nil option, which
// every operation refuses with an *singletable.InputError
// (ErrInvalidInput) before sending anything.
func Into(c *Consumed) Option {
	if c == nil {
		return nil
	}
	return bridge.Capacity.Option(&sink{c: c}).(Option)
}

// Total is a DB option that makes every request of the DB ask for its
// consumed capacity and adds it to *c: the DB-wide default of Into, for a
// process, a test or a load test that wants one total (by table and by
// index). c is locked while a request adds to it: read it when no
// request is in flight. Calls given Into collect their own too. A DB
// derived with DB.WithClient keeps it.
func Total(c *Consumed) st.DBOption {
	if c == nil {
		panic(&st.InputError{Op: "capacity.Total", Reason: "the Consumed is nil"})
	}
	return bridge.Capacity.Observe(&bridge.Observer{Capacity: true, Sink: &sink{c: c}}).(st.DBOption)
}

// sink is Into's bridge.Sink.
type sink struct {
	mu sync.Mutex
	c  *Consumed
}

func (s *sink) Add(write bool, cc *types.ConsumedCapacity, estimated bool) {
	s.mu.Lock()
	s.c.add(write, cc, estimated)
	s.mu.Unlock()
}

// EstimateOf returns the library's estimate of what the request that
// failed with err consumed, when DynamoDB billed it without reporting it
// (a *singletable.ConditionError or VersionConflictError of a failed
// condition, a *singletable.TxError of a cancelled transaction), and the
// call was metered (Into, or a DB observer: see package observe). It is
// an estimate: DynamoDB bills a failed write by the size of the item it
// checked, which the library knows only when the failure returned it.
func EstimateOf(err error) (Units, bool) {
	var e *bridge.EstimatedError
	if !errors.As(err, &e) {
		return Units{}, false
	}
	return Units{Read: e.Read, Write: e.Write}, true
}
