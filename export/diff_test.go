package export_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
)

// described is the description of the table the model's CreateTableInput
// creates, as DescribeTable would give it.
func described(t *st.Table) *types.TableDescription {
	in := t.CreateTableInput(t.Name())
	d := &types.TableDescription{TableName: in.TableName, KeySchema: in.KeySchema, AttributeDefinitions: in.AttributeDefinitions,
		BillingModeSummary: &types.BillingModeSummary{BillingMode: in.BillingMode}, StreamSpecification: in.StreamSpecification}
	for _, g := range in.GlobalSecondaryIndexes {
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{
			IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection, IndexStatus: types.IndexStatusActive})
	}
	for _, l := range in.LocalSecondaryIndexes {
		d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{
			IndexName: l.IndexName, KeySchema: l.KeySchema, Projection: l.Projection})
	}
	return d
}

// A live table's local secondary indexes against the model's: the same
// ones are no difference; one the table lacks cannot be added (and says
// what to do instead); one the model lacks cannot be deleted.
func TestDifferencesLocalIndexes(t *testing.T) {
	model := st.MustTable("Forum", st.WithLSI("ByLastPost"), st.WithLSI("ByAuthor", st.IndexKeys("", "author"), st.KeysOnly()))
	if diffs := export.Differences(model, described(model), nil); len(diffs) != 0 {
		t.Fatalf("the model's own table differs: %q", diffs)
	}
	cases := []struct {
		name   string
		change func(d *types.TableDescription)
		want   []string
	}{
		{"missing", func(d *types.TableDescription) { d.LocalSecondaryIndexes = d.LocalSecondaryIndexes[:1] },
			[]string{"local secondary index ByAuthor is missing", "DynamoDB creates an LSI only with its table", "create a new table"}},
		{"extra", func(d *types.TableDescription) {
			d.LocalSecondaryIndexes = append(d.LocalSecondaryIndexes, types.LocalSecondaryIndexDescription{IndexName: aws.String("Old"),
				KeySchema: d.LocalSecondaryIndexes[0].KeySchema, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}})
		}, []string{"local secondary index Old is not in the model", "cannot be deleted"}},
		{"projection", func(d *types.TableDescription) {
			d.LocalSecondaryIndexes[1].Projection = &types.Projection{ProjectionType: types.ProjectionTypeAll}
		}, []string{"local secondary index ByAuthor projects ALL", "cannot change"}},
	}
	for _, c := range cases {
		d := described(model)
		c.change(d)
		diffs := export.Differences(model, d, nil)
		if len(diffs) != 1 {
			t.Errorf("%s: %q, want one difference", c.name, diffs)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(diffs[0], w) {
				t.Errorf("%s: %q does not say %q", c.name, diffs[0], w)
			}
		}
	}
}

func TestDifferences(t *testing.T) {
	model := st.MustTable("Shop", st.WithGSI("GSI1"), st.WithTTL("ttl"), st.WithStream(st.StreamNewImage))
	ttlOn := &types.TimeToLiveDescription{AttributeName: aws.String("ttl"), TimeToLiveStatus: types.TimeToLiveStatusEnabled}
	if diffs := export.Differences(model, described(model), ttlOn); len(diffs) != 0 {
		t.Fatalf("the model's own table differs: %q", diffs)
	}
	cases := []struct {
		name   string
		change func(d *types.TableDescription)
		ttl    *types.TimeToLiveDescription
		want   string
	}{
		{"missing index", func(d *types.TableDescription) { d.GlobalSecondaryIndexes = nil }, ttlOn, "index GSI1 is missing"},
		{"extra index", func(d *types.TableDescription) {
			d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, types.GlobalSecondaryIndexDescription{IndexName: aws.String("Old"),
				KeySchema: d.KeySchema, Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll}})
		}, ttlOn, "index Old is not in the model"},
		{"projection", func(d *types.TableDescription) {
			d.GlobalSecondaryIndexes[0].Projection = &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly}
		}, ttlOn, "projects KEYS_ONLY"},
		{"ttl off", func(*types.TableDescription) {}, &types.TimeToLiveDescription{TimeToLiveStatus: types.TimeToLiveStatusDisabled}, "time to live is not enabled"},
		{"ttl elsewhere", func(*types.TableDescription) {}, &types.TimeToLiveDescription{AttributeName: aws.String("exp"), TimeToLiveStatus: types.TimeToLiveStatusEnabled}, "enabled on exp"},
		{"no stream", func(d *types.TableDescription) { d.StreamSpecification = nil }, ttlOn, "has no stream"},
		{"other stream", func(d *types.TableDescription) {
			d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeKeysOnly}
		}, ttlOn, "carries KEYS_ONLY"},
		{"billing", func(d *types.TableDescription) { d.BillingModeSummary = nil }, ttlOn, "billing mode is PROVISIONED"},
	}
	for _, c := range cases {
		d := described(model)
		c.change(d)
		diffs := export.Differences(model, d, c.ttl)
		if len(diffs) != 1 || !strings.Contains(diffs[0], c.want) {
			t.Errorf("%s: %q, want one difference saying %q", c.name, diffs, c.want)
		}
	}
	// A table with what the model does not declare: TTL and a stream.
	bare := st.MustTable("Bare")
	d := described(bare)
	d.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewImage}
	diffs := export.Differences(bare, d, ttlOn)
	if len(diffs) != 2 || !strings.Contains(diffs[0], "does not declare (WithTTL)") || !strings.Contains(diffs[1], "does not declare (WithStream)") {
		t.Errorf("bare: %q", diffs)
	}
	// Provisioned capacity changed by auto scaling is reported too.
	prov := st.MustTable("Prov", st.WithProvisioned(5, 5))
	d = described(prov)
	d.ProvisionedThroughput = &types.ProvisionedThroughputDescription{ReadCapacityUnits: aws.Int64(9), WriteCapacityUnits: aws.Int64(5)}
	if diffs := export.Differences(prov, d, nil); len(diffs) != 1 || !strings.Contains(diffs[0], "9 read, 5 write") {
		t.Errorf("prov: %q", diffs)
	}
}
