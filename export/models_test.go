package export_test

import (
	"time"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/testmodel"
)

// The models the exports are golden-tested with: the seed models of
// internal/testmodel, and one with every feature a table can declare.

// exported is a model with the options its exports are made with.
type exported struct {
	name  string
	table *st.Table
	opts  export.Options
}

func seedModel() exported {
	s := testmodel.NewSeed()
	samples := []any{testmodel.SeedUsers[0], testmodel.SeedUsers[2], testmodel.SeedOrders[1], testmodel.SeedOrders[0],
		testmodel.OrderDetail{OrderID: "order_456", UserID: "user_123", Status: "PENDING", Total: 39, Created: "2026-02-17"},
		testmodel.SeedOrderItems[0], testmodel.SeedMemberships[0]}
	return exported{name: "seed", table: s.Table, opts: export.Options{Samples: samples}}
}

func shopModel() exported {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return exported{name: "shop", table: testmodel.Shop, opts: export.Options{Samples: []any{
		testmodel.ShopUser{ID: "u1", Name: "Ann", Email: "ann@example.com", CreatedAt: at},
		testmodel.ShopOrder{UserID: "u1", ID: "o1", Date: "2026-01-02", Status: "FLAGGED", Total: 12.5},
		testmodel.ShopOrderItem{OrderID: "o1", ProductID: "p1", ProductName: "Pen", Quantity: 2, Price: 1.25},
		testmodel.ShopProduct{ID: "p1", Name: "Pen", Category: "office", Price: 1.25, Inventory: 40},
		testmodel.ShopSession{ID: "s1", UserID: "u1", Expires: at.Add(time.Hour)},
	}}}
}

// Every feature: provisioned capacity with an index of its own, an
// overloaded index with a sparse When key, a keys-only index, an INCLUDE
// index, an inverted index over the table's keys, an index over a field's
// own attribute, TTL with ExpiresAfter, a stream, managed fields, write
// shards with a fan-out pattern, a collection and a relation.
type (
	fUser struct {
		ID      string    `dynamodbav:"id"`
		Email   string    `dynamodbav:"email,omitempty"`
		Plan    string    `dynamodbav:"plan"`
		Tags    []string  `dynamodbav:"tags,stringset,omitempty"`
		Admin   bool      `dynamodbav:"admin"`
		Version int64     `dynamodbav:"version" singletable:"version"`
		Created time.Time `dynamodbav:"created" singletable:"created"`
		Updated time.Time `dynamodbav:"updated" singletable:"updated"`
	}
	fTicket struct {
		UserID string            `dynamodbav:"userId"`
		ID     string            `dynamodbav:"ticketId"`
		Status string            `dynamodbav:"status"`
		Opened string            `dynamodbav:"opened"`
		Meta   map[string]string `dynamodbav:"meta,omitempty"`
		Expiry int64             `dynamodbav:"ttl"`
	}
	fFollow struct {
		From string `dynamodbav:"from"`
		To   string `dynamodbav:"to"`
	}
	fCounter struct {
		Page  string `dynamodbav:"page"`
		Shard int    `dynamodbav:"shard"`
		Views int64  `dynamodbav:"views"`
	}
)

func fullTable(name string) *st.Table {
	return st.MustTable(name,
		st.WithProvisioned(5, 5),
		st.WithGSI("GSI1", st.IndexThroughput(3, 2)),
		st.WithGSI("GSI2", st.KeysOnly()),
		st.WithGSI("GSI3", st.Include("status", "ttl")),
		st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()),
		st.WithGSI("ByEmail", st.IndexKeys("email", "")),
		st.WithTTL("ttl"),
		st.WithStream(st.StreamNewAndOldImages),
	)
}

func fullModel(name string, o export.Options) exported {
	t := fullTable(name)
	users := st.MustDefine[fUser](t, "User", st.Key("USER#{ID}", "PROFILE"),
		st.Index("GSI1", "PLAN#{Plan}", "USER#{ID}"), st.Unique("Email"))
	tickets := st.MustDefine[fTicket](t, "Ticket", st.Key("USER#{UserID}", "TICKET#{Opened}#{ID}"),
		st.Index("GSI1", "STATUS#{Status}", "{Opened}#{ID}").When(st.Eq("Status", "OPEN")),
		st.Index("GSI2", "TICKET#{ID}", "TICKET"),
		st.Index("GSI3", "OPENED#{Opened}", "{ID}"),
		st.Expires("Expiry"), st.ExpiresAfter(90*24*time.Hour))
	st.MustDefine[fFollow](t, "Follow", st.Key("USER#{From}", "FOLLOWS#{To}"))
	counters := st.MustDefine[fCounter](t, "Counter", st.Key("PAGE#{Page}#{Shard}", "COUNTER"), st.Shards("Shard", 4))
	users.Pattern("UsersOnPlan").On("GSI1").Partition("PLAN#{Plan}").Must()
	tickets.Pattern("OpenTickets").On("GSI1").Partition("STATUS#OPEN").Descending().Must()
	tickets.Pattern("TicketByID").On("GSI2").Partition("TICKET#{ID}").Must()
	tickets.Pattern("UserTickets").Partition("USER#{UserID}").SortBeginsWith("TICKET#").Must()
	counters.Pattern("PageViews").Must()
	t.Collection("UserAndTickets", users, tickets).Partition("USER#{UserID}").Must()
	o.Relations = []export.Relation{{Name: "Follows", From: "User", Edge: "Follow", To: "User"}}
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	o.Samples = []any{
		fUser{ID: "u1", Email: "ann@example.com", Plan: "pro", Tags: []string{"vip"}, Admin: true, Version: 3, Created: at, Updated: at},
		&fTicket{UserID: "u1", ID: "t1", Status: "OPEN", Opened: "2026-03-04", Meta: map[string]string{"via": "mail"}, Expiry: at.Unix()},
		fTicket{UserID: "u1", ID: "t2", Status: "CLOSED", Opened: "2026-03-01"},
		export.Sample{Entity: "Follow", Value: fFollow{From: "u1", To: "u2"}},
		fCounter{Page: "home", Shard: 2, Views: 41},
	}
	return exported{name: name, table: t, opts: o}
}

// fullOptions are the production settings the seeds recommend.
var fullOptions = export.Options{
	PointInTimeRecovery: true,
	DeletionProtection:  true,
	AutoScaling:         &export.AutoScaling{MinRead: 5, MaxRead: 100, MinWrite: 5, MaxWrite: 50, TargetUtilization: 70},
}

// The time-series seed (examples/iot): readings in hourly buckets, kept
// 30 days through the TTL.
type reading struct {
	DeviceID string    `dynamodbav:"deviceId"`
	At       time.Time `dynamodbav:"at"`
	Celsius  float64   `dynamodbav:"celsius"`
	Expires  int64     `dynamodbav:"ttl"`
}

func iotModel() exported {
	t := st.MustTable("Telemetry", st.WithTTL("ttl"))
	readings := st.MustDefine[reading](t, "Reading",
		st.Key("DEVICE#{DeviceID}#{At:2006-01-02-15}", "{At}"),
		st.Expires("Expires"), st.ExpiresAfter(30*24*time.Hour))
	readings.Pattern("ReadingsBetween").SortBetween().Must()
	readings.Pattern("LatestReadings").SortBetween().Descending().Must()
	at := time.Date(2026, 3, 15, 14, 5, 0, 0, time.UTC)
	return exported{name: "iot", table: t, opts: export.Options{Samples: []any{
		reading{DeviceID: "123", At: at, Celsius: 21.5, Expires: at.Add(30 * 24 * time.Hour).Unix()},
	}}}
}

// The adjacency seed (examples/social): users following users through
// edges under the follower and, in GSI1, under the followee.
type (
	socialUser struct {
		ID        string `dynamodbav:"userId"`
		Name      string `dynamodbav:"name"`
		Following int    `dynamodbav:"following"`
		Followers int    `dynamodbav:"followers"`
	}
	follow struct {
		Follower string    `dynamodbav:"follower"`
		Followee string    `dynamodbav:"followee"`
		Since    time.Time `dynamodbav:"since" singletable:"created"`
	}
)

func socialModel() exported {
	t := st.MustTable("Social", st.WithGSI("GSI1"))
	st.MustDefine[socialUser](t, "User", st.Key("USER#{ID}", "USER#{ID}"))
	st.MustDefine[follow](t, "Follow", st.Key("USER#{Follower}", "FOLLOWS#{Followee}"),
		st.Index("GSI1", "FOLLOWED_BY#{Followee}", "USER#{Follower}"))
	return exported{name: "social", table: t, opts: export.Options{
		Relations: []export.Relation{{Name: "Follows", From: "User", Edge: "Follow", To: "User"}},
		Samples: []any{
			socialUser{ID: "alice", Name: "Alice", Following: 1},
			socialUser{ID: "bob", Name: "Bob", Followers: 1},
			follow{Follower: "alice", Followee: "bob", Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		},
	}}
}

// A forum (the developer guide's Thread table with its LastPostIndex):
// threads sorted by their last post in an LSI, with strongly consistent
// reads; replies in a keys-only LSI that only answered threads write
// (sparse: an unanswered thread has no LastReply); an INCLUDE LSI; and a
// GSI beside them.
type (
	thread struct {
		Forum     string `dynamodbav:"forum"`
		Subject   string `dynamodbav:"subject"`
		LastPost  string `dynamodbav:"lastPost"`
		LastReply string `dynamodbav:"lastReply,omitempty"`
		Author    string `dynamodbav:"author"`
		Views     int    `dynamodbav:"views"`
	}
	forumPost struct {
		Forum   string `dynamodbav:"forum"`
		Subject string `dynamodbav:"subject"`
		At      string `dynamodbav:"at"`
		Poster  string `dynamodbav:"poster"`
	}
)

func forumModel(name string, o export.Options) exported {
	t := st.MustTable(name,
		st.WithLSI("ByLastPost"),
		st.WithLSI("ByLastReply", st.KeysOnly()),
		st.WithLSI("ByAuthor", st.IndexKeys("", "author"), st.Include("views")),
		st.WithGSI("GSI1"),
		st.WithStream(st.StreamNewAndOldImages),
	)
	threads := st.MustDefine[thread](t, "Thread", st.Key("FORUM#{Forum}", "THREAD#{Subject}"),
		st.Index("ByLastPost", "FORUM#{Forum}", "{LastPost}"),
		st.Index("ByLastReply", "FORUM#{Forum}", "{LastReply}"),
		st.Index("GSI1", "AUTHOR#{Author}", "THREAD#{Subject}"))
	posts := st.MustDefine[forumPost](t, "Post", st.Key("FORUM#{Forum}", "POST#{Subject}#{At}"))
	threads.Pattern("RecentThreads").On("ByLastPost").Partition("FORUM#{Forum}").Descending().Must()
	threads.Pattern("AnsweredThreads").On("ByLastReply").Partition("FORUM#{Forum}").SortBetween().Must()
	threads.Pattern("ThreadsByAuthor").On("GSI1").Partition("AUTHOR#{Author}").Must()
	t.Collection("Forum", threads, posts).Partition("FORUM#{Forum}").Must()
	o.Samples = []any{
		thread{Forum: "S3", Subject: "Buckets", LastPost: "2026-03-02", LastReply: "2026-03-02", Author: "ann", Views: 12},
		thread{Forum: "S3", Subject: "Quotas", LastPost: "2026-03-01", Author: "bob"},
		forumPost{Forum: "S3", Subject: "Buckets", At: "2026-03-02", Poster: "cy"},
	}
	return exported{name: name, table: t, opts: o}
}

func models() []exported {
	global := fullOptions
	global.Replicas = []string{"eu-west-1", "ap-southeast-2"}
	return []exported{
		seedModel(),
		shopModel(),
		iotModel(),
		socialModel(),
		fullModel("Everything", fullOptions),
		fullModel("EverythingGlobal", global),
		forumModel("Forum", export.Options{}),
		forumModel("ForumGlobal", export.Options{Replicas: []string{"eu-west-1"}}),
	}
}
