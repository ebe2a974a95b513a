package read

// readAheadCap bounds the Limit a read ahead asks for: past it a 1 MB
// DynamoDB page ends a response before its Limit does, for items over 16
// bytes, so a greater Limit would only read further when it is not needed.
const readAheadCap = 1 << 16

// maxLimit is the greatest Limit a request takes (an int32).
const maxLimit = 1 << 30

// readAhead sizes the Limit of a read's requests after its first, from
// what the responses before it counted. A response with no item left out
// keeps the Limit at the items still wanted. Otherwise the Limit is
// estimated from recent responses, not from the whole read, whose dense
// start would hide a sparse stretch: the items still wanted times the
// last response's ratio of items read to items counted; after a response
// that counted none, the items still wanted times the items read since
// the last one that counted (as if one more had matched), and at least
// twice the last Limit and at least what the read has read so far, so
// that a read across s items left out sends about log2(s) requests. It
// reads at most four times what the read has read so far, so that a page
// reads at most a few times the items it needs, and at most readAheadCap.
type readAhead struct {
	last     int // the last request's Limit
	read     int // the items the read's responses read (ScannedCount)
	winRead  int // the items read since the last response that counted one, it included
	winCount int // the items that response counted; 0: none since the read began
}

// took records a response to a request of limit that read scanned items
// and counted counted of them.
func (ra *readAhead) took(limit, scanned, counted int) {
	scanned = max(scanned, counted) // a Client may leave ScannedCount out
	if scanned == 0 {
		return // nothing to estimate from
	}
	ra.last = limit
	ra.read = min(ra.read+scanned, maxLimit)
	switch {
	case counted > 0:
		ra.winRead, ra.winCount = scanned, counted
	case ra.winCount > 0:
		ra.winRead, ra.winCount = scanned, 0
	default:
		ra.winRead = min(ra.winRead+scanned, maxLimit)
	}
}

// limit is the next request's Limit, rem items still wanted.
func (ra *readAhead) limit(rem int) int {
	if ra.winRead == ra.winCount { // the first request, or none left out
		return min(rem, maxLimit)
	}
	var est int
	if ra.winCount > 0 {
		est = mulSat(rem, (ra.winRead+ra.winCount-1)/ra.winCount)
	} else {
		est = max(mulSat(rem, ra.winRead), mulSat(2, ra.last), ra.read)
	}
	est = min(est, mulSat(4, ra.read), readAheadCap)
	return min(max(rem, est), maxLimit)
}

// mulSat is a*b for non-negative a and b, at most maxLimit.
func mulSat(a, b int) int {
	if a != 0 && b > maxLimit/a {
		return maxLimit
	}
	return min(a*b, maxLimit)
}
