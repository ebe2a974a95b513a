package expr

// Clause is one clause of an update expression. Clauses are written in
// this order.
type Clause int

// The clauses of an update expression.
const (
	ClauseSet Clause = iota
	ClauseRemove
	ClauseAdd
	ClauseDelete
)

var clauseKeywords = [...]string{ClauseSet: "SET ", ClauseRemove: "REMOVE ", ClauseAdd: "ADD ", ClauseDelete: "DELETE "}

// Update assembles an update expression from its actions. The zero value is
// empty and ready to use. Actions are written one after another into one
// buffer held in the Update itself, each remembered as a segment of its
// clause, and put in clause order only by Append: an Update on the stack
// costs no allocation until its actions outgrow the buffer.
type Update struct {
	buf  [320]byte
	n    int    // bytes of buf used
	more []byte // every action written, once buf is full
	segs [24]segment
	nseg int
	// moreSegs holds every segment once segs is full.
	moreSegs []segment
}

// segment is one action: its clause and where its text is.
type segment struct {
	clause     Clause
	start, end int
}

// Act adds one action, the concatenation of parts, to clause c:
// Act(ClauseSet, "#n0", " = ", ":v0").
func (u *Update) Act(c Clause, parts ...string) {
	start := u.len()
	for _, s := range parts {
		u.write(s)
	}
	seg := segment{c, start, u.len()}
	switch {
	case u.moreSegs != nil:
		u.moreSegs = append(u.moreSegs, seg)
	case u.nseg < len(u.segs):
		u.segs[u.nseg] = seg
	default:
		u.moreSegs = append(append(make([]segment, 0, 2*len(u.segs)), u.segs[:]...), seg)
	}
	u.nseg++
}

func (u *Update) len() int {
	if u.more != nil {
		return len(u.more)
	}
	return u.n
}

func (u *Update) write(s string) {
	if u.more == nil {
		if u.n+len(s) <= len(u.buf) {
			u.n += copy(u.buf[u.n:], s)
			return
		}
		u.more = append(make([]byte, 0, 2*len(u.buf)+len(s)), u.buf[:u.n]...)
	}
	u.more = append(u.more, s...)
}

// The operands an action template (see Template) stands for.
const (
	OperandPath  = "$p" // the attribute path
	OperandValue = "$v" // the change's value
	OperandConst = "$k" // a constant the action reads (an empty list, a zero)
)

// Template adds to clause c the action whose parts are action, with
// OperandPath, OperandValue and OperandConst replaced by path, v and k:
// Template(ClauseSet, []string{"$p", " = if_not_exists(", "$p", ", ", "$v", ")"}, "#n0", ":v0", "").
func (u *Update) Template(c Clause, action []string, path, v, k string) {
	var buf [8]string
	parts := buf[:0]
	for _, part := range action {
		switch part {
		case OperandPath:
			part = path
		case OperandValue:
			part = v
		case OperandConst:
			part = k
		}
		parts = append(parts, part)
	}
	u.Act(c, parts...)
}

// Append appends the update expression to dst: the non-empty clauses in
// order, space separated, each its keyword and its actions comma
// separated. An empty Update appends nothing.
func (u *Update) Append(dst []byte) []byte {
	text, segs := u.buf[:u.n], u.segs[:min(u.nseg, len(u.segs))]
	if u.more != nil {
		text = u.more
	}
	if u.moreSegs != nil {
		segs = u.moreSegs
	}
	start := len(dst)
	for c := range clauseKeywords {
		first := true
		for _, s := range segs {
			if s.clause != Clause(c) {
				continue
			}
			switch {
			case !first:
				dst = append(dst, ", "...)
			case len(dst) > start:
				dst = append(dst, ' ')
				fallthrough
			default:
				dst = append(dst, clauseKeywords[c]...)
			}
			first = false
			dst = append(dst, text[s.start:s.end]...)
		}
	}
	return dst
}

// String is the update expression (see Append).
func (u *Update) String() string {
	var buf [512]byte
	return string(u.Append(buf[:0]))
}
