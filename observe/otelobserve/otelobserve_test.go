package otelobserve_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/singletable/singletable/observe"
	"github.com/singletable/singletable/observe/otelobserve"
)

// Spans and metrics through the OTel SDK's in-memory exporter and manual
// reader.
func TestSpansAndMetricsByPattern(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	o, err := otelobserve.New(tp, mp)
	require.NoError(t, err)

	o.Observe(observe.Request{Operation: "Query", Op: "OrdersByUser", Entity: "Order", Name: "OrdersByUser", Index: "GSI1",
		Items: 7, Duration: 3 * time.Millisecond, ReadUnits: 1.5})
	o.Observe(observe.Request{Operation: "Query", Op: "OrdersByUser", Entity: "Order", Name: "OrdersByUser", Index: "GSI1",
		Items: 3, Duration: time.Millisecond, ReadUnits: 0.5})
	o.Observe(observe.Request{Operation: "PutItem", Op: "Order.Create", Entity: "Order", Duration: time.Millisecond,
		WriteUnits: 1, Estimated: true, Err: &types.ConditionalCheckFailedException{}})

	got := spans.GetSpans()
	require.Len(t, got, 3)
	assert.Equal(t, "OrdersByUser", got[0].Name, "named after the pattern, not the table")
	assert.Equal(t, "Order.Create", got[2].Name, "a write: the library's operation")
	assert.Equal(t, 3*time.Millisecond, got[0].EndTime.Sub(got[0].StartTime))
	assert.Equal(t, "Error", got[2].Status.Code.String())
	attrs := map[string]string{}
	for _, kv := range got[2].Attributes {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	assert.Equal(t, "condition", attrs["error.type"])
	assert.Equal(t, "true", attrs["singletable.capacity.estimated"])

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	sums := map[string]float64{} // metric/pattern/kind -> value
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					pat, _ := p.Attributes.Value("singletable.pattern")
					sums[m.Name+"/"+pat.AsString()] += float64(p.Value)
				}
			case metricdata.Sum[float64]:
				for _, p := range d.DataPoints {
					pat, _ := p.Attributes.Value("singletable.pattern")
					kind, _ := p.Attributes.Value("singletable.capacity.kind")
					sums[m.Name+"/"+pat.AsString()+"/"+kind.AsString()] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					pat, _ := p.Attributes.Value("singletable.pattern")
					sums[m.Name+"/"+pat.AsString()] += float64(p.Count)
				}
			}
		}
	}
	assert.Equal(t, 2.0, sums["singletable.requests/OrdersByUser"])
	assert.Equal(t, 1.0, sums["singletable.requests/Order.Create"])
	assert.Equal(t, 10.0, sums["singletable.items/OrdersByUser"])
	assert.Equal(t, 2.0, sums["singletable.capacity.units/OrdersByUser/read"])
	assert.Equal(t, 1.0, sums["singletable.capacity.units/Order.Create/write"])
	assert.Equal(t, 2.0, sums["singletable.request.duration/OrdersByUser"])
}
