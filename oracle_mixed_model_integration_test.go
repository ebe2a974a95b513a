//go:build integration

package singletable_test

// The model and the oracle's expectations of the mixed randomized oracle
// (oracle_mixed_integration_test.go): accounts and their notes in one item
// collection per organisation, and events sharded and bucketed by day.

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

// mxAccount has every managed field: a version, timestamps, a unique email
// (empty: not guarded), a sparse keys-only index by status and an
// overloaded index by plan.
type mxAccount struct {
	Org     string    `dynamodbav:"org"`
	ID      string    `dynamodbav:"id"`
	Email   string    `dynamodbav:"email,omitempty"`
	Plan    string    `dynamodbav:"plan,omitempty"`
	Status  string    `dynamodbav:"status,omitempty"`
	Credits int       `dynamodbav:"credits"`
	Labels  []string  `dynamodbav:"labels,stringset,omitempty"`
	Log     []string  `dynamodbav:"log,omitempty"`
	Version int64     `dynamodbav:"ver"`
	Created time.Time `dynamodbav:"created"`
	Updated time.Time `dynamodbav:"updated"`
}

// mxNote lives in its account's organisation partition; it expires, is in
// the overloaded index by tag, and in a sparse INCLUDE index when pinned.
// It is at shape revision 2 (mxNoteRevisions); old code writes revisions
// 0 and 1 too (oracle_mixed_revisions_integration_test.go).
type mxNote struct {
	Org    string    `dynamodbav:"org"`
	Acct   string    `dynamodbav:"acct"`
	Seq    int       `dynamodbav:"seq"`
	Tag    string    `dynamodbav:"tag,omitempty"`
	Pinned bool      `dynamodbav:"pinned"`
	Body   string    `dynamodbav:"body,omitempty"`
	Exp    time.Time `dynamodbav:"exp,unixtime,omitempty"`
	Lang   string    `dynamodbav:"lang,omitempty"`
}

// mxEvent is sharded by its ID over 3 partitions per day bucket.
type mxEvent struct {
	Src   string    `dynamodbav:"src"`
	At    time.Time `dynamodbav:"at"`
	ID    string    `dynamodbav:"eid"`
	Shard int       `dynamodbav:"shard"`
	N     int       `dynamodbav:"n"`
}

type mxModel struct {
	table    *st.Table
	accounts *st.Entity[mxAccount]
	notes    *st.Entity[mxNote]
	events   *st.Entity[mxEvent]
	// tableV1 is the same table as code at the notes' revision 1 sees it.
	tableV1 *st.Table
	notesV1 *st.Entity[mxNote]

	acctsByOrg, acctsByPlan, acctsByStatus *st.Pattern[mxAccount]
	notesByTag, pinned, notesByBody        *st.Pattern[mxNote]
	eventsBetween                          *st.Pattern[mxEvent]
	org                                    *st.Collection
}

func newMixedModel() *mxModel {
	m := &mxModel{}
	m.table = st.MustTable("MixedOracle", st.WithTTL("exp"), st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.Include("body", "exp")), st.WithGSI("GSI3", st.KeysOnly()))
	m.accounts = st.MustDefine[mxAccount](m.table, "Account",
		st.Key("ORG#{Org}", "ACCT#{ID}"),
		st.Index("GSI1", "PLAN#{Plan}", "{Status}#{Org}#{ID}"), // sparse by absence; a Set of Plan or Status alone reads the other
		st.Index("GSI3", "STATUS#{Status}", "{Org}#{ID}"),      // keys only, sparse by absence
		st.Version("Version"), st.Timestamps("Created", "Updated"), st.Unique("Email"))
	notes := func(t *st.Table, revisions ...st.EntityOption) *st.Entity[mxNote] {
		return st.MustDefine[mxNote](t, "Note", append([]st.EntityOption{
			st.Key("ORG#{Org}", "NOTE#{Acct}#{Seq:3}"),
			st.Index("GSI1", "TAG#{Tag}", "{Org}#{Acct}#{Seq:3}"),
			st.Index("GSI2", "PINNED#{Org}", "{Acct}#{Seq:3}").When(st.Eq("Pinned", true)),
			st.Index("GSI3", "BODY#{Body}", "{Org}#{Acct}#{Seq:3}"), // keys only: read with FetchFull
			st.Expires("Exp")}, revisions...)...)
	}
	m.notes = notes(m.table, revision.Current(2), revision.UpgradeItem(0, mxRenameLanguage), revision.Upgrade(1, mxDefaultLang))
	m.tableV1 = st.MustTable("MixedOracle", st.WithTTL("exp"), st.WithGSI("GSI1"),
		st.WithGSI("GSI2", st.Include("body", "exp")), st.WithGSI("GSI3", st.KeysOnly()))
	m.notesV1 = notes(m.tableV1, revision.Current(1), revision.UpgradeItem(0, mxRenameLanguage))
	m.events = st.MustDefine[mxEvent](m.table, "Event",
		st.Key("EV#{Src}#{At:2006-01-02}#{Shard}", "{At}#{ID}"), st.Shards("Shard", 3).By("ID"))
	m.acctsByOrg = m.accounts.Pattern("AccountsOfOrg").Partition("ORG#{Org}").Must()
	m.acctsByPlan = m.accounts.Pattern("AccountsByPlan").On("GSI1").Partition("PLAN#{Plan}").Must()
	m.acctsByStatus = m.accounts.Pattern("AccountsByStatus").On("GSI3").Partition("STATUS#{Status}").Must()
	m.notesByTag = m.notes.Pattern("NotesByTag").On("GSI1").Partition("TAG#{Tag}").Must()
	m.notesByBody = m.notes.Pattern("NotesByBody").On("GSI3").Partition("BODY#{Body}").Must()
	m.pinned = m.notes.Pattern("PinnedNotes").On("GSI2").Partition("PINNED#{Org}").Must()
	m.eventsBetween = m.events.Pattern("EventsBetween").SortBetween().Must()
	m.org = m.table.Collection("Organisation", m.accounts, m.notes).Partition("ORG#{Org}").Must()
	return m
}

// The notes' shape revisions: revision 0 (code from before revisions)
// stored the language as "language", revision 1 as "lang"; revision 2
// reads a note without one as English.
func mxRenameLanguage(item map[string]types.AttributeValue) error {
	if l, ok := item["language"]; ok {
		item["lang"] = l
		delete(item, "language")
	}
	return nil
}

func mxDefaultLang(n *mxNote) error {
	if n.Lang == "" {
		n.Lang = "en"
	}
	return nil
}

// The value pools: delimiters, escapes, unicode, zero numbers; and, for
// events, keys exactly at DynamoDB's limits (PK 2048 bytes with a day
// bucket and one shard digit, SK 1024 bytes with '#' escaped to 3 bytes).
var (
	mxOrgs    = []string{"o1", "o#2", "o%3", "ü$", "#"}
	mxIDs     = []string{"a", "a#b", "%23", "é", "$", "a#", "b"}
	mxEmails  = []string{"", "ann@x", "bob@x", "c#%@x", "ü@x"}
	mxPlans   = []string{"", "free", "pro#1"}
	mxStatus  = []string{"", "ACTIVE", "LOCKED"}
	mxTags    = []string{"", "t", "t#2", "%"}
	mxLangs   = []string{"", "en", "fr#", "ü"}
	mxSeqs    = []int{0, 1, 42, 999}
	mxLongSrc = strings.Repeat("s", 2048-len("EV#")-len("#2099-03-10#0"))
	mxLongID  = strings.Repeat("#", (1024-len("2099-03-10T00:00:00.000000000Z#"))/3)
	mxSrcs    = []string{"s1", "s#2", mxLongSrc}
	mxEvIDs   = []string{"e1", "e#2", "%", "é$", mxLongID}
	mxBase    = time.Date(2099, 3, 10, 12, 0, 0, 0, time.UTC) // DynamoDB Local deletes items expired by the real clock
)

func mxAcctSK(a mxAccount) string     { return "ACCT#" + esc(a.ID) }
func mxNoteSK(n mxNote) string        { return fmt.Sprintf("NOTE#%s#%03d", esc(n.Acct), n.Seq) }
func mxAcctGSI(a mxAccount) string    { return esc(a.Org) + "#" + esc(a.ID) }
func mxAcctByPlan(a mxAccount) string { return esc(a.Status) + "#" + mxAcctGSI(a) }
func mxNoteGSI1(n mxNote) string      { return esc(n.Org) + "#" + mxNoteGSI2(n) }
func mxNoteGSI2(n mxNote) string      { return fmt.Sprintf("%s#%03d", esc(n.Acct), n.Seq) }
func mxEventSK(e mxEvent) string {
	return e.At.UTC().Format("2006-01-02T15:04:05.000000000Z07:00") + "#" + esc(e.ID)
}

type mxAcctKey struct{ org, id string }
type mxNoteKey struct {
	org, acct string
	seq       int
}
type mxEventKey struct {
	src, id string
	at      int64
}

func mxAK(a mxAccount) mxAcctKey { return mxAcctKey{a.Org, a.ID} }
func mxNK(n mxNote) mxNoteKey    { return mxNoteKey{n.Org, n.Acct, n.Seq} }
func mxEK(e mxEvent) mxEventKey  { return mxEventKey{e.Src, e.ID, e.At.Unix()} }

// Normalized values compare equal to what reads return: times in UTC,
// empty collections nil, sets sorted; an event's shard is the library's.
func (a mxAccount) norm() mxAccount {
	a.Created, a.Updated = a.Created.UTC(), a.Updated.UTC()
	a.Labels = normSet(a.Labels)
	if len(a.Log) == 0 {
		a.Log = nil
	}
	return a
}

func (n mxNote) norm() mxNote {
	n.Exp = n.Exp.UTC() // a zero expiry is stored (as the SDK stores it) and reads back in time.Local
	return n
}

func (e mxEvent) norm() mxEvent { e.At, e.Shard = e.At.UTC(), 0; return e }

func normSet(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Compact(slices.Sorted(slices.Values(s)))
}

// sortedBy returns vs ordered by key, each passed through view.
func sortedBy[T any](vs []T, key func(T) string, view func(T) T) []T {
	out := slices.Clone(vs)
	slices.SortFunc(out, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	for i := range out {
		out[i] = view(out[i])
	}
	if out == nil {
		out = []T{}
	}
	return out
}

func same[T any](v T) T { return v }

// mxPages reads every page of a read with a random Limit (or none), each
// page resumed from the last one's cursor: nothing may be lost or repeated.
func mxPages[T any](t *testing.T, r *rand.Rand, norm func(T) T, read func(opts ...st.QueryOption) (*st.Page[T], error)) []T {
	t.Helper()
	out := []T{}
	limit := []int{0, 1, 2, 3, 7}[r.IntN(5)]
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 2000, "paging does not end")
		var opts []st.QueryOption
		if limit > 0 {
			opts = append(opts, st.Limit(limit))
		}
		if cursor != "" {
			opts = append(opts, st.After(cursor))
		}
		page, err := read(opts...)
		require.NoError(t, err)
		if limit > 0 {
			require.LessOrEqual(t, len(page.Items), limit)
		}
		for _, v := range page.Items {
			out = append(out, norm(v))
		}
		if page.Cursor == "" {
			return out
		}
		cursor = page.Cursor
	}
}

// mxNarrow passes mxPages' options (Limit, After) on to a read that takes
// a narrower option interface than QueryOption (an entity's or a
// collection's query), followed by more.
func mxNarrow[O st.QueryOption](opts []st.QueryOption, more ...O) []O {
	out := make([]O, 0, len(opts)+len(more))
	for _, o := range opts {
		out = append(out, o.(O))
	}
	return append(out, more...)
}

// mxCountingHTTP counts the HTTP requests that reach DynamoDB Local: a
// refused input must send none.
type mxCountingHTTP struct {
	next interface {
		Do(*http.Request) (*http.Response, error)
	}
	n atomic.Int64
}

func (c *mxCountingHTTP) Do(req *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.Do(req)
}
