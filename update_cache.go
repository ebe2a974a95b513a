package singletable

import (
	"sync"

	"github.com/singletable/singletable/internal/expr"
)

// updateCache is what an entity's updates share from one call to the next,
// so that an update of a shape seen before (the same changes to the same
// fields, the same options and condition) allocates only what depends on
// its values:
//
//   - shared interns the update and condition expressions, keyed by their
//     whole content: a request that takes one is byte for byte the
//     request it would have built, whatever its values did to its shape
//     (an omitempty zero that becomes a REMOVE, a sparse index left, a
//     When condition), so no value-dependent shape can be served a wrong
//     plan. It is bounded (expr.MaxShared) and lock-free to read. Maps are
//     never shared: each request's are its own, for its Client to modify.
//   - shapes holds what planChanges works out from an update's shape
//     alone (see changeShape), keyed by that shape; bounded like shared.
//   - builders recycles the expression builders of updates (a builder
//     escapes to the heap, conditions rendering through interfaces); what
//     a request keeps of one (its maps) is handed over, not recycled.
//
// The zero value is ready to use; it is safe for concurrent use.
type updateCache struct {
	shared   expr.Shared
	shapes   expr.Table[*changeShape]
	builders sync.Pool // of *expr.Builder sharing shared, reset when put back
}

// builder returns an empty expression builder sharing the cache's
// expressions, for releaseBuilder once the plan is made.
func (c *updateCache) builder() *expr.Builder {
	if b, ok := c.builders.Get().(*expr.Builder); ok {
		return b
	}
	b := new(expr.Builder)
	b.ShareNames(&c.shared)
	return b
}

// releaseBuilder recycles b, whose request holds what it needs of it.
func (c *updateCache) releaseBuilder(b *expr.Builder) {
	b.Reset()
	c.builders.Put(b)
}
