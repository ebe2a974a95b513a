package codec

import (
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var benchSink map[string]types.AttributeValue

func BenchmarkMarshal(b *testing.B) {
	item := newBenchItem()
	if _, err := Marshal(&item); err != nil {
		b.Fatal(err)
	}
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := Marshal(&item)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = m
		}
	})
	b.Run("attributevalue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := attributevalue.MarshalMap(&item)
			if err != nil {
				b.Fatal(err)
			}
			benchSink = m
		}
	})
	b.Run("handwritten", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			benchSink = handMarshal(&item)
		}
	})
}

// handMarshal is what code written by hand for benchItem would do: the
// floor for an encoder that allocates each attribute value.
func handMarshal(it *benchItem) map[string]types.AttributeValue {
	m := make(map[string]types.AttributeValue, 9)
	m["id"] = &types.AttributeValueMemberS{Value: it.ID}
	m["name"] = &types.AttributeValueMemberS{Value: it.Name}
	m["count"] = &types.AttributeValueMemberN{Value: strconv.FormatInt(it.Count, 10)}
	m["price"] = &types.AttributeValueMemberN{Value: strconv.FormatFloat(it.Price, 'f', -1, 64)}
	m["created_at"] = &types.AttributeValueMemberS{Value: it.CreatedAt.Format(time.RFC3339Nano)}
	m["active"] = &types.AttributeValueMemberBOOL{Value: it.Active}
	l := make([]types.AttributeValue, 0, len(it.Tags))
	for _, t := range it.Tags {
		l = append(l, &types.AttributeValueMemberS{Value: t})
	}
	m["tags"] = &types.AttributeValueMemberL{Value: l}
	if it.ParentID != nil {
		m["parent_id"] = &types.AttributeValueMemberS{Value: *it.ParentID}
	}
	m["status"] = &types.AttributeValueMemberS{Value: string(it.Status)}
	return m
}

func BenchmarkUnmarshal(b *testing.B) {
	src := newBenchItem()
	m, err := attributevalue.MarshalMap(&src)
	if err != nil {
		b.Fatal(err)
	}
	// Items read from a single table carry keys the struct does not store.
	m["PK"] = &types.AttributeValueMemberS{Value: "ORDER#2024-0042"}
	m["SK"] = &types.AttributeValueMemberS{Value: "META"}
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out benchItem
			if err := Unmarshal(m, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("attributevalue", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var out benchItem
			if err := attributevalue.UnmarshalMap(m, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
