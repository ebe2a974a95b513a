package graph

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// The ends' part of a Link or Unlink: each end's count update, condition
// check or creation, and what a refusal of one of them means.

// errCreatedMeanwhile is the refusal of an end's creation because the end
// exists (another Link created it): Link counts it instead.
var errCreatedMeanwhile = errors.New("graph: the end was created meanwhile")

// checkEnds refuses, before anything is sent, what the ends' options
// cannot do with edge e: an end to create whose key fields are not the
// edge's, or a self-loop to create (one item cannot be both created and
// counted twice).
func (r *Relation[F, E, T]) checkEnds(op string, e E, s *linkSpec) error {
	if s.create == [2]any{} {
		return nil
	}
	f, t := r.From(e), r.To(e)
	if r.sameItem(f, t) {
		return &st.InputError{Op: op, Reason: "CreateFrom, CreateTo: the edge links an end to itself; create it with the end's own Create first"}
	}
	keys := [2]reflect.Value{reflect.ValueOf(&f).Elem(), reflect.ValueOf(&t).Elem()}
	maps := [2][]fieldPair{r.fromMap, r.toMap}
	for end, v := range s.create {
		if v == nil {
			continue
		}
		rv := reflect.ValueOf(v)
		for _, p := range maps[end] {
			got, want := rv.FieldByIndex(p.end.Index), keys[end].FieldByIndex(p.end.Index)
			if !got.IsZero() && !got.Equal(want) {
				return &st.InputError{Op: op, Reason: fmt.Sprintf("%s: the value's %s is %v and the edge's %v: the end created is the edge's",
					[2]string{"CreateFrom", "CreateTo"}[end], p.end.GoName, got, want)}
			}
		}
	}
	return nil
}

// created is v (CreateFrom's or CreateTo's value, an X) as Link creates
// it: its key fields the edge's (key's), its count delta.
func created[X any](v any, key X, pairs []fieldPair, count string, delta int) X {
	x := v.(X)
	xv, kv := reflect.ValueOf(&x).Elem(), reflect.ValueOf(&key).Elem()
	for _, p := range pairs {
		xv.FieldByIndex(p.end.Index).Set(kv.FieldByIndex(p.end.Index))
	}
	c := xv.FieldByName(count)
	if c.CanInt() {
		c.SetInt(int64(delta))
	} else {
		c.SetUint(uint64(delta))
	}
	return x
}

// planEnds adds the ends' actions of a Link (delta 1) or Unlink (-1) of e
// to tx: each counted end's update (or creation, when create marks it),
// conditioned by its cap and IfFrom or IfTo; an end that is not counted
// but has a condition, a ConditionCheck. A self-loop (both ends one item)
// is one action, as a transaction allows one per item.
func (r *Relation[F, E, T]) planEnds(tx *st.Tx, e E, delta int, s *linkSpec, create [2]bool) placed {
	p := placed{end: [2]int{-1, -1}}
	f, t := r.From(e), r.To(e)
	counts := [2]string{r.countOut, r.countIn}
	conds := s.cond
	for end := range 2 {
		if delta > 0 && s.cap[end] > 0 {
			conds[end] = and(conds[end], st.Or(st.NotExists(counts[end]), st.Lt(counts[end], s.cap[end])))
		}
	}
	if r.sameItem(f, t) {
		var ch *st.Changes
		set := func(c st.Changes) { ch = &c }
		switch {
		case counts[0] != "" && counts[0] == counts[1]:
			set(st.Increment(counts[0], 2*delta))
		case counts[0] != "" && counts[1] != "":
			set(st.Increment(counts[0], delta).Increment(counts[1], delta))
		case counts[0] != "":
			set(st.Increment(counts[0], delta))
		case counts[1] != "":
			set(st.Increment(counts[1], delta))
		}
		i := endAction(tx, r.from, f, ch, and(conds[0], conds[1]), nil, r.exists[0])
		p.end = [2]int{i, i}
		return p
	}
	var cf *F
	var ct *T
	if create[0] {
		v := created(s.create[0], f, r.fromMap, counts[0], delta)
		cf = &v
	}
	if create[1] {
		v := created(s.create[1], t, r.toMap, counts[1], delta)
		ct = &v
	}
	p.end[0] = endAction(tx, r.from, f, increment(counts[0], delta), conds[0], cf, r.exists[0])
	p.end[1] = endAction(tx, r.to, t, increment(counts[1], delta), conds[1], ct, r.exists[1])
	return p
}

// endAction adds an end's action to tx, and returns its index (-1 for
// none): its creation (v), the update ch of its count conditioned by
// cond, or, for an end without a count, the check that it exists and
// meets cond.
func endAction[X any](tx *st.Tx, ent *st.Entity[X], key X, ch *st.Changes, cond st.Cond, v *X, exists st.Cond) int {
	i := tx.Len()
	switch {
	case v != nil:
		ent.TxCreate(tx, *v)
	case ch != nil:
		c := *ch
		if !cond.IsZero() {
			c = c.If(cond)
		}
		ent.TxUpdate(tx, key, c)
	case !cond.IsZero():
		ent.TxCheck(tx, key, st.And(exists, cond))
	default:
		return -1
	}
	return i
}

// increment is the change of count by delta; nil for no count.
func increment(count string, delta int) *st.Changes {
	if count == "" {
		return nil
	}
	c := st.Increment(count, delta)
	return &c
}

// and is a and b, either of which may be the zero Cond.
func and(a, b st.Cond) st.Cond {
	switch {
	case a.IsZero():
		return b
	case b.IsZero():
		return a
	}
	return st.And(a, b)
}

// endIndex is the index of the end named end ("from", "to").
func endIndex(end string) int {
	if end == ends[1] {
		return 1
	}
	return 0
}

// refusal is the *LinkError of the first end's action that te says
// failed its condition (placed p, by s's options, create's forms), or nil
// when no end's did.
func (r *Relation[F, E, T]) refusal(op string, te *st.TxError, p placed, s *linkSpec, create [2]bool) *LinkError {
	for _, f := range te.Actions {
		if f.Code != "ConditionalCheckFailed" || f.Guard != "" {
			continue
		}
		for end := range 2 {
			if p.end[end] != f.Index {
				continue
			}
			le := &LinkError{Op: op, End: ends[end], Err: te}
			switch {
			case create[end]:
				le.Reason = errCreatedMeanwhile
			case len(f.Item) == 0:
				le.Reason = ErrEndMissing
			default:
				le.Reason = ErrEndCondition
				// The cap of this end, or, for a self-loop, of either.
				for c := end; c < 2; c++ {
					if p.end[c] != f.Index || s.cap[c] == 0 {
						continue
					}
					if n := r.storedCount(c, f.Item); n >= s.cap[c] {
						le.End, le.Reason, le.Count, le.Cap = ends[c], ErrCapReached, n, s.cap[c]
						return le
					}
				}
				if p.end[0] == p.end[1] && s.cond[0].IsZero() {
					le.End = ends[1] // a self-loop's condition was IfTo's
				}
			}
			return le
		}
	}
	return nil
}

// missing reports, by end, which ends' actions (placed p) te says
// failed for want of the item.
func (r *Relation[F, E, T]) missing(te *st.TxError, p placed) [2]bool {
	var m [2]bool
	for _, f := range te.Actions {
		for end := range 2 {
			if p.end[end] == f.Index && f.Code == "ConditionalCheckFailed" && f.Guard == "" && len(f.Item) == 0 {
				m[end] = true
			}
		}
	}
	return m
}

// storedCount is the count of end (0 from, 1 to) in item as stored; 0
// when it has none.
func (r *Relation[F, E, T]) storedCount(end int, item map[string]types.AttributeValue) int64 {
	n, _ := item[r.countAttr[end]].(*types.AttributeValueMemberN)
	if n == nil {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}

// sameItem reports whether ends f and t are one item (a self-loop).
func (r *Relation[F, E, T]) sameItem(f F, t T) bool {
	if any(r.from) != any(r.to) {
		return false
	}
	return bridge.Graph.SameItem(r.from, reflect.ValueOf(&f).Elem(), reflect.ValueOf(&t).Elem())
}
