// Package otelobserve turns package observe's requests into OpenTelemetry
// spans and metrics named after the access pattern, not the table: in a
// single-table design every request goes to one table, so a span or a
// metric per table says nothing; one per pattern ("OrdersByUser",
// "Order.Put") says which read or write is slow or expensive.
//
// Only programs that import this package compile OpenTelemetry: the core
// and package observe do not.
//
//	o, err := otelobserve.New(otel.GetTracerProvider(), otel.GetMeterProvider())
//	db := singletable.New(client, table, observe.With(o.Observe))
package otelobserve

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/singletable/singletable/observe"
)

// Scope is the instrumentation scope of the tracer and the meter.
const Scope = "github.com/singletable/singletable/observe/otelobserve"

// Observer records requests as spans and metrics.
type Observer struct {
	tracer   trace.Tracer
	requests metric.Int64Counter
	duration metric.Float64Histogram
	units    metric.Float64Counter
	items    metric.Int64Counter
}

// New makes an Observer on the providers (a nil one records nothing of
// its kind). The metrics, each with the attributes db.operation.name (the
// DynamoDB API), singletable.pattern (the pattern, collection or relation;
// else the library's operation, "Order.Put"), singletable.entity,
// singletable.index and, on failure, error.type (observe.Class):
//
//   - singletable.requests: requests sent;
//   - singletable.request.duration: seconds per request;
//   - singletable.capacity.units: capacity units consumed, with
//     singletable.capacity.kind read or write (and
//     singletable.capacity.estimated when the library estimated them);
//   - singletable.items: items returned or written.
func New(tp trace.TracerProvider, mp metric.MeterProvider) (*Observer, error) {
	o := &Observer{}
	if tp != nil {
		o.tracer = tp.Tracer(Scope)
	}
	if mp == nil {
		return o, nil
	}
	m := mp.Meter(Scope)
	var err error
	if o.requests, err = m.Int64Counter("singletable.requests", metric.WithDescription("DynamoDB requests sent, by access pattern")); err != nil {
		return nil, err
	}
	if o.duration, err = m.Float64Histogram("singletable.request.duration", metric.WithUnit("s"), metric.WithDescription("request duration, by access pattern")); err != nil {
		return nil, err
	}
	if o.units, err = m.Float64Counter("singletable.capacity.units", metric.WithUnit("{unit}"), metric.WithDescription("capacity units consumed, by access pattern and entity")); err != nil {
		return nil, err
	}
	if o.items, err = m.Int64Counter("singletable.items", metric.WithDescription("items returned or written, by access pattern")); err != nil {
		return nil, err
	}
	return o, nil
}

// Name is the span name and the pattern attribute of r: the pattern,
// collection or relation read, else the library's operation.
func Name(r observe.Request) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Op
}

// Observe records r: pass it to observe.With. The span runs from the
// request's start to its end, under no parent: the observer is called
// without the caller's context. (Wrap the caller's own span around the
// call for a trace that joins them.)
func (o *Observer) Observe(r observe.Request) {
	end := time.Now()
	start := end.Add(-r.Duration)
	attrs := []attribute.KeyValue{
		attribute.String("db.system.name", "aws.dynamodb"),
		attribute.String("db.operation.name", r.Operation),
		attribute.String("singletable.pattern", Name(r)),
		attribute.String("singletable.entity", r.Entity),
		attribute.String("singletable.index", r.Index),
	}
	if c := r.Class(); c != "" {
		attrs = append(attrs, attribute.String("error.type", c))
	}
	ctx := context.Background()
	if o.tracer != nil {
		_, span := o.tracer.Start(ctx, Name(r), trace.WithTimestamp(start), trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		span.SetAttributes(attribute.Int("singletable.items", r.Items), attribute.Int("singletable.retry", r.Retry),
			attribute.Float64("aws.dynamodb.consumed_capacity.read", r.ReadUnits),
			attribute.Float64("aws.dynamodb.consumed_capacity.write", r.WriteUnits),
			attribute.Bool("singletable.capacity.estimated", r.Estimated))
		if r.Err != nil {
			span.RecordError(r.Err)
			span.SetStatus(codes.Error, r.Err.Error())
		}
		span.End(trace.WithTimestamp(end))
	}
	if o.requests == nil {
		return
	}
	set := metric.WithAttributes(attrs...)
	o.requests.Add(ctx, 1, set)
	o.duration.Record(ctx, r.Duration.Seconds(), set)
	o.items.Add(ctx, int64(r.Items), set)
	for _, u := range []struct {
		kind string
		v    float64
	}{{"read", r.ReadUnits}, {"write", r.WriteUnits}} {
		if u.v > 0 {
			o.units.Add(ctx, u.v, metric.WithAttributes(append(attrs, attribute.String("singletable.capacity.kind", u.kind),
				attribute.Bool("singletable.capacity.estimated", r.Estimated))...))
		}
	}
}
