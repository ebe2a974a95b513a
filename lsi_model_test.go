package singletable_test

import (
	"testing"

	st "github.com/singletable/singletable"
)

// The model of the LSI, index-scan and ranged-collection tests: a
// customer's activity (orders and returns, sorted by date in one
// partition), an LSI by amount (ALL), a sparse keys-only LSI of the open
// orders, and a sparse GSI of the flagged orders, scanned whole.

type lsiCustomer struct {
	CustomerID string `dynamodbav:"customerId"`
	Name       string `dynamodbav:"name"`
}

type lsiOrder struct {
	CustomerID string `dynamodbav:"customerId"`
	ID         string `dynamodbav:"id"`
	Date       string `dynamodbav:"date"`
	Amount     int    `dynamodbav:"amount"`
	Status     string `dynamodbav:"status"`
	Flagged    bool   `dynamodbav:"flagged,omitempty"`
}

type lsiReturn struct {
	CustomerID string `dynamodbav:"customerId"`
	ID         string `dynamodbav:"id"`
	Date       string `dynamodbav:"date"`
}

type lsiModel struct {
	Table     *st.Table
	Customers *st.Entity[lsiCustomer]
	Orders    *st.Entity[lsiOrder]
	Returns   *st.Entity[lsiReturn]

	ByAmount       *st.Pattern[lsiOrder] // LSI ByAmount, SortGreaterOrEqual
	OpenOrders     *st.Pattern[lsiOrder] // sparse keys-only LSI OpenByDate
	FlaggedByCust  *st.Pattern[lsiOrder] // GSI Flagged, a query (for ConsistentRead's refusal)
	FlaggedScan    *st.Pattern[lsiOrder] // GSI Flagged scanned whole: sparse
	OpenScan       *st.Pattern[lsiOrder] // LSI OpenByDate scanned whole: sparse, keys-only
	AmountScan     *st.Pattern[lsiOrder] // LSI ByAmount scanned whole: not sparse (lint)
	Activity       *st.Collection        // the partition whole
	ActivityFrom   *st.Collection        // SortGreaterOrEqual
	ActivityAfter  *st.Collection        // SortGreaterThan
	ActivityBefore *st.Collection        // SortLessThan
	ActivityUntil  *st.Collection        // SortLessOrEqual
	ActivityDay    *st.Collection        // SortPrefix
	ActivityRange  *st.Collection        // SortBetween
}

func newLSIModel(t testing.TB) *lsiModel {
	t.Helper()
	tbl, err := st.NewTable("LSIShop",
		st.WithGSI("Flagged"),
		st.WithLSI("ByAmount"),
		st.WithLSI("OpenByDate", st.KeysOnly()),
	)
	if err != nil {
		t.Fatal(err)
	}
	m := &lsiModel{Table: tbl}
	m.Customers = st.MustDefine[lsiCustomer](tbl, "Customer", st.Key("CUST#{CustomerID}", "PROFILE"))
	m.Orders = st.MustDefine[lsiOrder](tbl, "Order", st.Key("CUST#{CustomerID}", "ACT#{Date}#ORDER#{ID}"),
		st.Index("ByAmount", "CUST#{CustomerID}", "AMT#{Amount:8}#{ID}"),
		st.Index("OpenByDate", "CUST#{CustomerID}", "OPEN#{Date}#{ID}").When(st.Eq("Status", "OPEN")),
		st.Index("Flagged", "FLAGGED#{CustomerID}", "ORDER#{ID}").When(st.Eq("Flagged", true)),
	)
	m.Returns = st.MustDefine[lsiReturn](tbl, "Return", st.Key("CUST#{CustomerID}", "ACT#{Date}#RETURN#{ID}"))
	m.ByAmount = m.Orders.Pattern("OrdersByAmount").On("ByAmount").SortGreaterOrEqual().Must()
	m.OpenOrders = m.Orders.Pattern("OpenOrders").On("OpenByDate").Must()
	m.FlaggedByCust = m.Orders.Pattern("FlaggedOfCustomer").On("Flagged").Must()
	m.FlaggedScan = m.Orders.Pattern("AllFlagged").On("Flagged").ScanIndex().Must()
	m.OpenScan = m.Orders.Pattern("AllOpen").On("OpenByDate").ScanIndex().Must()
	m.AmountScan = m.Orders.Pattern("AllByAmount").On("ByAmount").ScanIndex().Must()
	c := func(name string) *st.Collection {
		return tbl.Collection(name, m.Customers, m.Orders, m.Returns).Partition("CUST#{CustomerID}")
	}
	m.Activity = c("Activity").Must()
	m.ActivityFrom = c("ActivityFrom").SortGreaterOrEqual().Must()
	m.ActivityAfter = c("ActivityAfter").SortGreaterThan().Must()
	m.ActivityBefore = c("ActivityBefore").SortLessThan().Must()
	m.ActivityUntil = c("ActivityUntil").SortLessOrEqual().Must()
	m.ActivityDay = c("ActivityDay").SortPrefix().Must()
	m.ActivityRange = c("ActivityRange").SortBetween().Must()
	return m
}
