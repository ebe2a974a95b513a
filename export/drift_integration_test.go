//go:build integration

package export_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/ddblocal"
)

// shape is what the drift test compares: what a table is, as a sorted
// list of lines.
type shape []string

func (s shape) String() string { return strings.Join(s, "\n") }

func (s *shape) add(format string, args ...any) { *s = append(*s, fmt.Sprintf(format, args...)) }

func (s shape) sorted() shape { slices.Sort(s); return s }

// describedShape is the shape of a live table.
func describedShape(d *types.TableDescription, ttl *types.TimeToLiveDescription) shape {
	var s shape
	for _, k := range d.KeySchema {
		s.add("key %s %s", aws.ToString(k.AttributeName), k.KeyType)
	}
	for _, a := range d.AttributeDefinitions {
		s.add("attribute %s %s", aws.ToString(a.AttributeName), a.AttributeType)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			s.add("index %s key %s %s", aws.ToString(g.IndexName), aws.ToString(k.AttributeName), k.KeyType)
		}
		s.add("index %s projection %s %s", aws.ToString(g.IndexName), g.Projection.ProjectionType, sortedJoin(g.Projection.NonKeyAttributes))
	}
	for _, l := range d.LocalSecondaryIndexes {
		for _, k := range l.KeySchema {
			s.add("local index %s key %s %s", aws.ToString(l.IndexName), aws.ToString(k.AttributeName), k.KeyType)
		}
		s.add("local index %s projection %s %s", aws.ToString(l.IndexName), l.Projection.ProjectionType, sortedJoin(l.Projection.NonKeyAttributes))
	}
	if ttl != nil && ttl.TimeToLiveStatus == types.TimeToLiveStatusEnabled {
		s.add("ttl %s", aws.ToString(ttl.AttributeName))
	}
	if ss := d.StreamSpecification; ss != nil && aws.ToBool(ss.StreamEnabled) {
		s.add("stream %s", ss.StreamViewType)
	}
	billing := types.BillingModeProvisioned // DescribeTable leaves it out for a provisioned table
	if d.BillingModeSummary != nil {
		billing = d.BillingModeSummary.BillingMode
	}
	s.add("billing %s", billing)
	return s.sorted()
}

func sortedJoin(s []string) string {
	s = slices.Clone(s)
	slices.Sort(s)
	return strings.Join(s, ",")
}

// cfnIndex is an index in a CloudFormation template.
type cfnIndex struct {
	IndexName  string
	KeySchema  []struct{ AttributeName, KeyType string }
	Projection struct {
		ProjectionType   string
		NonKeyAttributes []string
	}
}

// cfnShape re-reads a CloudFormation template's table.
func cfnShape(t *testing.T, raw []byte) shape {
	var tpl struct {
		Resources map[string]struct {
			Type       string
			Properties struct {
				AttributeDefinitions    []struct{ AttributeName, AttributeType string }
				KeySchema               []struct{ AttributeName, KeyType string }
				BillingMode             string
				GlobalSecondaryIndexes  []cfnIndex
				LocalSecondaryIndexes   []cfnIndex
				TimeToLiveSpecification *struct {
					AttributeName string
					Enabled       bool
				}
				StreamSpecification *struct{ StreamViewType string }
			}
		}
	}
	if err := json.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	var s shape
	tables := 0
	for _, r := range tpl.Resources {
		if r.Type != "AWS::DynamoDB::Table" {
			continue
		}
		tables++
		p := r.Properties
		for _, k := range p.KeySchema {
			s.add("key %s %s", k.AttributeName, k.KeyType)
		}
		for _, a := range p.AttributeDefinitions {
			s.add("attribute %s %s", a.AttributeName, a.AttributeType)
		}
		for _, g := range p.GlobalSecondaryIndexes {
			for _, k := range g.KeySchema {
				s.add("index %s key %s %s", g.IndexName, k.AttributeName, k.KeyType)
			}
			s.add("index %s projection %s %s", g.IndexName, g.Projection.ProjectionType, sortedJoin(g.Projection.NonKeyAttributes))
		}
		for _, l := range p.LocalSecondaryIndexes {
			for _, k := range l.KeySchema {
				s.add("local index %s key %s %s", l.IndexName, k.AttributeName, k.KeyType)
			}
			s.add("local index %s projection %s %s", l.IndexName, l.Projection.ProjectionType, sortedJoin(l.Projection.NonKeyAttributes))
		}
		if ttl := p.TimeToLiveSpecification; ttl != nil && ttl.Enabled {
			s.add("ttl %s", ttl.AttributeName)
		}
		if ss := p.StreamSpecification; ss != nil {
			s.add("stream %s", ss.StreamViewType)
		}
		s.add("billing %s", p.BillingMode)
	}
	if tables != 1 {
		t.Fatalf("the template declares %d tables, not 1", tables)
	}
	return s.sorted()
}

// tfShape re-reads a Terraform configuration's table.
func tfShape(t *testing.T, raw []byte) shape {
	var cfg struct {
		Resource struct {
			Table map[string]struct {
				BillingMode string `json:"billing_mode"`
				HashKey     string `json:"hash_key"`
				RangeKey    string `json:"range_key"`
				Attribute   []struct{ Name, Type string }
				GSI         []struct {
					Name             string
					HashKey          string   `json:"hash_key"`
					RangeKey         string   `json:"range_key"`
					ProjectionType   string   `json:"projection_type"`
					NonKeyAttributes []string `json:"non_key_attributes"`
				} `json:"global_secondary_index"`
				LSI []struct {
					Name             string
					RangeKey         string   `json:"range_key"`
					ProjectionType   string   `json:"projection_type"`
					NonKeyAttributes []string `json:"non_key_attributes"`
				} `json:"local_secondary_index"`
				TTL *struct {
					AttributeName string `json:"attribute_name"`
					Enabled       bool
				}
				StreamEnabled  bool   `json:"stream_enabled"`
				StreamViewType string `json:"stream_view_type"`
			} `json:"aws_dynamodb_table"`
		}
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Resource.Table) != 1 {
		t.Fatalf("the configuration declares %d tables, not 1", len(cfg.Resource.Table))
	}
	var s shape
	for _, r := range cfg.Resource.Table {
		s.add("key %s HASH", r.HashKey)
		if r.RangeKey != "" {
			s.add("key %s RANGE", r.RangeKey)
		}
		for _, a := range r.Attribute {
			s.add("attribute %s %s", a.Name, a.Type)
		}
		for _, g := range r.GSI {
			s.add("index %s key %s HASH", g.Name, g.HashKey)
			if g.RangeKey != "" {
				s.add("index %s key %s RANGE", g.Name, g.RangeKey)
			}
			s.add("index %s projection %s %s", g.Name, g.ProjectionType, sortedJoin(g.NonKeyAttributes))
		}
		for _, l := range r.LSI {
			// The provider takes the table's hash key for the index's.
			s.add("local index %s key %s HASH", l.Name, r.HashKey)
			s.add("local index %s key %s RANGE", l.Name, l.RangeKey)
			s.add("local index %s projection %s %s", l.Name, l.ProjectionType, sortedJoin(l.NonKeyAttributes))
		}
		if r.TTL != nil && r.TTL.Enabled {
			s.add("ttl %s", r.TTL.AttributeName)
		}
		if r.StreamEnabled {
			s.add("stream %s", r.StreamViewType)
		}
		s.add("billing %s", r.BillingMode)
	}
	return s.sorted()
}

// TestExportsMatchEnsureTable creates each model's table with EnsureTable
// on DynamoDB Local and checks that the CloudFormation and Terraform
// exports, read back, declare the same keys, attribute definitions,
// indexes and projections, TTL, stream and billing: the exports cannot
// drift from the tables the library makes.
func TestExportsMatchEnsureTable(t *testing.T) {
	ctx := context.Background()
	client, err := ddblocal.Client(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models() {
		if len(m.opts.Replicas) > 0 {
			continue // a global table: DynamoDB Local has one region
		}
		t.Run(m.name, func(t *testing.T) {
			name := ddblocal.UniqueName("export")
			db := st.New(client, m.table, st.WithTableName(name))
			if err := db.EnsureTable(ctx); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.DeleteTable(context.Background()) })
			d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			ttl, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
			if err != nil {
				t.Fatal(err)
			}
			live := describedShape(d.Table, ttl.TimeToLiveDescription)
			o := m.opts
			o.TableName = name
			cfn, err := export.CloudFormationJSON(m.table, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfnShape(t, cfn); got.String() != live.String() {
				t.Errorf("CloudFormation declares\n%s\nEnsureTable made\n%s", got, live)
			}
			tf, err := export.TerraformJSON(m.table, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := tfShape(t, tf); got.String() != live.String() {
				t.Errorf("Terraform declares\n%s\nEnsureTable made\n%s", got, live)
			}
		})
	}
}
