//go:build integration

package singletable_test

// The mixed randomized oracle: what users combine in real services, on
// DynamoDB Local, every read checked against an in-memory oracle (exact
// items, exact order, nothing lost or repeated across pages). Accounts
// (version, timestamps, unique email) and their expiring notes share
// organisation partitions (a mixed item collection, an overloaded GSI, a
// sparse INCLUDE GSI, a sparse KEYS_ONLY GSI); events are sharded by ID
// and bucketed by day (a fan-out read). Writes mix single writes,
// conditions, transactions designed to fail, batches over the chunk sizes;
// the clock moves forward and back over note expiries. Notes are at shape
// revision 2: old code writes revision-0 and -1 notes too, and every read
// returns them upgraded (oracle_mixed_revisions_integration_test.go). The
// model is in oracle_mixed_model_integration_test.go.

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
	"github.com/singletable/singletable/internal/soak"
)

func TestIntegrationMixedOracle(t *testing.T) {
	seen := map[string]int{}
	seeds := []uint64{11, 12, 13, 14, 15}
	for _, seed := range seeds[:soak.Size(3, len(seeds))] {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runMixedOracle(t, seed, soak.Size(300, 400), seen) })
	}
	// The generator must reach every outcome it was written for, or the
	// oracle checks less than it claims.
	for _, outcome := range []string{"tx committed", "tx cancelled", "version conflict", "unique violation",
		"email moved", "create over expired", "expired hidden", "batch get duplicate", "condition failed",
		"old note written", "old write refused", "old note read", "old note update refused", "old note upgraded", "newer note refused"} {
		require.Positive(t, seen[outcome], "no %q in any run: %v", outcome, seen)
	}
	t.Logf("outcomes: %v", seen)
}

type mxRun struct {
	t     *testing.T
	ctx   context.Context
	r     *rand.Rand
	m     *mxModel
	db    *st.DB
	http  *mxCountingHTTP
	now   time.Time
	where string
	seen  map[string]int // outcomes reached

	accts  map[mxAcctKey]mxAccount
	notes  map[mxNoteKey]mxNote // as read: a note at an older revision upgraded
	events map[mxEventKey]mxEvent
	// oldNotes are the notes stored at an older revision, by old code.
	oldNotes map[mxNoteKey]mxOldNote
	dbV1     *st.DB // the table as code at the notes' revision 1 reads it
}

func runMixedOracle(t *testing.T, seed uint64, steps int, seen map[string]int) {
	ctx := t.Context()
	client, err := ddblocal.Client(ctx)
	require.NoError(t, err, "integration tests need DynamoDB Local: run them with `make test`")
	x := &mxRun{t: t, ctx: ctx, r: rand.New(rand.NewPCG(seed, 7)), m: newMixedModel(), now: mxBase, seen: seen,
		accts: map[mxAcctKey]mxAccount{}, notes: map[mxNoteKey]mxNote{}, events: map[mxEventKey]mxEvent{},
		oldNotes: map[mxNoteKey]mxOldNote{}}
	counted := dynamodb.New(client.Options(), func(o *dynamodb.Options) {
		x.http = &mxCountingHTTP{next: o.HTTPClient}
		o.HTTPClient = x.http
	})
	x.db = st.New(counted, x.m.table, st.WithTableName(ddblocal.UniqueName("mixed")),
		st.WithClock(func() time.Time { return x.now }))
	require.NoError(t, x.db.EnsureTable(ctx))
	t.Cleanup(func() { _ = x.db.DeleteTable(context.Background()) })
	x.dbV1 = st.New(counted, x.m.tableV1, st.WithTableName(x.db.TableName()), st.WithClock(func() time.Time { return x.now }))

	ops := []func(){
		x.createAccount, x.createAccount, x.putAccount, x.updateAccount, x.updateAccount, x.deleteAccount,
		x.putNote, x.createNote, x.updateNote, x.deleteNote, x.tick,
		x.putEvent, x.deleteEvent, x.transact, x.transact, x.batchWrite, x.keyLimits,
		x.getAccount, x.getNote, x.getEvent, x.batchGet, x.txGet,
		x.readOrg, x.readCollection, x.readPlan, x.readStatus, x.readTag, x.readPinned, x.readBody,
		x.readNotesOfAccount, x.readEvents, x.readEvents, x.scan,
		x.oldWriteNote, x.oldWriteNote, x.oldReadNote, x.oldNoteUpgrade,
	}
	for step := range steps {
		x.where = fmt.Sprintf("seed %d step %d", seed, step)
		ops[x.r.IntN(len(ops))]()
	}
	x.scan()
	x.checkGuards()
}

// Random values and keys, existing ones more often than not.

func (x *mxRun) acctKey() mxAccount {
	if len(x.accts) > 0 && x.r.IntN(4) != 0 {
		k := pick(x.r, slices.SortedFunc(maps.Keys(x.accts), func(a, b mxAcctKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }))
		return mxAccount{Org: k.org, ID: k.id}
	}
	return mxAccount{Org: pick(x.r, mxOrgs), ID: pick(x.r, mxIDs)}
}

func (x *mxRun) randomAccount() mxAccount {
	a := x.acctKey()
	a.Email, a.Plan, a.Status = pick(x.r, mxEmails), pick(x.r, mxPlans), pick(x.r, mxStatus)
	a.Credits = pick(x.r, []int{0, 1, 5, -3})
	if x.r.IntN(2) == 0 {
		a.Labels = []string{pick(x.r, []string{"x", "y#", "z%"}), "w"}
	}
	return a
}

func (x *mxRun) noteKey() mxNote {
	if len(x.notes) > 0 && x.r.IntN(4) != 0 {
		k := pick(x.r, slices.SortedFunc(maps.Keys(x.notes), func(a, b mxNoteKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }))
		return mxNote{Org: k.org, Acct: k.acct, Seq: k.seq}
	}
	return mxNote{Org: pick(x.r, mxOrgs), Acct: pick(x.r, mxIDs), Seq: pick(x.r, mxSeqs)}
}

func (x *mxRun) expiry() time.Time {
	if x.r.IntN(3) == 0 {
		return time.Time{}
	}
	return x.now.Add(time.Duration(x.r.IntN(7)-3) * time.Hour).Add(time.Duration(x.r.IntN(2)) * time.Second)
}

func (x *mxRun) randomNote() mxNote {
	n := x.noteKey()
	n.Tag, n.Pinned, n.Body = pick(x.r, mxTags), x.r.IntN(2) == 0, pick(x.r, []string{"", "hi", "#%$"})
	n.Exp = x.expiry()
	n.Lang = pick(x.r, mxLangs)
	return n
}

func (x *mxRun) randomEvent() mxEvent {
	at := mxBase.Add(time.Duration(x.r.IntN(96)-48) * time.Hour)
	if x.r.IntN(4) == 0 {
		at = at.Truncate(24 * time.Hour).Add(-time.Second * time.Duration(x.r.IntN(2))) // a bucket's edges
	}
	return mxEvent{Src: pick(x.r, mxSrcs[:2]), At: at, ID: pick(x.r, mxEvIDs[:4]), N: x.r.IntN(3)}
}

func (x *mxRun) expired(n mxNote) bool { return !n.Exp.IsZero() && n.Exp.Unix() <= x.now.Unix() }

// emailHolder is the account holding email, if any.
func (x *mxRun) emailHolder(email string) (mxAcctKey, bool) {
	for k, a := range x.accts {
		if email != "" && a.Email == email {
			return k, true
		}
	}
	return mxAcctKey{}, false
}

func (x *mxRun) emailTaken(email string, by mxAcctKey) bool {
	k, ok := x.emailHolder(email)
	return ok && k != by
}

// Account writes.

func (x *mxRun) createAccount() {
	a := x.randomAccount()
	err := x.m.accounts.Create(x.ctx, x.db, a)
	_, exists := x.accts[mxAK(a)]
	switch {
	case exists:
		require.ErrorIs(x.t, err, st.ErrAlreadyExists, x.where)
	case x.emailTaken(a.Email, mxAK(a)):
		require.ErrorIs(x.t, err, st.ErrUniqueViolation, x.where)
		x.seen["unique violation"]++
	default:
		require.NoError(x.t, err, x.where)
		a.Version, a.Created, a.Updated = 1, x.now, x.now
		x.accts[mxAK(a)] = a.norm()
	}
}

func (x *mxRun) putAccount() {
	a := x.randomAccount()
	cur, exists := x.accts[mxAK(a)]
	switch x.r.IntN(4) {
	case 0:
		a.Version = 0
	case 1:
		a.Version = cur.Version + 1 // stale: ahead, or 1 for a missing item
	default:
		a.Version = cur.Version
	}
	if exists && x.r.IntN(2) == 0 {
		a.Email, a.Created = cur.Email, cur.Created // Put carries the stored created over
	}
	err := x.m.accounts.Put(x.ctx, x.db, a)
	stale := a.Version != cur.Version
	moved := exists && a.Email != cur.Email
	taken := x.emailTaken(a.Email, mxAK(a))
	switch {
	case stale && !taken:
		require.ErrorIs(x.t, err, st.ErrVersionConflict, x.where)
		x.seen["version conflict"]++
	case taken && !stale:
		require.ErrorIs(x.t, err, st.ErrUniqueViolation, x.where)
	case stale || taken:
		require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where)
	default:
		if moved {
			x.seen["email moved"]++ // Put moves the guard as Update does
		}
		require.NoError(x.t, err, x.where)
		if a.Created.IsZero() {
			a.Created = x.now
		}
		a.Version, a.Updated = a.Version+1, x.now
		x.accts[mxAK(a)] = a.norm()
	}
}

func (x *mxRun) updateAccount() {
	k := x.acctKey()
	cur, exists := x.accts[mxAK(k)]
	next := cur
	stale := false
	if exists && x.r.IntN(3) == 0 {
		k.Version = cur.Version + int64(x.r.IntN(2)) // checked when not 0
		stale = k.Version != cur.Version
	}
	var ch st.Changes
	var opts []st.UpdateOption
	condOK := true
	switch x.r.IntN(9) {
	case 0:
		plan, status := pick(x.r, mxPlans), pick(x.r, mxStatus)
		ch, next.Plan, next.Status = st.Set("Plan", plan).Set("Status", status), plan, status
	case 8: // one field of GSI1's key: Update reads the other, conditioned on it
		if x.r.IntN(2) == 0 {
			plan := pick(x.r, mxPlans)
			ch, next.Plan = st.Set("Plan", plan), plan
		} else {
			status := pick(x.r, mxStatus)
			ch, next.Status = st.Set("Status", status), status
		}
	case 1:
		ch, next.Status = st.Remove("Status"), ""
	case 2: // a guarded increment
		min := x.r.IntN(3)
		ch, next.Credits = st.Increment("Credits", 2).If(st.Ge("Credits", min)), cur.Credits+2
		condOK = cur.Credits >= min
	case 3: // the set operand in Go shapes of a set
		l := pick(x.r, []string{"x", "y#", "q"})
		ch = pick(x.r, []st.Changes{st.Add("Labels", map[string]struct{}{l: {}}), st.Add("Labels", []string{l}), st.Add("Labels", l)})
		next.Labels = normSet(append(slices.Clone(cur.Labels), l))
	case 4:
		l := pick(x.r, []string{"x", "w", "none"})
		ch = pick(x.r, []st.Changes{st.DeleteFromSet("Labels", map[string]bool{l: true}), st.DeleteFromSet("Labels", l)})
		next.Labels = normSet(slices.DeleteFunc(slices.Clone(cur.Labels), func(s string) bool { return s == l }))
	case 5:
		ch, next.Log = st.Append("Log", "e#"+fmt.Sprint(len(cur.Log))), append(slices.Clone(cur.Log), "e#"+fmt.Sprint(len(cur.Log)))
	case 6: // moves the unique email, or frees it
		email := pick(x.r, mxEmails)
		ch, next.Email = st.Set("Email", email), email
	case 7: // an upsert: a new account is what Put stores
		plan := pick(x.r, mxPlans)
		ch, next.Plan, opts = st.Set("Plan", plan), plan, []st.UpdateOption{st.Upsert()}
		if !exists {
			next = mxAccount{Org: k.Org, ID: k.ID, Plan: plan, Created: x.now}
		}
	}
	got, err := x.m.accounts.Update(x.ctx, x.db, k, ch, opts...)
	switch {
	case !exists && opts == nil:
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
	case stale && condOK:
		require.ErrorIs(x.t, err, st.ErrVersionConflict, x.where)
		x.seen["version conflict"]++
	case stale || !condOK:
		require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where)
		x.seen["condition failed"]++
	case exists && next.Email != cur.Email && x.emailTaken(next.Email, mxAK(k)):
		require.ErrorIs(x.t, err, st.ErrUniqueViolation, x.where)
		x.seen["unique violation"]++
	default:
		require.NoError(x.t, err, x.where)
		if exists && next.Email != cur.Email {
			x.seen["email moved"]++
		}
		next.Version, next.Updated = next.Version+1, x.now
		x.accts[mxAK(k)] = next.norm()
		require.Equal(x.t, next.norm(), got.norm(), x.where+": Update's returned item")
	}
}

func (x *mxRun) deleteAccount() {
	k := x.acctKey()
	cur, exists := x.accts[mxAK(k)]
	if exists && x.r.IntN(3) == 0 {
		k.Version = cur.Version + int64(x.r.IntN(2))
	}
	err := x.m.accounts.Delete(x.ctx, x.db, k)
	if exists && k.Version != 0 && k.Version != cur.Version {
		require.ErrorIs(x.t, err, st.ErrVersionConflict, x.where)
		return
	}
	require.NoError(x.t, err, x.where)
	delete(x.accts, mxAK(k))
}

// Note and event writes.

func (x *mxRun) putNote() {
	n := x.randomNote()
	if x.r.IntN(3) == 0 { // only over a pinned note
		err := x.m.notes.Put(x.ctx, x.db, n, st.If(st.Eq("Pinned", true)))
		if cur, ok := x.notes[mxNK(n)]; !ok || !cur.Pinned {
			require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where)
			x.seen["condition failed"]++
			return
		}
		require.NoError(x.t, err, x.where)
	} else {
		require.NoError(x.t, x.m.notes.Put(x.ctx, x.db, n), x.where)
	}
	x.setNote(n)
}

func (x *mxRun) createNote() {
	n := x.randomNote()
	err := x.m.notes.Create(x.ctx, x.db, n)
	if cur, exists := x.notes[mxNK(n)]; exists && !x.expired(cur) {
		require.ErrorIs(x.t, err, st.ErrAlreadyExists, x.where)
		return
	}
	require.NoError(x.t, err, x.where+": Create over nothing or an expired note")
	if _, exists := x.notes[mxNK(n)]; exists {
		x.seen["create over expired"]++
	}
	x.setNote(n)
}

func (x *mxRun) updateNote() {
	k := x.noteKey()
	cur, exists := x.notes[mxNK(k)]
	var ch st.Changes
	switch x.r.IntN(4) {
	case 0:
		tag := pick(x.r, mxTags)
		ch, cur.Tag = st.Set("Tag", tag), tag
	case 1:
		pinned := x.r.IntN(2) == 0
		ch, cur.Pinned = st.Set("Pinned", pinned), pinned
	case 2:
		exp := x.expiry()
		ch, cur.Exp = st.Set("Exp", exp), exp
	case 3:
		ch, cur.Exp = st.Remove("Exp").Set("Body", "kept"), time.Time{}
		cur.Body = "kept"
	}
	got, err := x.m.notes.Update(x.ctx, x.db, k, ch) // an expired note is still there to update
	if !exists {
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
		return
	}
	if _, old := x.oldNotes[mxNK(k)]; old { // read it and Put it first (oldNoteUpgrade)
		require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where+": Update of a note at an older revision")
		x.seen["old note update refused"]++
		return
	}
	require.NoError(x.t, err, x.where)
	x.setNote(cur)
	require.Equal(x.t, cur.norm(), got.norm(), x.where)
}

func (x *mxRun) deleteNote() {
	k := x.noteKey()
	if x.r.IntN(3) == 0 { // only a note of this tag
		tag := pick(x.r, mxTags)
		err := x.m.notes.Delete(x.ctx, x.db, k, st.If(st.Eq("Tag", tag)))
		if cur, ok := x.notes[mxNK(k)]; !ok || cur.Tag != tag || tag == "" {
			require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where)
			return
		}
		require.NoError(x.t, err, x.where)
	} else {
		require.NoError(x.t, x.m.notes.Delete(x.ctx, x.db, k), x.where)
	}
	x.dropNote(mxNK(k))
}

// tick moves the clock, mostly forward, sometimes back.
func (x *mxRun) tick() {
	x.now = x.now.Add(time.Duration(x.r.IntN(5)-1) * time.Hour).Add(time.Duration(x.r.IntN(3)-1) * time.Second)
}

func (x *mxRun) putEvent() {
	e := x.randomEvent()
	require.NoError(x.t, x.m.events.Put(x.ctx, x.db, e), x.where)
	x.events[mxEK(e)] = e.norm()
}

func (x *mxRun) deleteEvent() {
	e := x.randomEvent()
	if len(x.events) > 0 && x.r.IntN(3) != 0 {
		e = pick(x.r, slices.SortedFunc(maps.Values(x.events), func(a, b mxEvent) int { return strings.Compare(mxEventSK(a)+a.Src, mxEventSK(b)+b.Src) }))
	}
	require.NoError(x.t, x.m.events.Delete(x.ctx, x.db, e), x.where)
	delete(x.events, mxEK(e))
}

// keyLimits writes events whose keys are exactly at DynamoDB's limits, and
// one byte over: refused with ErrInvalidKey before any request.
func (x *mxRun) keyLimits() {
	at := mxBase.Add(time.Duration(x.r.IntN(3)-1) * 24 * time.Hour).Truncate(24 * time.Hour)
	e := mxEvent{Src: pick(x.r, mxSrcs), At: at, ID: pick(x.r, mxEvIDs), N: 1}
	require.NoError(x.t, x.m.events.Put(x.ctx, x.db, e), x.where)
	x.events[mxEK(e)] = e.norm()
	got, err := x.m.events.Get(x.ctx, x.db, e)
	require.NoError(x.t, err, x.where)
	require.Equal(x.t, e.norm(), got.norm(), x.where)

	over := e
	if x.r.IntN(2) == 0 {
		over.Src = mxLongSrc + "s"
	} else {
		over.ID = mxLongID + "#"
	}
	before := x.http.n.Load()
	require.ErrorIs(x.t, x.m.events.Put(x.ctx, x.db, over), st.ErrInvalidKey, x.where)
	_, err = x.m.events.Get(x.ctx, x.db, over)
	require.ErrorIs(x.t, err, st.ErrInvalidKey, x.where)
	require.ErrorIs(x.t, x.db.BatchWrite(x.ctx, []st.BatchOp{st.BatchPut(x.m.events, over)}), st.ErrInvalidKey, x.where)
	require.Equal(x.t, before, x.http.n.Load(), x.where+": a key over the limit sent a request")
}
