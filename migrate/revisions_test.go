package migrate_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/revision"
	"github.com/singletable/singletable/singletabletest"
)

// revTicket is revision 2 of a ticket: revision 0 stored the customer as
// "Customer" (raw upgrader 0 → 1), revision 1 had no priority (typed
// upgrader 1 → 2).
type revTicket struct {
	ID         string
	CustomerID string
	Title      string
	Priority   int
}

func renameCustomer(item map[string]types.AttributeValue) error {
	if c, ok := item["Customer"]; ok {
		item["CustomerID"] = c
		delete(item, "Customer")
	}
	return nil
}

func revTickets(extra ...st.EntityOption) *st.Entity[revTicket] {
	tb := st.MustTable("Desk")
	opts := append([]st.EntityOption{st.Key("T#{ID}", "T"), revision.Current(2),
		revision.UpgradeItem(0, renameCustomer),
		revision.Upgrade(1, func(v *revTicket) error {
			if v.Priority == 0 {
				v.Priority = 3
			}
			return nil
		})}, extra...)
	return st.MustDefine[revTicket](tb, "Ticket", opts...)
}

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// revItem is ticket id stored at revision rev: 0 and 1 in their old
// shapes, 2 as the entity writes it, anything newer with an attribute the
// entity does not know.
func revItem(t *testing.T, e *st.Entity[revTicket], id string, rev int) map[string]types.AttributeValue {
	t.Helper()
	switch rev {
	case 0:
		return map[string]types.AttributeValue{"PK": s("T#" + id), "SK": s("T"), "_type": s("Ticket"), "ID": s(id), "Customer": s("c-" + id), "Title": s("t")}
	case 1:
		return map[string]types.AttributeValue{"PK": s("T#" + id), "SK": s("T"), "_type": s("Ticket"), "ID": s(id), "CustomerID": s("c-" + id), "Title": s("t"), "_rev": n("1")}
	}
	in, err := e.PutInput(st.New(&singletabletest.Client{}, e.Table()), revTicket{ID: id, CustomerID: "c-" + id, Title: "t", Priority: 1})
	require.NoError(t, err)
	if rev > 2 {
		in.Item["_rev"] = n(string(rune('0' + rev)))
		in.Item["Escalation"] = s("only revision 3 knows")
	}
	return in.Item
}

// TestUpgradeRevisionsRequests counts what the pass sends: a dry run only
// scans; a pass writes the older items, one conditioned PutItem each, and
// never the current or newer ones, ReadNewer or not.
func TestUpgradeRevisionsRequests(t *testing.T) {
	ctx := context.Background()
	for _, readNewer := range []bool{false, true} {
		var opts []st.EntityOption
		if readNewer {
			opts = append(opts, revision.ReadNewer())
		}
		e := revTickets(opts...)
		items := []map[string]types.AttributeValue{revItem(t, e, "a", 0), revItem(t, e, "b", 1), revItem(t, e, "c", 2), revItem(t, e, "d", 3)}
		client := &singletabletest.Client{ScanFunc: scanOnce(items...)}
		db := st.New(client, e.Table())

		var changes []migrate.Change
		rep, err := migrate.UpgradeRevisions(ctx, db, e, migrate.DryRun(), migrate.OnChange(func(c migrate.Change) { changes = append(changes, c) }))
		require.NoError(t, err)
		assert.Equal(t, []string{"Scan"}, callOps(client), "a dry run writes nothing")
		assert.Equal(t, map[int]int64{0: 1, 1: 1, 2: 1, 3: 1}, rep.RevisionsBefore)
		assert.Equal(t, map[int]int64{2: 3, 3: 1}, rep.RevisionsAfter, "as they would be")
		assert.Equal(t, [4]int64{4, 2, 1, 1}, [4]int64{rep.Scanned, rep.Changed, rep.Skipped, rep.Failed})
		require.Len(t, rep.Failures, 1)
		assert.ErrorIs(t, rep.Failures[0].Err, revision.ErrNewer, "readNewer %v", readNewer)
		require.Len(t, changes, 2)
		assert.Equal(t, []string{"Customer", "CustomerID", "Priority", "_rev"}, changes[0].Attributes)

		client.Reset()
		rep, err = migrate.UpgradeRevisions(ctx, db, e)
		require.NoError(t, err)
		assert.Equal(t, []string{"Scan", "PutItem", "PutItem"}, callOps(client))
		assert.Equal(t, map[int]int64{2: 3, 3: 1}, rep.RevisionsAfter)
		put := calls(client, "PutItem")[0].(*dynamodb.PutItemInput)
		assert.Equal(t, map[string]types.AttributeValue{"PK": s("T#a"), "SK": s("T"), "_type": s("Ticket"), "ID": s("a"), "CustomerID": s("c-a"),
			"Title": s("t"), "Priority": n("3"), "_rev": n("2")}, put.Item, "upgraded, the renamed attribute gone")
		assert.Contains(t, *put.ConditionExpression, "attribute_not_exists", "unchanged: the revision still absent")
	}
}

// TestUpgradeRevisionsRefusals: the pass of an entity without revisions,
// or a nil one, sends nothing.
func TestUpgradeRevisionsRefusals(t *testing.T) {
	client := &singletabletest.Client{}
	tb := st.MustTable("Desk")
	plain := st.MustDefine[revTicket](tb, "Ticket", st.Key("T#{ID}", "T"))
	_, err := migrate.UpgradeRevisions(context.Background(), st.New(client, tb), plain)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "declares no shape revision")
	_, err = migrate.UpgradeRevisions[revTicket](context.Background(), st.New(client, tb), nil)
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Empty(t, client.Calls())
}

func callOps(c *singletabletest.Client) []string {
	var out []string
	for _, call := range c.Calls() {
		out = append(out, call.Op)
	}
	return out
}
