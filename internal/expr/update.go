package expr

import "strings"

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
// empty and ready to use. Each clause is written (keyword first) as its
// actions come: no string per action to join later.
type Update struct {
	clauses [4]strings.Builder
	actions int // how many actions the caller expects, to size a clause once
}

// Expect says about how many actions the expression will hold, so that a
// clause's buffer is allocated once at the right size.
func (u *Update) Expect(actions int) { u.actions = actions }

// Act adds one action, the concatenation of parts, to clause c:
// Act(ClauseSet, "#n0", " = ", ":v0").
func (u *Update) Act(c Clause, parts ...string) {
	w := &u.clauses[c]
	if w.Len() == 0 {
		n := 64
		if u.actions > 0 {
			n = 32 + 16*u.actions
		}
		w.Grow(n) // one allocation for most clauses
		w.WriteString(clauseKeywords[c])
	} else {
		w.WriteString(", ")
	}
	for _, s := range parts {
		w.WriteString(s)
	}
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

// String is the update expression: the non-empty clauses, space separated.
// A single clause (the usual SET) is returned as written.
func (u *Update) String() string {
	n, last := 0, -1
	for i := range u.clauses {
		if l := u.clauses[i].Len(); l > 0 {
			n += l + 1
			last = i
		}
	}
	if last < 0 {
		return ""
	}
	if n == u.clauses[last].Len()+1 {
		return u.clauses[last].String()
	}
	var update strings.Builder
	update.Grow(n - 1)
	for i := range u.clauses {
		if u.clauses[i].Len() == 0 {
			continue
		}
		if update.Len() > 0 {
			update.WriteByte(' ')
		}
		update.WriteString(u.clauses[i].String())
	}
	return update.String()
}
