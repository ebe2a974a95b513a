package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/ddblocal"
)

// Measurements are what the harness costs, as Measure takes them.
type Measurements struct {
	// Install is finding DynamoDB Local, or fetching and unpacking it when
	// the cache is empty (then Fetched is true).
	Install time.Duration
	Fetched bool
	// ColdStart is launching a private instance until it answers its first
	// request (a ListTables): what a `go test` run pays once.
	ColdStart time.Duration
	// WarmStart is reaching a running instance: a client built and its
	// first request answered, what each further test binary pays.
	WarmStart time.Duration
	// FreshTable is creating a fresh table (with a global secondary index,
	// through DB.EnsureTable) and deleting it: what each test pays for
	// its own table (singletabletest.LocalDB); the median of Runs.
	FreshTable time.Duration
	// Operation is one PutItem of a small item; the median of Runs.
	Operation time.Duration
	Runs      int
}

// String prints the measurements as a table, one line each.
func (m Measurements) String() string {
	var b strings.Builder
	install := "found in the cache"
	if m.Fetched {
		install = "fetched and unpacked"
	}
	fmt.Fprintf(&b, "install      %8s  (%s)\n", m.Install.Round(time.Millisecond), install)
	fmt.Fprintf(&b, "cold start   %8s  (a private instance launched, until its first answer)\n", m.ColdStart.Round(time.Millisecond))
	fmt.Fprintf(&b, "warm start   %8s  (a running instance reused: client and first request)\n", m.WarmStart.Round(time.Microsecond))
	fmt.Fprintf(&b, "fresh table  %8s  (create with a GSI + delete, median of %d)\n", m.FreshTable.Round(time.Microsecond), m.Runs)
	fmt.Fprintf(&b, "operation    %8s  (one PutItem, median of %d)\n", m.Operation.Round(time.Microsecond), m.Runs)
	return b.String()
}

// Measure measures the harness on this machine: it installs DynamoDB Local
// if needed, starts a private instance (and stops it at the end), and
// creates and deletes runs tables and puts runs items in it.
func Measure(ctx context.Context, o Options, runs int) (Measurements, error) {
	o = o.withDefaults()
	m := Measurements{Runs: max(runs, 1)}
	_, cached := installed(o.pkgDir())
	t := time.Now()
	if _, err := Install(ctx, o); err != nil {
		return m, err
	}
	m.Install, m.Fetched = time.Since(t), o.Jar == "" && !cached

	t = time.Now()
	inst, err := Start(ctx, o)
	if err != nil {
		return m, err
	}
	defer inst.Stop()
	if _, err := warmStart(ctx, inst.Endpoint); err != nil {
		return m, err
	}
	m.ColdStart = time.Since(t)
	if m.WarmStart, err = warmStart(ctx, inst.Endpoint); err != nil {
		return m, err
	}
	client, err := clientFor(ctx, inst.Endpoint)
	if err != nil {
		return m, err
	}
	tables, puts := make([]time.Duration, m.Runs), make([]time.Duration, m.Runs)
	db, drop, err := freshTable(ctx, client)
	if err != nil {
		return m, err
	}
	defer drop()
	for i := range m.Runs {
		t := time.Now()
		_, drop, err := freshTable(ctx, client)
		if err == nil {
			err = drop()
		}
		if err != nil {
			return m, err
		}
		tables[i] = time.Since(t)
		if puts[i], err = operation(ctx, db, i); err != nil {
			return m, err
		}
	}
	m.FreshTable, m.Operation = median(tables), median(puts)
	return m, nil
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// clientFor is a client for the instance at endpoint.
func clientFor(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := ddblocal.ConfigFor(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	// The environment's endpoint, if any, would win over cfg's: a client
	// option comes last.
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}

// warmStart measures reaching the running instance at endpoint: a client
// built and a first request (ListTables) answered.
func warmStart(ctx context.Context, endpoint string) (time.Duration, error) {
	t := time.Now()
	c, err := clientFor(ctx, endpoint)
	if err != nil {
		return 0, err
	}
	_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	return time.Since(t), err
}

// measureTable is the model freshTable creates: a key and one index, as
// most single tables have.
var measureTable = singletable.MustTable("measure", singletable.WithGSI("GSI1"))

// freshTable creates a uniquely named table of a small model (a key and
// one global secondary index) through DB.EnsureTable, as
// singletabletest.LocalDB does for each test, and returns its DB and the
// function that deletes it.
func freshTable(ctx context.Context, client *dynamodb.Client) (*singletable.DB, func() error, error) {
	name := ddblocal.UniqueName("measure")
	db := singletable.New(client, measureTable, singletable.WithTableName(name))
	if err := db.EnsureTable(ctx); err != nil {
		return nil, nil, err
	}
	return db, func() error {
		_, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &name})
		return err
	}, nil
}

// operation measures one PutItem of a small item into db's table.
func operation(ctx context.Context, db *singletable.DB, i int) (time.Duration, error) {
	id := fmt.Sprint("item-", i)
	in := &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: id}, "SK": &types.AttributeValueMemberS{Value: "A"},
		"note": &types.AttributeValueMemberS{Value: "hello"},
	}}
	t := time.Now()
	_, err := db.Client().PutItem(ctx, in)
	return time.Since(t), err
}
