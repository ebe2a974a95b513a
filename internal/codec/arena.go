package codec

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// arena hands out the attribute values and number/time strings of one
// encoding from a few slabs instead of one allocation each. A nil arena
// allocates every value on its own (for single values). Values are
// never moved or reused: a slab that fills up is left to the values that
// point into it and a new one is started, and the byte buffer is only ever
// appended to, so the strings taken from it stay immutable.
//
// What it buys: an item's attribute values and formatted numbers cost a
// few allocations (a slab per member type, a buffer) instead of one per
// attribute, the bulk of what Put, a batch or an update would otherwise
// allocate. text's unsafe.String is what keeps a number's string from
// being copied out of the buffer: safe since the bytes it covers are
// never written again.
type arena struct {
	ss   []types.AttributeValueMemberS
	ns   []types.AttributeValueMemberN
	bs   []types.AttributeValueMemberBOOL
	nuls []types.AttributeValueMemberNULL
	ls   []types.AttributeValueMemberL // lists and maps: their members (the
	ms   []types.AttributeValueMemberM // slices and maps are their own)
	buf  []byte
	used sizes // what this encoding took, to size the next one
	hint *sizes
	// In a Shared arena: base is what the items before this one took
	// (used-base is this item's use), and left the items still to encode,
	// this one included, at least 2 (see slabSize); 1 in an arena of one
	// encoding.
	base sizes
	left int
	// last is the plan's hint, which remember updates; hint is last, or in
	// a Shared arena own: last with no zero count (see slabSize).
	last *sizes
	own  sizes
}

// arenas recycles arena headers between encodings. The values an encoding
// hands out point into the slabs, never into the header, so once its slabs
// are dropped (release) a header can serve the next encoding: one
// allocation less per item.
var arenas = sync.Pool{New: func() any { return new(arena) }}

// newArena returns an empty arena sized by hint.
func newArena(hint *sizes) *arena {
	a := arenas.Get().(*arena)
	a.hint, a.last, a.left = hint, hint, 1
	return a
}

// release drops the arena's slabs, which the encoded values keep alive,
// and recycles the header.
func (a *arena) release() {
	*a = arena{}
	arenas.Put(a)
}

// Room lends the values of single encodings (an update's values, one at
// a time) memory its caller allocated with something else (the update's
// action), so that each value costs no allocation of its own while the
// room lasts; past it, values come from slabs as an arena's do. What it
// buys: an allocation per value an update gives (two or three per
// update). The zero Room allocates every value on its own.
type Room struct{ a *arena }

// noHint sizes a room's slabs once its own are full: by use alone.
var noHint sizes

// NewRoom returns a Room that hands out ss and ns first (from index 0;
// their lengths are ignored), to Release once the encodings are done:
// the values stay where they are, in ss, ns and the slabs.
func NewRoom(ss []types.AttributeValueMemberS, ns []types.AttributeValueMemberN) Room {
	a := newArena(&noHint)
	a.ss, a.ns = ss[:0:cap(ss)], ns[:0:cap(ns)]
	return Room{a}
}

// Release recycles the room's header; the values it handed out stay.
func (r Room) Release() {
	if r.a != nil {
		r.a.release()
	}
}

// S is a string value from the room.
func (r Room) S(v string) types.AttributeValue { return r.a.s(v) }

// N is a number value from the room.
func (r Room) N(v string) types.AttributeValue { return r.a.n(v) }

// sizes counts arena use: per member type, and bytes of formatted text;
// keys is the text an item's caller took for its keys (NoteKeyText), for
// which the buffer has room too.
type sizes struct {
	s, n, b, null, l, m, buf, keys int32
}

// minus is s less base, with keys.
func (s sizes) minus(base sizes, keys int32) sizes {
	return sizes{s.s - base.s, s.n - base.n, s.b - base.b, s.null - base.null, s.l - base.l, s.m - base.m, s.buf - base.buf, keys}
}

// arenaSizes remembers, per plan, what its last encoding used.
type arenaSizes struct{ last atomic.Pointer[sizes] }

func (h *arenaSizes) get() *sizes {
	if s := h.last.Load(); s != nil {
		return s
	}
	return &sizes{}
}

// remember records what the arena used for the item just encoded if it
// differs from the hint.
func (h *arenaSizes) remember(a *arena) {
	if used := a.used.minus(a.base, a.last.keys); used != *a.last {
		u := used // escapes: a copy only when stored
		h.last.Store(&u)
	}
}

// noteKeys records the text an item's keys took when it is more than the
// hint, or well under it: keys of varying length store a hint now and then,
// not every time.
func (h *arenaSizes) noteKeys(n int32) {
	if s := h.get(); n > s.keys || n < s.keys/2 {
		u := *s
		u.keys = n
		h.last.Store(&u)
	}
}

// maxSlab bounds the slab sizes taken from hints, so that one large item
// does not make the next small ones allocate large slabs.
const maxSlab = 256

// slabSize sizes a new slab of a member type, from the hint (what the
// item's plan took last time) and what the arena used so far: the first
// slab holds what the hint says, later ones double the total. A Shared
// arena (left > 1: items still to come; its hints are never 0) sizes every
// slab by the hint, for as many items as are left. left is 1 in an item's
// own arena. (Written so that the value functions below, which call it,
// stay within the inlining budget.)
func slabSize(hint, used int32, left int) int {
	if hint > used*int32(2-left) { // used == 0, or a Shared arena (left > 1)
		return min(int(hint)*left, maxSlab)
	}
	return max(int(used), 4) // later slabs double the total
}

// s, n, bool and null are written out per member type rather than through
// one generic helper: as they are, each inlines into the field encoders
// (the hottest path of Put), which a shared helper prevents.

func (a *arena) s(v string) types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberS{Value: v}
	}
	if len(a.ss) == cap(a.ss) {
		a.ss = make([]types.AttributeValueMemberS, 0, slabSize(a.hint.s, a.used.s, a.left))
	}
	a.used.s++
	a.ss = append(a.ss, types.AttributeValueMemberS{Value: v})
	return &a.ss[len(a.ss)-1]
}

// take returns n zero string values from the slab (a new one when it has
// no room for them), for the caller to fill in. They count as used, so
// that the next encoding's first slab has room for them too.
func (a *arena) take(n int) []types.AttributeValueMemberS {
	if cap(a.ss)-len(a.ss) < n {
		a.ss = make([]types.AttributeValueMemberS, 0, max(n, slabSize(a.hint.s, a.used.s, a.left)))
	}
	a.used.s += int32(n)
	start := len(a.ss)
	a.ss = a.ss[:start+n]
	return a.ss[start : start+n : start+n]
}

func (a *arena) n(v string) types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberN{Value: v}
	}
	if len(a.ns) == cap(a.ns) {
		a.ns = make([]types.AttributeValueMemberN, 0, slabSize(a.hint.n, a.used.n, a.left))
	}
	a.used.n++
	a.ns = append(a.ns, types.AttributeValueMemberN{Value: v})
	return &a.ns[len(a.ns)-1]
}

// number is N, or S with the `string` tag option.
func (a *arena) number(v string, asString bool) types.AttributeValue {
	if asString {
		return a.s(v)
	}
	return a.n(v)
}

func (a *arena) bool(v bool) types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberBOOL{Value: v}
	}
	if len(a.bs) == cap(a.bs) {
		a.bs = make([]types.AttributeValueMemberBOOL, 0, slabSize(a.hint.b, a.used.b, a.left))
	}
	a.used.b++
	a.bs = append(a.bs, types.AttributeValueMemberBOOL{Value: v})
	return &a.bs[len(a.bs)-1]
}

func (a *arena) null() types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberNULL{Value: true}
	}
	if len(a.nuls) == cap(a.nuls) {
		a.nuls = make([]types.AttributeValueMemberNULL, 0, slabSize(a.hint.null, a.used.null, a.left))
	}
	a.used.null++
	a.nuls = append(a.nuls, types.AttributeValueMemberNULL{Value: true})
	return &a.nuls[len(a.nuls)-1]
}

// nestSlab sizes a slab of lists or maps as slabSize does, but for a
// first one without a hint (an update's value, a first encoding): one
// member, as many items have none or one.
func nestSlab(hint, used int32, left int) int {
	if used == 0 && hint == 0 {
		return 1
	}
	return slabSize(hint, used, left)
}

// l and m are a list's and a map's member: a wide item's lists, maps
// and nested structs cost an allocation each for their elements, not
// two.
func (a *arena) l(v []types.AttributeValue) types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberL{Value: v}
	}
	if len(a.ls) == cap(a.ls) {
		a.ls = make([]types.AttributeValueMemberL, 0, nestSlab(a.hint.l, a.used.l, a.left))
	}
	a.used.l++
	a.ls = append(a.ls, types.AttributeValueMemberL{Value: v})
	return &a.ls[len(a.ls)-1]
}

func (a *arena) m(v map[string]types.AttributeValue) types.AttributeValue {
	if a == nil {
		return &types.AttributeValueMemberM{Value: v}
	}
	if len(a.ms) == cap(a.ms) {
		a.ms = make([]types.AttributeValueMemberM, 0, nestSlab(a.hint.m, a.used.m, a.left))
	}
	a.used.m++
	a.ms = append(a.ms, types.AttributeValueMemberM{Value: v})
	return &a.ms[len(a.ms)-1]
}

// grow makes room for n more bytes of text without moving bytes already
// handed out (a full buffer is left to its strings, not copied).
func (a *arena) grow(n int) {
	if cap(a.buf)-len(a.buf) < n {
		a.newBuf(n)
	}
}

// newBuf starts a buffer with room for n bytes (grow's slow path, apart
// so that grow inlines).
func (a *arena) newBuf(n int) {
	// Sized by the last encoding's use (its text and its keys') when there
	// is one; 64 bytes (a few numbers) without a hint. A Shared arena's
	// holds the items still to come.
	want := a.hint.buf + a.hint.keys
	size := max(n, min(int(want), 16*maxSlab)-int(a.used.buf))
	if want == 0 {
		size = max(size, 64)
	}
	switch {
	case a.left > 0 && want > 0:
		size = max(n, min(int(want)*a.left, 16*maxSlab))
	case a.left > 0:
		size = max(n, 64)
	case a.used.buf > 0:
		size = max(n, 2*int(a.used.buf))
	}
	a.buf = make([]byte, 0, size)
}

// spare makes room for n more bytes of text and returns the buffer's
// room, length 0, for an item's keys (see Plan.EncodeItem).
func (a *arena) spare(n int) []byte {
	a.grow(n)
	return a.buf[len(a.buf):len(a.buf)]
}

// keep counts the first n bytes of the buffer's room as taken (the keys'
// text): a Shared arena's next item appends after them.
func (a *arena) keep(n int) {
	a.buf = a.buf[:len(a.buf)+n]
}

// text returns the bytes appended to a.buf since start as a string.
func (a *arena) text(start int) string {
	n := len(a.buf) - start
	a.used.buf += int32(n)
	return unsafe.String(&a.buf[start], n)
}

func (a *arena) appendInt(x int64) string {
	if a == nil || 0 <= x && x < 100 {
		return strconv.FormatInt(x, 10) // static strings
	}
	a.grow(20)
	start := len(a.buf)
	a.buf = strconv.AppendInt(a.buf, x, 10)
	return a.text(start)
}

func (a *arena) appendUint(x uint64) string {
	if a == nil || x < 100 {
		return strconv.FormatUint(x, 10)
	}
	a.grow(20)
	start := len(a.buf)
	a.buf = strconv.AppendUint(a.buf, x, 10)
	return a.text(start)
}

func (a *arena) appendFloat(x float64, bits int) string {
	// Most floats format in 24 bytes; longer ones (1e300 as 'f' has 301
	// digits) may make append move the buffer, which is harmless: earlier
	// strings keep the old one.
	if a == nil {
		return strconv.FormatFloat(x, 'f', -1, bits)
	}
	a.grow(24)
	start := len(a.buf)
	a.buf = strconv.AppendFloat(a.buf, x, 'f', -1, bits)
	return a.text(start)
}

func (a *arena) appendTime(t time.Time) string {
	if a == nil {
		return t.Format(time.RFC3339Nano)
	}
	a.grow(len(time.RFC3339Nano) + 10)
	start := len(a.buf)
	a.buf = t.AppendFormat(a.buf, time.RFC3339Nano)
	return a.text(start)
}
