package graph

import (
	"errors"
	"fmt"
	"reflect"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// LinkOption tunes Link and TxLink: this package's CreateFrom, CreateTo,
// CapOut, CapIn, IfFrom, IfTo and FailIfLinked, and capacity.Into, which
// collects what every request of the write consumed. It is sealed (only
// those satisfy it): no other option of singletable's compiles in Link
// (singletable.IdempotencyToken does not: a Link may send more than one
// request, which one token cannot cover), and a LinkOption is no
// singletable.TxOption, so DB.Transact does not take one. A nil option,
// one given twice, or one that does not fit the relation or the call
// (CapIn without CountIn; CreateTo or capacity.Into to TxLink) is an
// *singletable.InputError before anything is sent.
type LinkOption interface{ bridge.GraphLinkOption }

// UnlinkOption tunes Unlink and TxUnlink: IfFrom, IfTo and capacity.Into
// (which TxUnlink refuses: it goes to DB.Transact). Sealed as LinkOption
// is; the options of Link alone (CreateFrom, CreateTo, CapOut, CapIn,
// FailIfLinked) are not UnlinkOptions, so they do not compile in Unlink.
type UnlinkOption interface{ bridge.GraphUnlinkOption }

// EndOption is an option of both Link and Unlink: IfFrom and IfTo.
type EndOption interface {
	LinkOption
	UnlinkOption
}

// linkSpec is what a write's options add up to. Index 0 is the from end,
// 1 the to end.
type linkSpec struct {
	create [2]any     // CreateFrom's, CreateTo's value; nil for none
	cap    [2]int64   // CapOut's, CapIn's n; 0 for none
	cond   [2]st.Cond // IfFrom's, IfTo's condition
	strict bool       // FailIfLinked
	tx     []any      // capacity.Into: every request sent takes it
}

// linkOpt is one of this package's LinkOptions; an endOpt is one that
// Unlink takes too.
type linkOpt struct {
	bridge.GraphLink
	name  string
	apply func(*linkSpec) error
}

type endOpt struct {
	linkOpt
	bridge.GraphUnlink
}

func newLinkOption(name string, apply func(*linkSpec) error) LinkOption {
	return linkOpt{name: name, apply: apply}
}

// ends names the ends for messages and errors, by index.
var ends = [2]string{"from", "to"}

// CreateFrom makes Link create the from end, v, when it does not exist
// (see CreateTo).
func CreateFrom[F any](v F) LinkOption { return createEnd(0, "CreateFrom", v) }

// CreateTo makes Link create the to end, v, when it does not exist: the
// edge and its end are made in one transaction (a game created by its
// first player's join). The end must be counted (CountIn); its key fields
// are the edge's (zero ones in v are filled from the edge, others must
// equal it), and it is stored as Create stores v, with the count at 1.
// An end that exists is counted and left as it is, v unused. Link tries
// the end as existing first (one transaction when it does), and sends the
// creation when the end turns out missing: two for a new end. Concurrent
// first links create it once: the one whose creation fails because the
// end now exists counts it instead. Conditions (IfTo) hold for an end
// that exists; the end Link creates is v as given, and CapIn is met by
// its count of 1. TxLink refuses it: a transaction of the caller's cannot
// tell which form to send.
func CreateTo[T any](v T) LinkOption { return createEnd(1, "CreateTo", v) }

func createEnd(end int, name string, v any) LinkOption {
	return newLinkOption(name, func(s *linkSpec) error {
		if s.create[end] != nil {
			return fmt.Errorf("%s is given twice", name)
		}
		s.create[end] = v
		return nil
	})
}

// CapOut makes Link happen only while the from end's CountOut is below n:
// "join while the team has fewer than n members" in one transaction. At
// the cap the Link fails with a *LinkError matching ErrCapReached, and
// writes nothing. n must be at least 1, and the relation must count
// CountOut.
func CapOut(n int) LinkOption { return capEnd(0, "CapOut", n) }

// CapIn makes Link happen only while the to end's CountIn is below n (see
// CapOut): Link(ctx, db, join, CapIn(50)) joins a game while it has fewer
// than 50 players, however many join at once.
func CapIn(n int) LinkOption { return capEnd(1, "CapIn", n) }

func capEnd(end int, name string, n int) LinkOption {
	return newLinkOption(name, func(s *linkSpec) error {
		if n < 1 {
			return fmt.Errorf("%s(%d): a cap is at least 1", name, n)
		}
		if s.cap[end] != 0 {
			return fmt.Errorf("%s is given twice", name)
		}
		s.cap[end] = int64(n)
		return nil
	})
}

// IfFrom makes the write happen only if the from end exists and meets c,
// a condition over its Go fields (st.Eq("Status", "OPEN")), checked in the
// same transaction: by the count's update for a counted end, else by a
// ConditionCheck of the end. When it does not hold, the write fails with
// a *LinkError matching ErrEndCondition (ErrEndMissing for a missing end)
// and writes nothing. Link and Unlink take it.
func IfFrom(c st.Cond) EndOption { return ifEnd(0, "IfFrom", c) }

// IfTo is IfFrom for the to end: IfTo(st.Eq("State", "WAITING")) joins a
// game only while it waits for players.
func IfTo(c st.Cond) EndOption { return ifEnd(1, "IfTo", c) }

func ifEnd(end int, name string, c st.Cond) EndOption {
	return endOpt{linkOpt: linkOpt{name: name, apply: func(s *linkSpec) error {
		if c.IsZero() {
			return fmt.Errorf("%s(Cond{}): the condition is empty", name)
		}
		if !s.cond[end].IsZero() {
			return fmt.Errorf("%s is given twice (combine conditions with singletable.And)", name)
		}
		s.cond[end] = c
		return nil
	}}}
}

// FailIfLinked makes Link of an edge that exists fail with a *LinkError
// matching ErrEdgeExists, rather than answer false: for a caller to whom
// an edge already there is a refusal, not the idempotent success.
func FailIfLinked() LinkOption {
	return newLinkOption("FailIfLinked", func(s *linkSpec) error { s.strict = true; return nil })
}

// linkOptions is opts, LinkOptions or UnlinkOptions, as one list for
// options.
func linkOptions[O any](opts []O) []any {
	if len(opts) == 0 {
		return nil
	}
	out := make([]any, len(opts))
	for i, o := range opts {
		out[i] = o
	}
	return out
}

// options adds up opts (Link's, TxLink's or Unlink's, as their types
// allow) for method, checked against the relation, or an *st.InputError
// naming the option.
func (r *Relation[F, E, T]) options(method string, opts []any) (*linkSpec, error) {
	s := &linkSpec{}
	op := r.name + "." + method
	for i, o := range opts {
		var lo linkOpt
		switch o := o.(type) {
		case nil:
			return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("option %d of %d is nil", i+1, len(opts))}
		case linkOpt:
			lo = o
		case endOpt:
			lo = o.linkOpt
		default:
			s.tx = append(s.tx, o) // capacity.Into: the transaction's
			continue
		}
		if err := lo.apply(s); err != nil {
			return nil, &st.InputError{Op: op, Reason: err.Error()}
		}
	}
	counts := [2]string{r.countOut, r.countIn}
	countOpt := [2]string{"CountOut", "CountIn"}
	types := [2]reflect.Type{reflect.TypeFor[F](), reflect.TypeFor[T]()}
	for end := range 2 {
		name := [2]string{"CapOut", "CapIn"}[end]
		if s.cap[end] != 0 && counts[end] == "" {
			return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("%s: the relation keeps no %s of the %s end to cap", name, countOpt[end], ends[end])}
		}
		if v := s.create[end]; v != nil {
			name := [2]string{"CreateFrom", "CreateTo"}[end]
			switch {
			case method == "TxLink":
				return nil, &st.InputError{Op: op, Reason: name + ": a transaction of the caller's cannot tell whether the end exists, to create it or count it; use Link"}
			case reflect.TypeOf(v) != types[end]:
				return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("%s: the value is a %s; the %s end is a %s", name, reflect.TypeOf(v), ends[end], types[end])}
			case counts[end] == "":
				return nil, &st.InputError{Op: op, Reason: fmt.Sprintf("%s: the %s end has no count (%s); only a counted end, which Link must find, is created by it", name, ends[end], countOpt[end])}
			}
		}
	}
	return s, nil
}

// Why a link or unlink was refused, as the Reason of a *LinkError.
var (
	// ErrCapReached: the end's count was at the cap (CapOut, CapIn).
	ErrCapReached = errors.New("graph: the count is at its cap")
	// ErrEndMissing: a counted end, or one with a condition (IfFrom,
	// IfTo), does not exist. A *LinkError with it also matches
	// singletable.ErrNotFound.
	ErrEndMissing = errors.New("graph: the end does not exist")
	// ErrEndCondition: the end exists, and a condition of IfFrom or IfTo
	// did not hold.
	ErrEndCondition = errors.New("graph: the end's condition failed")
	// ErrEdgeExists: the edge exists, and Link was given FailIfLinked.
	ErrEdgeExists = errors.New("graph: the edge exists")
)

// LinkError is a Link or Unlink that a condition refused: nothing was
// written. Reason says which (ErrCapReached, ErrEndMissing,
// ErrEndCondition, ErrEdgeExists) and End of which end ("from", "to"; ""
// for the edge). It matches its Reason with errors.Is, and unwraps to the
// cancelled transaction's *singletable.TxError (or the single write's
// *singletable.ConditionError), so singletable.ErrConditionFailed and,
// for a missing end, singletable.ErrNotFound match too.
type LinkError struct {
	Op     string // "Follows.Link", "Follows.Unlink"
	End    string // "from", "to", or "" for the edge
	Reason error
	// Count and Cap are the end's count as stored and the cap, with
	// ErrCapReached.
	Count, Cap int64
	Err        error
}

func (e *LinkError) Error() string {
	what := "the edge"
	if e.End != "" {
		what = "the " + e.End + " end"
	}
	msg := fmt.Sprintf("%s: %s: %v", e.Op, what, e.Reason)
	if errors.Is(e.Reason, ErrCapReached) {
		msg += fmt.Sprintf(" (count %d, cap %d)", e.Count, e.Cap)
	}
	return msg
}

// Unwrap gives errors.Is and errors.As the Reason and the write's error
// (and singletable.ErrNotFound for ErrEndMissing).
func (e *LinkError) Unwrap() []error {
	if errors.Is(e.Reason, ErrEndMissing) {
		return []error{e.Reason, st.ErrNotFound, e.Err}
	}
	return []error{e.Reason, e.Err}
}
