//go:build integration

package singletable_test

// The mixed randomized oracle, part two (issue 24): members of tenants on
// a multi-attribute index (partition tenant and team, sort role then
// level, a number) and an email unique within the tenant. Random creates,
// puts and updates claim, move (value, scope, both) and free emails,
// delete members and move them in and out of the index (an empty team or
// role leaves it: sparse); every outcome, every query over the index and
// every guard item stored is checked against an in-memory oracle.

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/soak"
	"github.com/singletable/singletable/singletabletest"
)

type mnMember struct {
	ID     string `dynamodbav:"id"`
	Tenant string `dynamodbav:"tenant"`
	Email  string `dynamodbav:"email,omitempty" singletable:"unique within Tenant"`
	Team   string `dynamodbav:"team,omitempty"`
	Role   string `dynamodbav:"role,omitempty"`
	Level  int    `dynamodbav:"level"`
}

var (
	mnTable   = st.MustTable("MixedNative", st.WithGSI("ByTeam", st.IndexKeys("tenant,team", "role,level")))
	mnMembers = st.MustDefine[mnMember](mnTable, "Member", st.Key("MEMBER#{ID}", "MEMBER"))
	mnAll     = mnMembers.Pattern("MnTeam").On("ByTeam").SortPrefix().Must()
	mnAtLeast = mnMembers.Pattern("MnAtLeast").On("ByTeam").SortGreaterOrEqual().Must()
	mnBelow   = mnMembers.Pattern("MnBelow").On("ByTeam").SortLessThan().Must()
	mnBetween = mnMembers.Pattern("MnBetween").On("ByTeam").SortBetween().Must()
)

func TestIntegrationMixedOracleNativeAndScopedUnique(t *testing.T) {
	seen := map[string]int{}
	seeds := []uint64{21, 22, 23}
	for _, seed := range seeds[:soak.Size(1, len(seeds))] {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runNativeOracle(t, seed, soak.Size(160, 600), seen) })
	}
	for _, outcome := range []string{"claimed", "unique violation", "already exists", "not found", "put moved", "update moved value",
		"update moved scope", "freed", "deleted", "left the index", "query", "query empty"} {
		require.Positive(t, seen[outcome], "no %q in any run: %v", outcome, seen)
	}
	t.Logf("outcomes: %v", seen)
}

type mnRun struct {
	t    *testing.T
	ctx  context.Context
	r    *rand.Rand
	db   *st.DB
	seen map[string]int
	m    map[string]mnMember // the oracle: members by ID
}

func (x *mnRun) pick(vals ...string) string { return vals[x.r.IntN(len(vals))] }

func (x *mnRun) member() mnMember {
	return mnMember{ID: x.pick("m1", "m2", "m3", "m4", "m5", "m6"), Tenant: x.pick("t1", "t2"), Email: x.pick("a", "b", "c", ""),
		Team: x.pick("x", "y", ""), Role: x.pick("admin", "agent", ""), Level: x.r.IntN(4)}
}

// holder is the member other than id holding email in tenant ("": none).
func (x *mnRun) holder(tenant, email, id string) string {
	if email == "" {
		return ""
	}
	for _, m := range x.m {
		if m.ID != id && m.Tenant == tenant && m.Email == email {
			return m.ID
		}
	}
	return ""
}

func runNativeOracle(t *testing.T, seed uint64, steps int, seen map[string]int) {
	x := &mnRun{t: t, ctx: t.Context(), r: rand.New(rand.NewPCG(seed, 24)), db: singletabletest.LocalDB(t, mnTable), seen: seen, m: map[string]mnMember{}}
	for step := range steps {
		where := fmt.Sprintf("seed %d step %d", seed, step)
		switch n := x.r.IntN(10); {
		case n < 2:
			x.create(where)
		case n < 4:
			x.put(where)
		case n < 6:
			x.updateUnique(where)
		case n < 7:
			x.updateIndex(where)
		case n < 8:
			x.delete(where)
		default:
			x.query(where)
		}
		if step%40 == 39 {
			x.checkGuards(where)
		}
	}
	x.checkGuards("end")
}

// outcome checks err against the oracle's expectation and counts it.
func (x *mnRun) outcome(where, what string, err error, wantErr error) {
	x.t.Helper()
	if wantErr == nil {
		require.NoError(x.t, err, "%s: %s", where, what)
		return
	}
	require.ErrorIs(x.t, err, wantErr, "%s: %s", where, what)
}

func (x *mnRun) create(where string) {
	v := x.member()
	_, exists := x.m[v.ID]
	err := mnMembers.Create(x.ctx, x.db, v)
	switch {
	case exists:
		x.outcome(where, "create over an existing member", err, st.ErrAlreadyExists)
		x.seen["already exists"]++
	case x.holder(v.Tenant, v.Email, v.ID) != "":
		x.outcome(where, "create of a taken email", err, st.ErrUniqueViolation)
		x.seen["unique violation"]++
	default:
		x.outcome(where, "create", err, nil)
		x.m[v.ID] = v
		x.seen["claimed"]++
	}
}

func (x *mnRun) put(where string) {
	v := x.member()
	old, exists := x.m[v.ID]
	err := mnMembers.Put(x.ctx, x.db, v)
	if x.holder(v.Tenant, v.Email, v.ID) != "" {
		x.outcome(where, "put of a taken email", err, st.ErrUniqueViolation)
		x.seen["unique violation"]++
		return
	}
	x.outcome(where, "put", err, nil)
	if exists && old.Email != "" && (old.Email != v.Email || old.Tenant != v.Tenant) {
		x.seen["put moved"]++
	}
	x.m[v.ID] = v
}

func (x *mnRun) updateUnique(where string) {
	v := x.member()
	old, exists := x.m[v.ID]
	ch := st.Set("Email", v.Email)
	switch x.r.IntN(3) {
	case 0:
		v.Tenant = old.Tenant
	case 1:
		ch, v.Email = st.Set("Tenant", v.Tenant), old.Email
	default:
		ch = ch.Set("Tenant", v.Tenant)
	}
	got, err := mnMembers.Update(x.ctx, x.db, mnMember{ID: v.ID}, ch)
	switch {
	case !exists:
		x.outcome(where, "update of a missing member", err, st.ErrNotFound)
		x.seen["not found"]++
		return
	case x.holder(v.Tenant, v.Email, v.ID) != "":
		x.outcome(where, "update to a taken email", err, st.ErrUniqueViolation)
		x.seen["unique violation"]++
		return
	}
	x.outcome(where, "update", err, nil)
	want := old
	want.Email, want.Tenant = v.Email, v.Tenant
	require.Equal(x.t, want, got, where)
	switch {
	case old.Email != "" && want.Email == "":
		x.seen["freed"]++
	case old.Email != "" && old.Email != want.Email:
		x.seen["update moved value"]++
	case old.Email != "" && old.Tenant != want.Tenant:
		x.seen["update moved scope"]++
	}
	x.m[v.ID] = want
}

func (x *mnRun) updateIndex(where string) {
	v := x.member()
	old, exists := x.m[v.ID]
	got, err := mnMembers.Update(x.ctx, x.db, mnMember{ID: v.ID}, st.Set("Team", v.Team).Set("Role", v.Role).Set("Level", v.Level))
	if !exists {
		x.outcome(where, "update of a missing member", err, st.ErrNotFound)
		x.seen["not found"]++
		return
	}
	x.outcome(where, "update of the index keys", err, nil)
	want := old
	want.Team, want.Role, want.Level = v.Team, v.Role, v.Level
	require.Equal(x.t, want, got, where)
	if (old.Team != "" && old.Role != "") && (want.Team == "" || want.Role == "") {
		x.seen["left the index"]++
	}
	x.m[v.ID] = want
}

func (x *mnRun) delete(where string) {
	id := x.member().ID
	_, exists := x.m[id]
	x.outcome(where, "delete", mnMembers.Delete(x.ctx, x.db, mnMember{ID: id}), nil)
	if exists {
		x.seen["deleted"]++
	}
	delete(x.m, id)
}

// query reads one tenant and team through the index with a random sort
// condition, page by page, and compares with the oracle: the members with
// that tenant and team and a role (sparse), in (role, level) order.
func (x *mnRun) query(where string) {
	p := x.member()
	if m, ok := x.m[p.ID]; ok && x.r.IntN(2) == 0 {
		p.Tenant, p.Team, p.Role = m.Tenant, m.Team, m.Role // a partition that holds a member
	}
	if p.Team == "" {
		p.Team = "x"
	}
	if p.Role == "" {
		p.Role = "agent"
	}
	lo, hi := min(p.Level, 2), max(p.Level, 2)
	keep := func(m mnMember) bool { return true }
	pat, params, opts := mnAll, mnMember{Tenant: p.Tenant, Team: p.Team}, []st.QueryOption{st.Limit(1 + x.r.IntN(3))}
	var all []mnMember
	var err error
	switch x.r.IntN(5) {
	case 0:
	case 1:
		// The role alone: the zero level after it is not given.
		params.Role = p.Role
		keep = func(m mnMember) bool { return m.Role == p.Role }
	case 2:
		// A level 0 is compared too: a comparison takes the zero number
		// after the last field set.
		pat, params.Role, params.Level = mnAtLeast, p.Role, p.Level
		keep = func(m mnMember) bool { return m.Role == p.Role && m.Level >= p.Level }
	case 3:
		pat, params.Role, params.Level = mnBelow, p.Role, p.Level
		keep = func(m mnMember) bool { return m.Role == p.Role && m.Level < p.Level }
	default:
		var page *st.Page[mnMember]
		page, err = mnBetween.QueryBetween(x.ctx, x.db, mnMember{Tenant: p.Tenant, Team: p.Team, Role: p.Role, Level: lo}, mnMember{Tenant: p.Tenant, Team: p.Team, Role: p.Role, Level: hi})
		require.NoError(x.t, err, where)
		all = page.Items
		keep = func(m mnMember) bool { return m.Role == p.Role && m.Level >= lo && m.Level <= hi }
		pat = nil
	}
	desc := x.r.IntN(2) == 0
	if pat != nil {
		if desc {
			opts = append(opts, st.Descending())
		}
		// Page by page: Limit is the page's size here (All's would cap
		// the total), each next page resumed from the last one's cursor.
		for after := ""; ; {
			o := opts
			if after != "" {
				o = append(slices.Clone(opts), st.After(after))
			}
			page, err := pat.Query(x.ctx, x.db, params, o...)
			require.NoError(x.t, err, where)
			all = append(all, page.Items...)
			if after = page.Cursor; after == "" {
				break
			}
		}
	} else {
		desc = false
	}
	var want []mnMember
	for _, m := range x.m {
		if m.Tenant == p.Tenant && m.Team == p.Team && m.Role != "" && keep(m) {
			want = append(want, m)
		}
	}
	order := func(a, b mnMember) int {
		c := cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Level, b.Level))
		if desc {
			return -c
		}
		return c
	}
	slices.SortStableFunc(want, order)
	// Items of equal keys come in no order the service promises: compare
	// the sort keys in order and the items as a set.
	keysOf := func(ms []mnMember) []string {
		var out []string
		for _, m := range ms {
			out = append(out, fmt.Sprint(m.Role, "/", m.Level))
		}
		return out
	}
	require.Equal(x.t, keysOf(want), keysOf(all), "%s: the index's order (GSI reads are eventually consistent; DynamoDB Local's are not)", where)
	require.ElementsMatch(x.t, want, all, where)
	x.seen["query"]++
	if len(want) == 0 {
		x.seen["query empty"]++
	}
}

// checkGuards compares the guard items stored with the oracle: one per
// member holding an email, keyed by tenant and email, owned by it.
func (x *mnRun) checkGuards(where string) {
	want := map[string]string{}
	for _, m := range x.m {
		if m.Email != "" {
			want["_unique#Member#email#tenant#"+m.Tenant+"#"+m.Email] = "MEMBER#" + m.ID
		}
	}
	got := map[string]string{}
	res, err := x.db.Client().Scan(x.ctx, &dynamodb.ScanInput{TableName: aws.String(x.db.TableName()), ConsistentRead: aws.Bool(true)})
	require.NoError(x.t, err)
	require.Nil(x.t, res.LastEvaluatedKey, "a small table: one page")
	members := 0
	for _, item := range res.Items {
		pk, _ := sOf(item, "PK")
		if owner, ok := sOf(item, "_ownerPK"); ok {
			got[pk] = owner
		} else {
			members++
		}
	}
	require.Equal(x.t, want, got, "%s: the guards stored", where)
	require.Equal(x.t, len(x.m), members, "%s: the members stored", where)
}
