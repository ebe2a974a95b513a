package capacity_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/singletabletest"
)

// Estimates over multi-attribute index keys: tickets by tenant and queue,
// sorted by status then priority, in an index that projects ALL (ByQueue)
// and in one that projects keys only (ByQueueKeys). Priority is omitted
// when zero, so a ticket without one lacks the last sort attribute: it is
// in neither index.

type Ticket struct {
	Tenant   string `dynamodbav:"tenant"`
	ID       string `dynamodbav:"id"`
	Queue    string `dynamodbav:"queue"`
	Status   string `dynamodbav:"status,omitempty"`
	Priority int    `dynamodbav:"priority,omitempty"`
	Body     string `dynamodbav:"body"`
}

func nativeModel(t *testing.T) (*st.Entity[Ticket], *st.Pattern[Ticket], *st.DB) {
	t.Helper()
	tbl := st.MustTable("CapDesk",
		st.WithGSI("ByQueue", st.IndexKeys("tenant,queue", "status,priority")),
		st.WithGSI("ByQueueKeys", st.IndexKeys("tenant,queue", "status,priority"), st.KeysOnly()))
	tickets := st.MustDefine[Ticket](tbl, "Ticket", st.Key("T#{Tenant}#TK#{ID}", "TICKET"))
	keys := tickets.Pattern("QueueKeys").On("ByQueueKeys").Must()
	return tickets, keys, st.New(&singletabletest.Client{}, tbl)
}

// only is item restricted to attrs.
func only(item map[string]types.AttributeValue, attrs ...string) map[string]types.AttributeValue {
	out := map[string]types.AttributeValue{}
	for _, a := range attrs {
		if v, ok := item[a]; ok {
			out[a] = v
		}
	}
	return out
}

// TestNativeIndexWrites: an index write of a multi-attribute key costs
// the projected item, which holds nothing synthetic; an item lacking any
// key attribute (the last sort one included) is not written to the
// index; a change of any key attribute is a delete and a put there, of
// anything else a rewrite of an ALL entry and nothing on a KEYS_ONLY one.
func TestNativeIndexWrites(t *testing.T) {
	tickets, _, db := nativeModel(t)
	open := Ticket{Tenant: "acme", ID: "1", Queue: "billing", Status: "OPEN", Priority: 7, Body: strings.Repeat("x", 2500)}
	item := singletabletest.Item(t, db, tickets, open)
	assert.ElementsMatch(t, []string{"PK", "SK", "_type", "tenant", "id", "queue", "status", "priority", "body"}, keysOf(item),
		"nothing is written for the index")

	w, err := capacity.WriteOf(tickets, open)
	require.NoError(t, err)
	assert.Equal(t, capacity.ItemSize(item), w.ItemBytes)
	assert.Equal(t, 3.0, w.Put.Table)
	assert.Equal(t, map[string]float64{"ByQueue": 3, "ByQueueKeys": 1}, w.Put.Index, "ALL: the item; KEYS_ONLY: its keys")
	assert.Equal(t, w.Put.Index, w.Delete.Index)

	for name, v := range map[string]Ticket{
		"no status (the first sort attribute)":  {Tenant: "acme", ID: "2", Queue: "billing", Priority: 7},
		"no priority (the last sort attribute)": {Tenant: "acme", ID: "3", Queue: "billing", Status: "OPEN"},
		"no queue (the last partition one)":     {Tenant: "acme", ID: "4", Status: "OPEN", Priority: 7},
	} {
		w, err := capacity.WriteOf(tickets, v)
		require.NoError(t, err)
		assert.Nil(t, w.Put.Index, "%s: in no index", name)
		assert.Equal(t, 1.0, w.Put.Units, name)
	}

	for _, c := range []struct {
		what   string
		change func(*Ticket)
		want   map[string]float64
	}{
		{"the priority (the last sort attribute)", func(v *Ticket) { v.Priority = 9 }, map[string]float64{"ByQueue": 6, "ByQueueKeys": 2}},
		{"the queue (the last partition attribute)", func(v *Ticket) { v.Queue = "login" }, map[string]float64{"ByQueue": 6, "ByQueueKeys": 2}},
		{"the body (no key)", func(v *Ticket) { v.Body += "y" }, map[string]float64{"ByQueue": 3}},
		{"the priority to none (out of both)", func(v *Ticket) { v.Priority = 0 }, map[string]float64{"ByQueue": 3, "ByQueueKeys": 1}},
	} {
		after := open
		c.change(&after)
		mv, err := capacity.MoveOf(tickets, open, after)
		require.NoError(t, err)
		assert.Equal(t, c.want, mv.Index, "a change of %s", c.what)
		assert.Equal(t, 3.0, mv.Table, c.what)
	}
	draft := open
	draft.Priority = 0
	mv, err := capacity.MoveOf(tickets, draft, open)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"ByQueue": 3, "ByQueueKeys": 1}, mv.Index, "a priority given: the item enters both, a put each")
}

// TestNativeIndexRead: a page read from a KEYS_ONLY multi-attribute index
// reads entries of every key attribute, the table's and the index's.
func TestNativeIndexRead(t *testing.T) {
	tickets, keys, db := nativeModel(t)
	v := Ticket{Tenant: "acme", ID: "1", Queue: "billing", Status: "OPEN", Priority: 7, Body: strings.Repeat("x", 2500)}
	item := singletabletest.Item(t, db, tickets, v)
	r, err := capacity.PageOf(keys, tickets, v, 1, false)
	require.NoError(t, err)
	assert.Equal(t, "ByQueueKeys", r.Index)
	assert.Equal(t, capacity.ItemSize(only(item, "PK", "SK", "tenant", "queue", "status", "priority")), r.Bytes)
}

func keysOf(item map[string]types.AttributeValue) []string {
	var out []string
	for k := range item {
		out = append(out, k)
	}
	return out
}
