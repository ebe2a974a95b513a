package singletable

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"reflect"

	"github.com/singletable/singletable/internal/model"
	writes "github.com/singletable/singletable/internal/write"
)

// Write sharding
//
// A partition that takes more writes than one DynamoDB partition serves
// (1,000 write units a second) is spread over N partitions by a shard
// number 0..N-1 in its key: the seeds' page-view counter
// ("PAGEVIEW#{PageID}#{Shard}") or hot status index ("STATUS#{Status}#{Shard}").
// The shard number is an integer field of the struct, written in the key
// templates like any other field, and declared with Shards:
//
//	Key("PAGEVIEW#{PageID}#{Shard}", "COUNTER"), Shards("Shard", 10)           // chosen by the writer
//	Index("GSI1", "STATUS#{Status}#{Shard}", "{ID}"), Shards("Shard", 10).By("ID") // a hash of ID
//
// With By, the library derives the shard from the named fields (FNV-1a of
// their values as written in keys, modulo N) on every operation that renders
// a key (Put, Create, Update, Delete, Get, transactions, batches), so a
// caller never sets it and Get finds the item from its other key fields.
// Without By, the value carries its shard: every operation uses the one it
// holds (0..N-1, checked before sending; reads decode it from the item), and
// a write that may create the item picks one at random when given
// RandomShard: the counter is
//
//	PageViews.Update(ctx, db, PageView{PageID: id}, Increment("Views", 1), Upsert(), RandomShard())
//
// A pattern whose partition reads the shard field (rather than fixing it
// to a literal) reads all N shards in parallel and merges them: see
// Pattern and FanOutConcurrency; Sum adds up a field over them.
//
// Changing N is a documented path (docs/access-patterns.md, "Changing the
// number of shards"): Previously declares the old count, so that reads fan
// out over both while the items move.

// ShardSpec declares an entity's shard field: see Shards. It is an
// EntityOption.
type ShardSpec struct {
	spec model.ShardSpec
}

// Shards declares that integer field field holds a shard number from 0 to
// n-1, written in one or more of the entity's key templates. See ShardSpec.By
// for hashed shards and RandomShard for random ones.
func Shards(field string, n int) ShardSpec {
	return ShardSpec{model.ShardSpec{Field: field, N: n}}
}

// By derives the shard from fields (of the primary key, so that an item's
// shard never changes): FNV-1a of their values as written in keys, modulo
// the shard count. The library sets the shard field on every write and key
// it renders.
func (s ShardSpec) By(fields ...string) ShardSpec {
	s.spec.By, s.spec.HasBy = append([]string(nil), fields...), true
	s.spec.ByCalled++
	return s
}

// Previously declares the shard count before a change of n: reads fan out
// over max(n, old) shards and accept shard numbers up to it, while writes
// use n, until every item has moved (see docs/access-patterns.md). With
// By, a pattern read given By's fields reads their shard under each count.
func (s ShardSpec) Previously(old int) ShardSpec {
	s.spec.Prev, s.spec.HasPrev = old, true
	return s
}

func (s ShardSpec) applyEntity(e *entitySpec) {
	e.model.Shard = &s.spec
	e.model.ShardCalls++
}

// chooseShard sets a random shard into v (addressable) when the write asks
// for one with RandomShard.
func (m *entityModel) chooseShard(op string, v reflect.Value, s *settings) error {
	if !s.write.randomShard {
		return nil
	}
	switch {
	case m.Shard == nil:
		return &InputError{Op: op, Reason: "RandomShard: entity " + m.Name + " declares no Shards"}
	case m.Shard.By != nil:
		return &InputError{Op: op, Reason: fmt.Sprintf("RandomShard: entity %s derives its shard from %s (By)", m.Name, m.shardByNames())}
	}
	model.SetShard(v.FieldByIndex(m.Shard.Field.Index), rand.IntN(m.Shard.N))
	return nil
}

func (m *entityModel) shardByNames() string { return writes.ShardByNames(m.Entity) }

// RandomShard makes Put, Create, Update (and their transaction forms) of an
// entity sharded without By write to a shard chosen at random among the
// current count (see Shards), whatever the value's shard field holds: the
// seed's counter increments a random shard with Update, Increment, Upsert
// and RandomShard. Update returns the item, shard included. On an entity
// without Shards, or one sharded By fields, it is an ErrInvalidInput.
func RandomShard() interface {
	PutOption
	UpdateOption
} {
	return shardOpt{}
}

// Sum adds up value over every item pattern p reads for params (All, with
// its options): over all the shards of a pattern that fans out, the seed's
// page-view total. A read of more legs than the fan-out ceiling is refused
// before sending: see MaxFanOutRequests. N is any integer or
// floating-point type.
//
//	views, err := singletable.Sum(ctx, db, PageViewShards, PageView{PageID: "p1"},
//		func(v PageView) int64 { return v.Views })
func Sum[T any, N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](ctx context.Context, db *DB, p *Pattern[T], params T, value func(T) N, opts ...QueryOption) (N, error) {
	if value == nil {
		return 0, nilValueFunc("Sum")
	}
	return sum(seqOf[T](p.decl().all(ctx, db, reflect.ValueOf(&params).Elem(), reflect.Value{}, opts, true)), value)
}

// SumBetween adds up value over every item a SortBetween pattern reads
// from from to to (AllBetween, with its options): over every time bucket
// and shard the range touches, such as the readings of the last 24 hours;
// bound by the fan-out ceiling as Sum is.
//
//	total, err := singletable.SumBetween(ctx, db, ReadingsBetween,
//		Reading{Device: "d1", At: now.Add(-24 * time.Hour)}, Reading{At: now},
//		func(r Reading) float64 { return r.Value })
func SumBetween[T any, N ~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64](ctx context.Context, db *DB, p *Pattern[T], from, to T, value func(T) N, opts ...QueryOption) (N, error) {
	if value == nil {
		return 0, nilValueFunc("SumBetween")
	}
	return sum(seqOf[T](p.decl().all(ctx, db, reflect.ValueOf(&from).Elem(), reflect.ValueOf(&to).Elem(), opts, true)), value)
}

// number is the numeric types Sum adds up (spelled out in Sum's and
// SumBetween's signatures, so that the package exports no name for it).
type number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// nilValueFunc is the error of a Sum given no function: refused before
// any request, rather than failing at the first item read.
func nilValueFunc(op string) error {
	return &InputError{Op: op, Reason: "the value function is nil"}
}

func sum[T any, N number](items iter.Seq2[T, error], value func(T) N) (N, error) {
	var total N
	for v, err := range items {
		if err != nil {
			return 0, err
		}
		total += value(v)
	}
	return total, nil
}
