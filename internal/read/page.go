package read

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Querier sends a Query: the root's Client is one.
type Querier interface {
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Source is what the root adds to a read's items: which have expired, and
// the whole items of an index read with FetchFull.
type Source interface {
	// Expired reports whether item has expired: the read leaves it out.
	Expired(item map[string]types.AttributeValue) bool
	// FetchFull reads the whole items of index items, in their order (nil
	// for one deleted since), and how many requests that took.
	FetchFull(ctx context.Context, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, int, error)
	// Renew builds the read's first request again, maps and all: a
	// Client may have modified the maps of the requests it was given, so
	// every later request of the read is built from Renew's.
	Renew() (dynamodb.QueryInput, error)
}

// Req is a Query read resolved for one call: its first request, what its
// cursor is bound to, and what the paging loop needs.
type Req struct {
	Op string // the operation, for errors
	// Query is the read's first request. Its maps go to the Client with
	// it; later requests have maps of their own (see Later).
	Query   dynamodb.QueryInput
	Binding Binding
	Secret  []byte // seals the read's cursors
	// FetchBatch is how many items FetchFull reads at a time (DynamoDB's
	// BatchGetItem limit); 0: the read does not fetch.
	FetchBatch int
	// Src is what the root adds. A read that sends more than one request
	// needs it (Later).
	Src Source
}

// Later is a request of r after its first, from start (nil: the
// beginning): Query built again (Renew), sharing nothing with any request
// sent before, nor with start, which stays the caller's. A Client may
// modify the requests it is given, fields, maps and what pointers point to
// alike (the first request is r.Query itself): nothing it may have
// modified is used again.
func (r *Req) Later(start map[string]types.AttributeValue) (dynamodb.QueryInput, error) {
	in, err := r.Src.Renew()
	if err != nil {
		return in, err
	}
	in.ExclusiveStartKey = CopyItem(start)
	return in, nil
}

// KeyOf picks the key to resume after item from it.
func (r *Req) KeyOf(item map[string]types.AttributeValue) map[string]types.AttributeValue {
	return r.Binding.KeyOf(item)
}

// Cursor seals the key to resume from; "" at the end.
func (r *Req) Cursor(next map[string]types.AttributeValue) (string, error) {
	return SealCursor(r.Secret, &r.Binding, next)
}

// Emit takes one item of a read; left is how many items the response
// still holds for the read, this one included (a page sizes its slice from
// it). counted says whether the item counts toward the read's Limit; stop
// ends the read after it.
type Emit func(item map[string]types.AttributeValue, left int) (counted, stop bool, err error)

// OpError is an error of operation op, as the root reports a Client's.
func OpError(op string, err error) error { return &opError{op, err} }

// opError is OpError's: IsOpError tells it apart, so that a caller adds
// the operation to an error only once.
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return "singletable: " + e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// IsOpError reports whether err names its operation already (OpError).
func IsOpError(err error) bool {
	var e *opError
	return errors.As(err, &e)
}

// Run sends the read's Query and the pages after it, handing each item to
// emit, until want items were counted (0: no limit), emit stops, or the
// results end; with onePage and no want, it also ends after the first
// DynamoDB page that had a counted item. It adds what the read cost to
// scanned and requests, and returns the key to resume from: nil at the end.
// With want, each request's Limit is what readAhead makes of the
// responses before it.
func (r *Req) Run(ctx context.Context, client Querier, want int, onePage bool, scanned, requests *int, emit Emit) (map[string]types.AttributeValue, error) {
	start := r.Query.ExclusiveStartKey
	n := 0
	var ra readAhead
	for first := true; ; first = false {
		lim := 0
		if want > 0 {
			lim = ra.limit(want - n)
		}
		// The first page is the call's own request when it asks for what
		// the page needs; each later page is a request of its own, maps
		// and all (Later): a client may keep the requests it is given, as
		// a recorder or a logging wrapper does, or modify them.
		in := &r.Query
		if !first || (want > 0 && (in.Limit == nil || int(*in.Limit) != lim)) {
			c := r.Query
			if !first {
				var err error
				if c, err = r.Later(start); err != nil {
					return nil, OpError(r.Op, err)
				}
			}
			if want > 0 {
				c.Limit = aws.Int32(int32(lim))
			}
			in = &c
		}
		res, err := client.Query(ctx, in)
		*requests++
		if err != nil {
			return nil, OpError(r.Op, err)
		}
		*scanned += int(res.ScannedCount)
		items := res.Items
		pageCounted := 0
		for i := 0; i < len(items); {
			end := len(items)
			var full []map[string]types.AttributeValue
			if r.FetchBatch > 0 {
				end = min(end, i+r.FetchBatch)
				if want > 0 {
					end = min(end, i+want-n)
				}
				var reqs int
				full, reqs, err = r.Src.FetchFull(ctx, items[i:end])
				*requests += reqs
				if err != nil {
					return nil, err
				}
			}
			for j := i; j < end; j++ {
				item := items[j]
				if full != nil {
					if item = full[j-i]; item == nil {
						continue // deleted since the index was read
					}
				}
				if r.Src != nil && r.Src.Expired(item) {
					continue // uncounted: read ahead as for a filtered item
				}
				left := len(items) - j
				if want > 0 {
					left = min(left, want-n)
				}
				counted, stop, err := emit(item, left)
				if err != nil {
					return nil, err
				}
				if counted {
					n++
					pageCounted++
				}
				if stop || (want > 0 && n >= want) {
					if j == len(items)-1 {
						return res.LastEvaluatedKey, nil
					}
					return r.KeyOf(items[j]), nil
				}
			}
			i = end
		}
		if len(res.LastEvaluatedKey) == 0 {
			return nil, nil
		}
		ra.took(lim, int(res.ScannedCount), pageCounted)
		if start != nil && codec.EqualItems(res.LastEvaluatedKey, start) {
			// DynamoDB never does this; a Client that does (a mock answering
			// every call alike) would keep the read going for ever.
			return nil, fmt.Errorf("singletable: %s: the Client answered a Query with the key it was sent as ExclusiveStartKey as its LastEvaluatedKey: the read would never end", r.Op)
		}
		if onePage && want == 0 && pageCounted > 0 {
			return res.LastEvaluatedKey, nil
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start = res.LastEvaluatedKey
	}
}
