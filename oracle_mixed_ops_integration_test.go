//go:build integration

package singletable_test

// The mixed oracle's transactions, batches and single-item reads (see
// oracle_mixed_integration_test.go; queries are in
// oracle_mixed_reads_integration_test.go).

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// transact sends 2 to 5 actions on distinct items, some designed to fail:
// then the whole transaction must change nothing.
func (x *mxRun) transact() {
	used := map[string]bool{}
	claim := func(id string) bool {
		if used[id] {
			return false
		}
		used[id] = true
		return true
	}
	var acts []func(tx *st.Tx)
	var applies []func()
	ok := true
	var touchedA []mxAccount
	var touchedN []mxNote
	for range 2 + x.r.IntN(4) {
		switch x.r.IntN(6) {
		case 0: // create an account, failing if it exists or its email is taken
			a := x.randomAccount()
			if !claim(fmt.Sprint("A", mxAK(a))) || !claim("G"+a.Email) && a.Email != "" {
				continue
			}
			_, exists := x.accts[mxAK(a)]
			ok = ok && !exists && !x.emailTaken(a.Email, mxAK(a))
			acts = append(acts, func(tx *st.Tx) { x.m.accounts.TxCreate(tx, a) })
			applies = append(applies, func() {
				a.Version, a.Created, a.Updated = 1, x.now, x.now
				x.accts[mxAK(a)] = a.norm()
			})
			touchedA = append(touchedA, a)
		case 1: // a guarded increment, with the key's version checked or not
			k := x.acctKey()
			if !claim(fmt.Sprint("A", mxAK(k))) {
				continue
			}
			cur, exists := x.accts[mxAK(k)]
			if exists && x.r.IntN(3) == 0 {
				k.Version = cur.Version + int64(x.r.IntN(2))
			}
			min := x.r.IntN(3)
			ok = ok && exists && cur.Credits >= min && (k.Version == 0 || k.Version == cur.Version)
			acts = append(acts, func(tx *st.Tx) {
				x.m.accounts.TxUpdate(tx, k, st.Increment("Credits", 2).If(st.Ge("Credits", min)))
			})
			applies = append(applies, func() {
				cur.Credits, cur.Version, cur.Updated = cur.Credits+2, cur.Version+1, x.now
				x.accts[mxAK(k)] = cur.norm()
			})
			touchedA = append(touchedA, k)
		case 2: // delete an account, its email guard with it
			k := x.acctKey()
			cur, exists := x.accts[mxAK(k)]
			if !exists || !claim(fmt.Sprint("A", mxAK(k))) || cur.Email != "" && !claim("G"+cur.Email) {
				continue
			}
			k.Email = cur.Email
			acts = append(acts, func(tx *st.Tx) { x.m.accounts.TxDelete(tx, k) })
			applies = append(applies, func() { delete(x.accts, mxAK(k)) })
			touchedA = append(touchedA, k)
		case 3: // check an account has a plan
			k := x.acctKey()
			if !claim(fmt.Sprint("A", mxAK(k))) {
				continue
			}
			cur, exists := x.accts[mxAK(k)]
			ok = ok && exists && cur.Plan != ""
			acts = append(acts, func(tx *st.Tx) { x.m.accounts.TxCheck(tx, k, st.Exists("Plan")) })
		case 4: // put or delete a note
			n := x.randomNote()
			if !claim(fmt.Sprint("N", mxNK(n))) {
				continue
			}
			if x.r.IntN(2) == 0 {
				acts = append(acts, func(tx *st.Tx) { x.m.notes.TxPut(tx, n) })
				applies = append(applies, func() { x.setNote(n) })
			} else {
				acts = append(acts, func(tx *st.Tx) { x.m.notes.TxDelete(tx, n) })
				applies = append(applies, func() { x.dropNote(mxNK(n)) })
			}
			touchedN = append(touchedN, n)
		case 5: // create a note: over nothing or an expired one
			n := x.randomNote()
			if !claim(fmt.Sprint("N", mxNK(n))) {
				continue
			}
			cur, exists := x.notes[mxNK(n)]
			ok = ok && (!exists || x.expired(cur))
			acts = append(acts, func(tx *st.Tx) { x.m.notes.TxCreate(tx, n) })
			applies = append(applies, func() { x.setNote(n) })
			touchedN = append(touchedN, n)
		}
	}
	if len(acts) == 0 {
		return
	}
	err := x.db.Transact(x.ctx, func(tx *st.Tx) error {
		for _, act := range acts {
			act(tx)
		}
		return nil
	})
	if ok {
		require.NoError(x.t, err, x.where)
		x.seen["tx committed"]++
		for _, apply := range applies {
			apply()
		}
	} else {
		require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where)
		var txErr *st.TxError
		require.ErrorAs(x.t, err, &txErr, x.where)
		x.seen["tx cancelled"]++
	}
	for _, a := range touchedA {
		x.checkAccount(a)
	}
	for _, n := range touchedN {
		x.checkNote(n, true)
	}
}

// batchWrite mixes puts and deletes of notes and events, more than one
// request's 25, on distinct items.
func (x *mxRun) batchWrite() {
	var ops []st.BatchOp
	used := map[string]bool{}
	for len(ops) < 26+x.r.IntN(30) {
		switch x.r.IntN(4) {
		case 0, 1:
			n := x.randomNote()
			if used[fmt.Sprint(mxNK(n))] {
				continue
			}
			used[fmt.Sprint(mxNK(n))] = true
			if x.r.IntN(3) == 0 {
				ops = append(ops, st.BatchDelete(x.m.notes, n))
				x.dropNote(mxNK(n))
			} else {
				ops = append(ops, st.BatchPut(x.m.notes, n))
				x.setNote(n)
			}
		default:
			e := x.randomEvent()
			if used[fmt.Sprint(mxEK(e))] {
				continue
			}
			used[fmt.Sprint(mxEK(e))] = true
			if x.r.IntN(3) == 0 {
				ops = append(ops, st.BatchDelete(x.m.events, e))
				delete(x.events, mxEK(e))
			} else {
				ops = append(ops, st.BatchPut(x.m.events, e))
				x.events[mxEK(e)] = e.norm()
			}
		}
	}
	require.NoError(x.t, x.db.BatchWrite(x.ctx, ops, st.Concurrency(1+x.r.IntN(3))), x.where)
}

// Reads of single items.

func (x *mxRun) checkAccount(k mxAccount) {
	var opts []st.GetOption
	if x.r.IntN(2) == 0 {
		opts = append(opts, st.ConsistentRead())
	}
	got, err := x.m.accounts.Get(x.ctx, x.db, k, opts...)
	if cur, ok := x.accts[mxAK(k)]; ok {
		require.NoError(x.t, err, x.where)
		require.Equal(x.t, cur, got.norm(), x.where)
	} else {
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
	}
}

func (x *mxRun) checkNote(k mxNote, includeExpired bool) {
	var opts []st.GetOption
	if includeExpired {
		opts = append(opts, st.IncludeExpired())
	}
	got, err := x.m.notes.Get(x.ctx, x.db, k, opts...)
	if cur, ok := x.notes[mxNK(k)]; ok && (includeExpired || !x.expired(cur)) {
		require.NoError(x.t, err, x.where)
		require.Equal(x.t, cur, got.norm(), x.where)
		if _, old := x.oldNotes[mxNK(k)]; old {
			x.seen["old note read"]++
		}
	} else {
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
		if ok {
			x.seen["expired hidden"]++
		}
	}
}

func (x *mxRun) getAccount() { x.checkAccount(x.acctKey()) }
func (x *mxRun) getNote()    { x.checkNote(x.noteKey(), x.r.IntN(3) == 0) }

func (x *mxRun) getEvent() {
	e := x.randomEvent()
	if len(x.events) > 0 && x.r.IntN(3) != 0 {
		e = pick(x.r, slices.SortedFunc(maps.Values(x.events), func(a, b mxEvent) int { return strings.Compare(mxEventSK(a)+a.Src, mxEventSK(b)+b.Src) }))
	}
	got, err := x.m.events.Get(x.ctx, x.db, mxEvent{Src: e.Src, At: e.At, ID: e.ID})
	if cur, ok := x.events[mxEK(e)]; ok {
		require.NoError(x.t, err, x.where)
		require.Equal(x.t, cur, got.norm(), x.where)
		require.True(x.t, got.Shard >= 0 && got.Shard < 3, x.where)
	} else {
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
	}
}

// batchGet reads over 100 notes, existing, missing and expired; the same
// key twice is refused before any request.
func (x *mxRun) batchGet() {
	var keys []mxNote
	seen := map[mxNoteKey]bool{}
	for range 101 + x.r.IntN(60) {
		k := x.noteKey()
		if !seen[mxNK(k)] {
			seen[mxNK(k)] = true
			keys = append(keys, k)
		}
	}
	includeExpired := x.r.IntN(3) == 0
	var opts []st.BatchGetOption
	if includeExpired {
		opts = append(opts, st.IncludeExpired())
	}
	if x.r.IntN(8) == 0 {
		before := x.http.n.Load()
		_, err := x.m.notes.BatchGet(x.ctx, x.db, append(keys, keys[x.r.IntN(len(keys))]), opts...)
		require.ErrorIs(x.t, err, st.ErrInvalidInput, x.where)
		require.Equal(x.t, before, x.http.n.Load(), x.where)
		x.seen["batch get duplicate"]++
		return
	}
	got, err := x.m.notes.BatchGet(x.ctx, x.db, keys, opts...)
	require.NoError(x.t, err, x.where)
	require.Len(x.t, got, len(keys), x.where)
	for i, k := range keys {
		if cur, ok := x.notes[mxNK(k)]; ok && (includeExpired || !x.expired(cur)) {
			require.NotNil(x.t, got[i], "%s: key %d %v", x.where, i, k)
			require.Equal(x.t, cur, got[i].norm(), x.where)
		} else {
			require.Nil(x.t, got[i], "%s: key %d %v", x.where, i, k)
		}
	}
}

func (x *mxRun) txGet() {
	tg := x.db.TransactGet()
	type read struct {
		check func()
	}
	var reads []read
	seen := map[string]bool{}
	for range 1 + x.r.IntN(8) {
		if x.r.IntN(2) == 0 {
			k := x.acctKey()
			if seen[fmt.Sprint(mxAK(k))] {
				continue
			}
			seen[fmt.Sprint(mxAK(k))] = true
			v := x.m.accounts.TxGet(tg, k)
			reads = append(reads, read{func() {
				cur, ok := x.accts[mxAK(k)]
				require.Equal(x.t, ok, v.Found(), x.where)
				if ok {
					require.Equal(x.t, cur, v.Value().norm(), x.where)
				}
			}})
			continue
		}
		k := x.noteKey()
		if seen[fmt.Sprint(mxNK(k))] {
			continue
		}
		seen[fmt.Sprint(mxNK(k))] = true
		incl := x.r.IntN(2) == 0
		var opts []st.GetOption
		if incl {
			opts = append(opts, st.IncludeExpired())
		}
		v := x.m.notes.TxGet(tg, k, opts...)
		reads = append(reads, read{func() {
			cur, ok := x.notes[mxNK(k)]
			ok = ok && (incl || !x.expired(cur))
			require.Equal(x.t, ok, v.Found(), x.where)
			if _, err := v.Get(); !ok {
				require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
			} else {
				require.Equal(x.t, cur, v.Value().norm(), x.where)
			}
		}})
	}
	require.NoError(x.t, tg.Run(x.ctx), x.where)
	for _, rd := range reads {
		rd.check()
	}
}
