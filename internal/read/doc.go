// Package read is the read engine behind the root package's Query, All,
// Sum and Scan: the one paging loop (Req.Run), the fan-out over shards and
// time buckets (Fan), the sealed tokens that resume a read (cursors,
// fan-out cursors, scan positions) and the segmented walk of a Scan
// (Walk).
//
// It works on SDK requests and item maps, and on the small interfaces the
// root gives it (Source: an item's expiry, FetchFull); it never imports
// the root package. The root builds the requests (keys, conditions,
// projections), decodes the items and makes its public errors of what the
// engine returns: a *Refusal (a token that cannot resume a read) becomes a
// *CursorError.
package read
