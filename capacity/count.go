package capacity

import (
	"context"
	"fmt"
	"maps"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Counted is what Count found.
type Counted struct {
	// Count is the items that matched (after the filter); Scanned the
	// items read, which is what DynamoDB bills.
	Count, Scanned int
	// Requests is the Query requests sent: pages times legs.
	Requests int
	// Consumed is what the count cost, as DynamoDB reported it.
	Consumed Consumed
}

// Count counts the items of pattern p for params without returning them:
// the requests Query would send (the same key condition, Filter, After
// cursor, and every leg of a pattern that fans out over shards or time
// buckets, one after the other), each asking for Select COUNT and read
// page by page to the end, and what that cost. DynamoDB bills a count as
// the read of the items it counts: it saves the transfer, not the units.
//
// Items that have expired but that DynamoDB has not deleted yet are
// counted (a read leaves them out as it decodes, which a count does not);
// filter on the expiry field to leave them out. Count counts every item
// the pattern selects: Limit does not apply (an *singletable.InputError
// naming it; DynamoDB's pages are up to 1 MB each), nor does Project, nor
// a GetItem pattern, which reads one item (use Get).
// Requests go through the DB's observer as a read of the pattern.
func Count[T any](ctx context.Context, db *st.DB, p *st.Pattern[T], params T, opts ...st.QueryOption) (Counted, error) {
	return count(ctx, db, p, func() ([]*dynamodb.QueryInput, error) { return p.QueryInputs(db, params, opts...) })
}

// CountBetween is Count for a SortBetween pattern's bounds from and to.
func CountBetween[T any](ctx context.Context, db *st.DB, p *st.Pattern[T], from, to T, opts ...st.QueryOption) (Counted, error) {
	return count(ctx, db, p, func() ([]*dynamodb.QueryInput, error) { return p.QueryBetweenInputs(db, from, to, opts...) })
}

func count[T any](ctx context.Context, db *st.DB, p *st.Pattern[T], inputs func() ([]*dynamodb.QueryInput, error)) (Counted, error) {
	op := "capacity.Count"
	var out Counted
	if p == nil || db == nil {
		return out, &st.InputError{Op: op, Reason: "the pattern or the DB is nil"}
	}
	if p.Operation() == "GetItem" {
		return out, &st.InputError{Op: op, Reason: fmt.Sprintf("pattern %s reads one item with GetItem: use Get", p.Name())}
	}
	ins, err := inputs()
	if err != nil {
		return out, err
	}
	for _, in := range ins {
		if in.ProjectionExpression != nil {
			return out, &st.InputError{Op: op, Reason: "Project does not apply to a count"}
		}
		if in.Limit != nil {
			// A page size would only multiply the requests (and the
			// minimum units each bills): a count reads to the end.
			return out, &st.InputError{Op: op, Reason: "Limit does not apply to a count: it counts every item the pattern selects"}
		}
	}
	entity := ""
	if d := bridge.Capacity.Pattern(p); d != nil && len(d.Entities) == 1 {
		entity = d.Entities[0]
	}
	s := &sink{c: &out.Consumed}
	c := bridge.Capacity.Client(db, p.Name(), entity, p.Name(), p.Index(), s).(st.Client)
	for _, first := range ins {
		start := first.ExclusiveStartKey
		for {
			// Each request its own maps: a Client may modify those it is
			// given.
			in := *first
			in.Select = types.SelectCount
			in.ExpressionAttributeNames = maps.Clone(first.ExpressionAttributeNames)
			in.ExpressionAttributeValues = maps.Clone(first.ExpressionAttributeValues)
			in.ExclusiveStartKey = maps.Clone(start)
			res, err := c.Query(ctx, &in)
			out.Requests++
			if err != nil {
				return out, fmt.Errorf("singletable: %s %s: %w", op, p.Name(), err)
			}
			out.Count += int(res.Count)
			out.Scanned += int(res.ScannedCount)
			if len(res.LastEvaluatedKey) == 0 {
				break
			}
			start = res.LastEvaluatedKey
			if err := ctx.Err(); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
