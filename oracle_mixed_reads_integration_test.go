//go:build integration

package singletable_test

// The mixed oracle's queries, collections and scans (see
// oracle_mixed_integration_test.go).

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// Queries, collections and scans.

func (x *mxRun) liveNotes(match func(mxNote) bool) []mxNote {
	var out []mxNote
	for _, n := range x.notes {
		if !x.expired(n) && match(n) {
			out = append(out, n)
		}
	}
	return out
}

func (x *mxRun) accounts(match func(mxAccount) bool) []mxAccount {
	var out []mxAccount
	for _, a := range x.accts {
		if match(a) {
			out = append(out, a)
		}
	}
	return out
}

func (x *mxRun) readOrg() {
	o := pick(x.r, mxOrgs)
	view, more := same[mxAccount], []st.QueryOption{}
	if x.r.IntN(3) == 0 { // a projection: key fields come back from the keys
		view = func(a mxAccount) mxAccount {
			return mxAccount{Org: a.Org, ID: a.ID, Credits: a.Credits, Labels: a.Labels}.norm()
		}
		more = append(more, st.Project("Credits", "Labels"))
	}
	want := sortedBy(x.accounts(func(a mxAccount) bool { return a.Org == o }), mxAcctSK, view)
	got := []mxAccount{}
	if x.r.IntN(4) == 0 { // the iterator
		for a, err := range x.m.acctsByOrg.All(x.ctx, x.db, mxAccount{Org: o}, more...) {
			require.NoError(x.t, err, x.where)
			got = append(got, a.norm())
		}
	} else {
		got = mxPages(x.t, x.r, mxAccount.norm, func(opts ...st.QueryOption) (*st.Page[mxAccount], error) {
			return x.m.acctsByOrg.Query(x.ctx, x.db, mxAccount{Org: o}, append(opts, more...)...)
		})
	}
	require.Equal(x.t, want, got, x.where+": accounts of "+o)
}

func (x *mxRun) readNotesOfAccount() {
	k := x.noteKey()
	match := func(n mxNote) bool { return n.Org == k.Org && n.Acct == k.Acct }
	want := sortedBy(x.liveNotes(match), mxNoteSK, same)
	more := []st.EntityQueryOption{st.SortFields(1)}
	if x.r.IntN(3) == 0 {
		var all []mxNote
		for _, n := range x.notes {
			if match(n) {
				all = append(all, n)
			}
		}
		want = sortedBy(all, mxNoteSK, same)
		more = append(more, st.IncludeExpired())
	}
	got := mxPages(x.t, x.r, mxNote.norm, func(opts ...st.QueryOption) (*st.Page[mxNote], error) {
		return x.m.notes.Query(x.ctx, x.db, mxNote{Org: k.Org, Acct: k.Acct}, mxNarrow(opts, more...)...)
	})
	require.Equal(x.t, want, got, x.where+": notes of an account")
}

// readCollection reads an organisation's accounts and live notes, in sort
// key order, each as its own type.
func (x *mxRun) readCollection() {
	o := pick(x.r, mxOrgs)
	var want []any
	for _, a := range sortedBy(x.accounts(func(a mxAccount) bool { return a.Org == o }), mxAcctSK, same) {
		want = append(want, a)
	}
	for _, n := range sortedBy(x.liveNotes(func(n mxNote) bool { return n.Org == o }), mxNoteSK, same) {
		want = append(want, n)
	}
	norm := func(v any) any {
		switch v := v.(type) {
		case mxAccount:
			return v.norm()
		case mxNote:
			return v.norm()
		}
		return v
	}
	if x.r.IntN(4) == 0 { // the iterator; Limit caps the total
		limit := 1 + x.r.IntN(5)
		got := []any{}
		for v, err := range x.m.org.All(x.ctx, x.db, st.Values{"Org": o}, st.Limit(limit)) {
			require.NoError(x.t, err, x.where)
			got = append(got, norm(v))
		}
		require.Equal(x.t, append([]any{}, want[:min(limit, len(want))]...), got, x.where+": collection of "+o)
		return
	}
	got := mxPages(x.t, x.r, norm, func(opts ...st.QueryOption) (*st.Page[any], error) {
		res, err := x.m.org.Query(x.ctx, x.db, st.Values{"Org": o}, mxNarrow[st.CollectionOption](opts)...)
		if err != nil {
			return nil, err
		}
		require.Empty(x.t, res.Unknown, x.where)
		return &res.Page, nil
	})
	if want == nil {
		want = []any{}
	}
	require.Equal(x.t, want, got, x.where+": collection of "+o)
}

func (x *mxRun) readPlan() {
	p := pick(x.r, mxPlans[1:])
	want := sortedBy(x.accounts(func(a mxAccount) bool { return a.Plan == p && a.Status != "" }), mxAcctByPlan, same)
	got := mxPages(x.t, x.r, mxAccount.norm, func(opts ...st.QueryOption) (*st.Page[mxAccount], error) {
		return x.m.acctsByPlan.Query(x.ctx, x.db, mxAccount{Plan: p}, opts...)
	})
	require.Equal(x.t, want, got, x.where+": plan "+p)
}

// readStatus reads the keys-only index: only key fields come back.
func (x *mxRun) readStatus() {
	s := pick(x.r, mxStatus[1:])
	keysOnly := func(a mxAccount) mxAccount { return mxAccount{Org: a.Org, ID: a.ID, Status: a.Status}.norm() }
	want := sortedBy(x.accounts(func(a mxAccount) bool { return a.Status == s }), mxAcctGSI, keysOnly)
	got := mxPages(x.t, x.r, mxAccount.norm, func(opts ...st.QueryOption) (*st.Page[mxAccount], error) {
		return x.m.acctsByStatus.Query(x.ctx, x.db, mxAccount{Status: s}, opts...)
	})
	require.Equal(x.t, want, got, x.where+": status "+s)
}

func (x *mxRun) readTag() {
	tag := pick(x.r, mxTags[1:])
	want := sortedBy(x.liveNotes(func(n mxNote) bool { return n.Tag == tag }), mxNoteGSI1, same)
	got := mxPages(x.t, x.r, mxNote.norm, func(opts ...st.QueryOption) (*st.Page[mxNote], error) {
		return x.m.notesByTag.Query(x.ctx, x.db, mxNote{Tag: tag}, opts...)
	})
	require.Equal(x.t, want, got, x.where+": tag "+tag)
}

// readBody reads the keys-only index with FetchFull: whole items, expired
// ones left out after the fetch, pages still exact.
func (x *mxRun) readBody() {
	body := pick(x.r, []string{"hi", "#%$", "kept"})
	want := sortedBy(x.liveNotes(func(n mxNote) bool { return n.Body == body }), mxNoteGSI1, same)
	got := mxPages(x.t, x.r, mxNote.norm, func(opts ...st.QueryOption) (*st.Page[mxNote], error) {
		return x.m.notesByBody.Query(x.ctx, x.db, mxNote{Body: body}, append(opts, st.FetchFull())...)
	})
	require.Equal(x.t, want, got, x.where+": body "+body)
	_, err := x.m.notesByBody.Query(x.ctx, x.db, mxNote{Body: body})
	require.ErrorIs(x.t, err, st.ErrInvalidInput, x.where+": a keys-only read cannot tell expired notes")
}

// readPinned reads the INCLUDE index: keys, body and expiry come back.
func (x *mxRun) readPinned() {
	o := pick(x.r, mxOrgs)
	view := func(n mxNote) mxNote {
		return mxNote{Org: n.Org, Acct: n.Acct, Seq: n.Seq, Body: n.Body, Exp: n.Exp}.norm()
	}
	want := sortedBy(x.liveNotes(func(n mxNote) bool { return n.Org == o && n.Pinned }), mxNoteGSI2, view)
	got := mxPages(x.t, x.r, mxNote.norm, func(opts ...st.QueryOption) (*st.Page[mxNote], error) {
		return x.m.pinned.Query(x.ctx, x.db, mxNote{Org: o}, opts...)
	})
	require.Equal(x.t, want, got, x.where+": pinned notes of "+o)
}

// readEvents reads a random time range of a source's events, across day
// buckets and shards, in either direction, by pages or with AllBetween.
func (x *mxRun) readEvents() {
	src := pick(x.r, mxSrcs)
	lo := mxBase.Add(time.Duration(x.r.IntN(110)-55) * time.Hour)
	if x.r.IntN(3) == 0 {
		lo = lo.Truncate(24 * time.Hour)
	}
	hi := lo.Add(time.Duration(x.r.IntN(60)) * time.Hour)
	if x.r.IntN(3) == 0 {
		hi = hi.Truncate(24 * time.Hour).Add(-time.Second)
	}
	if hi.Before(lo) {
		hi = lo
	}
	minN := 0
	var opts []st.QueryOption
	if x.r.IntN(3) == 0 { // a filter drops items after the read: pages still lose nothing
		minN = 1 + x.r.IntN(2)
		opts = append(opts, st.Filter(st.Ge("N", minN)))
	}
	var in []mxEvent
	for _, e := range x.events {
		if e.Src == src && !e.At.Before(lo) && !e.At.After(hi) && e.N >= minN {
			in = append(in, e)
		}
	}
	want := sortedBy(in, mxEventSK, same)
	if x.r.IntN(2) == 0 {
		slices.Reverse(want)
		opts = append(opts, st.Descending())
	}
	from, to := mxEvent{Src: src, At: lo}, mxEvent{At: hi}
	var got []mxEvent
	if x.r.IntN(4) == 0 {
		got = []mxEvent{}
		for e, err := range x.m.eventsBetween.AllBetween(x.ctx, x.db, from, to, opts...) {
			require.NoError(x.t, err, x.where)
			got = append(got, e.norm())
		}
	} else {
		got = mxPages(x.t, x.r, mxEvent.norm, func(more ...st.QueryOption) (*st.Page[mxEvent], error) {
			return x.m.eventsBetween.QueryBetween(x.ctx, x.db, from, to, append(slices.Clone(opts), more...)...)
		})
	}
	require.Equal(x.t, want, got, "%s: events of %.10s from %v to %v", x.where, src, lo, hi)
}

// scan reads each entity with parallel segments: every item once, expired
// notes left out as by every read unless IncludeExpired.
func (x *mxRun) scan() {
	segs := st.Segments(1 + x.r.IntN(4))
	var accts []mxAccount
	for a, err := range x.m.accounts.Scan(x.ctx, x.db, segs) {
		require.NoError(x.t, err, x.where)
		accts = append(accts, a.norm())
	}
	require.Equal(x.t, sortedBy(slices.Collect(maps.Values(x.accts)), mxAcctKeyString, same), sortedBy(accts, mxAcctKeyString, same), x.where+": account scan")
	for _, includeExpired := range []bool{false, true} {
		noteOpts := []st.ScanOption{segs}
		if includeExpired {
			noteOpts = append(noteOpts, st.IncludeExpired())
		}
		var notes, wantNotes []mxNote
		for n, err := range x.m.notes.Scan(x.ctx, x.db, noteOpts...) {
			require.NoError(x.t, err, x.where)
			notes = append(notes, n.norm())
		}
		for k, n := range x.notes {
			if includeExpired || !x.expired(n) {
				wantNotes = append(wantNotes, n)
				if _, old := x.oldNotes[k]; old {
					x.seen["old note read"]++
				}
			}
		}
		require.Equal(x.t, sortedBy(wantNotes, mxNoteKeyString, same), sortedBy(notes, mxNoteKeyString, same), "%s: note scan (IncludeExpired %v)", x.where, includeExpired)
	}
	n := 0
	for e, err := range x.m.events.Scan(x.ctx, x.db, segs) {
		require.NoError(x.t, err, x.where)
		require.Equal(x.t, x.events[mxEK(e)], e.norm(), x.where)
		n++
	}
	require.Equal(x.t, len(x.events), n, x.where+": event scan")
}

func mxAcctKeyString(a mxAccount) string { return fmt.Sprint(mxAK(a)) }
func mxNoteKeyString(n mxNote) string    { return fmt.Sprint(mxNK(n)) }

// checkGuards: exactly one guard item per email held, none left behind.
func (x *mxRun) checkGuards() {
	var guards []string
	for it, err := range x.db.Scan(x.ctx) {
		require.NoError(x.t, err)
		if it.Entity == "_unique" {
			pk, ok := it.Item["PK"].(*types.AttributeValueMemberS)
			require.True(x.t, ok)
			guards = append(guards, pk.Value)
		}
	}
	var emails []string
	for _, a := range x.accts {
		if a.Email != "" {
			emails = append(emails, a.Email)
		}
	}
	require.Len(x.t, guards, len(emails), "guards %v for emails %v", guards, emails)
	for _, e := range emails {
		require.True(x.t, slices.ContainsFunc(guards, func(g string) bool { return strings.Contains(g, e) || strings.Contains(g, esc(e)) }), "no guard for %q in %v", e, guards)
	}
}
