package export

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// Differences compares the model with a live table's description (from
// DescribeTable) and its time to live (from DescribeTimeToLive; nil when
// not known): what EnsureTable checks (key schema, key attribute types,
// missing indexes, index keys and projections), and beyond it the indexes
// the model does not declare, TTL, the stream and billing. Each difference
// is a sentence saying what to do; none means the table is as the model
// declares it.
func Differences(t *st.Table, d *types.TableDescription, ttl *types.TimeToLiveDescription) []string {
	if t == nil || d == nil {
		return []string{"no table or no description to compare"}
	}
	diffs := bridge.SchemaDifferences(t, d)
	for _, g := range d.GlobalSecondaryIndexes {
		name := aws.ToString(g.IndexName)
		if _, ok := t.GSI(name); !ok {
			diffs = append(diffs, fmt.Sprintf("index %s is not in the model: delete it (UpdateTable) or declare it (WithGSI)", name))
		}
	}
	// An LSI the model lacks stays with the table (it cannot be deleted);
	// one the table lacks is reported by SchemaDifferences (it cannot be
	// added).
	for _, l := range d.LocalSecondaryIndexes {
		name := aws.ToString(l.IndexName)
		if _, ok := t.LSI(name); !ok {
			diffs = append(diffs, fmt.Sprintf("local secondary index %s is not in the model: an LSI cannot be deleted from its table; declare it (WithLSI), or create a new table without it and copy the items into it (package migrate)", name))
		}
	}
	if ttl != nil {
		on := ttl.TimeToLiveStatus == types.TimeToLiveStatusEnabled || ttl.TimeToLiveStatus == types.TimeToLiveStatusEnabling
		got, want := aws.ToString(ttl.AttributeName), t.TTLAttribute()
		switch {
		case want != "" && !on:
			diffs = append(diffs, fmt.Sprintf("time to live is not enabled; the model wants it on %s (EnsureTable enables it)", want))
		case want != "" && got != want:
			diffs = append(diffs, fmt.Sprintf("time to live is enabled on %s, the model wants %s", got, want))
		case want == "" && on:
			diffs = append(diffs, fmt.Sprintf("time to live is enabled on %s, which the model does not declare (WithTTL)", got))
		}
	}
	var got types.StreamViewType
	if s := d.StreamSpecification; s != nil && aws.ToBool(s.StreamEnabled) {
		got = s.StreamViewType
	}
	switch want := t.Stream(); {
	case got == want:
	case want == "":
		diffs = append(diffs, fmt.Sprintf("the table has a stream (%s), which the model does not declare (WithStream)", got))
	case got == "":
		diffs = append(diffs, fmt.Sprintf("the table has no stream; the model wants %s (EnsureTable enables it)", want))
	default:
		diffs = append(diffs, fmt.Sprintf("the stream carries %s, the model wants %s: disable the stream, then run EnsureTable", got, want))
	}
	create := t.CreateTableInput(aws.ToString(d.TableName))
	billing := types.BillingModeProvisioned // DescribeTable leaves the summary out for a table always provisioned
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != "" {
		billing = d.BillingModeSummary.BillingMode
	}
	if billing != create.BillingMode {
		diffs = append(diffs, fmt.Sprintf("billing mode is %s, the model wants %s", billing, create.BillingMode))
	} else if p, live := create.ProvisionedThroughput, d.ProvisionedThroughput; p != nil && live != nil &&
		(aws.ToInt64(p.ReadCapacityUnits) != aws.ToInt64(live.ReadCapacityUnits) || aws.ToInt64(p.WriteCapacityUnits) != aws.ToInt64(live.WriteCapacityUnits)) {
		diffs = append(diffs, fmt.Sprintf("provisioned capacity is %d read, %d write units; the model declares %d and %d (auto scaling may have changed it)",
			aws.ToInt64(live.ReadCapacityUnits), aws.ToInt64(live.WriteCapacityUnits), aws.ToInt64(p.ReadCapacityUnits), aws.ToInt64(p.WriteCapacityUnits)))
	}
	return diffs
}
