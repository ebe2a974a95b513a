package codec

import (
	"testing"

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
