package main

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

// The helpdesk's tickets, as three deploys of its code see them. Each
// deploy has its own Go type and model over the same physical table; the
// key never changes. Version is the optimistic lock, which every version
// keeps; the shape revision is another thing (the attribute _rev).

// TicketV1 is revision 1: the customer in the attribute "customer".
type TicketV1 struct {
	ID       string `dynamodbav:"id"`
	Customer string `dynamodbav:"customer"`
	Subject  string `dynamodbav:"subject"`
	Replies  int    `dynamodbav:"replies"`
	Version  int64  `dynamodbav:"ver"`
}

var (
	DeskV1    = st.MustTable("Helpdesk")
	TicketsV1 = st.MustDefine[TicketV1](DeskV1, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Version("Version"), revision.Current(1))
)

// TicketV2 is revision 2: the customer renamed "customerId", a new field
// Channel, and the index GSI1 of tickets by customer.
type TicketV2 struct {
	ID         string `dynamodbav:"id"`
	CustomerID string `dynamodbav:"customerId"`
	Subject    string `dynamodbav:"subject"`
	Channel    string `dynamodbav:"channel"`
	Replies    int    `dynamodbav:"replies"`
	Version    int64  `dynamodbav:"ver"`
}

var (
	DeskV2    = st.MustTable("Helpdesk", st.WithGSI("GSI1"))
	TicketsV2 = st.MustDefine[TicketV2](DeskV2, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Index("GSI1", "CUSTOMER#{CustomerID}", "TICKET#{ID}"),
		st.Version("Version"), revision.Current(2),
		revision.UpgradeItem(1, renameCustomer))
	ByCustomerV2 = TicketsV2.Pattern("TicketsByCustomer").On("GSI1").Partition("CUSTOMER#{CustomerID}").Must()
)

// TicketV3 is revision 3: a Priority, which older tickets get from their
// channel.
type TicketV3 struct {
	ID         string `dynamodbav:"id"`
	CustomerID string `dynamodbav:"customerId"`
	Subject    string `dynamodbav:"subject"`
	Channel    string `dynamodbav:"channel"`
	Priority   int    `dynamodbav:"priority"`
	Replies    int    `dynamodbav:"replies"`
	Version    int64  `dynamodbav:"ver"`
}

var (
	DeskV3    = st.MustTable("Helpdesk", st.WithGSI("GSI1"))
	TicketsV3 = st.MustDefine[TicketV3](DeskV3, "Ticket", st.Key("TICKET#{ID}", "TICKET"),
		st.Index("GSI1", "CUSTOMER#{CustomerID}", "TICKET#{ID}"),
		st.Version("Version"), revision.Current(3),
		// Raw upgraders first: a revision-1 ticket restored from a backup
		// still reads.
		revision.UpgradeItem(1, renameCustomer),
		revision.Upgrade(2, func(t *TicketV3) error {
			if t.Priority == 0 {
				t.Priority = priorityOf(t.Channel)
			}
			return nil
		}))
	ByCustomerV3 = TicketsV3.Pattern("TicketsByCustomer").On("GSI1").Partition("CUSTOMER#{CustomerID}").Must()
)

// renameCustomer upgrades a revision-1 item to revision 2, over the raw
// item: the attribute "customer" became "customerId" (a decoded TicketV2
// has no field to hold the old one), and tickets from before channels
// came by email.
func renameCustomer(item map[string]types.AttributeValue) error {
	if c, ok := item["customer"]; ok {
		item["customerId"] = c
		delete(item, "customer")
	}
	if _, ok := item["channel"]; !ok {
		item["channel"] = &types.AttributeValueMemberS{Value: "email"}
	}
	return nil
}

// priorityOf is the priority revision 3 gives a ticket by its channel.
func priorityOf(channel string) int {
	if channel == "phone" {
		return 1
	}
	return 3
}
