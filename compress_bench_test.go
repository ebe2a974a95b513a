package singletable_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/compress"
	"github.com/singletable/singletable/compress/zstd"
	"github.com/singletable/singletable/singletabletest"
)

// Compression measured beside the plain path: a put's encoding (PutInput)
// and a read's decoding (Decode) of an item whose body is realistic JSON
// or text, with MB/s of the body and the ratio (stored/plain) reported.

type czBench struct {
	ID   string
	Body string `singletable:"compress"`
}

type czBenchPlain struct {
	ID   string
	Body string
}

var (
	czBenchTable  = st.MustTable("CzBench")
	czBenchGzip   = st.MustDefine[czBench](czBenchTable, "Gz", st.Key("G#{ID}", "G"))
	czBenchZstd   = st.MustDefine[czBench](czBenchTable, "Zs", st.Key("Z#{ID}", "Z"), compress.With(zstd.Codec, compress.DefaultMinSize))
	czBenchPlainE = st.MustDefine[czBenchPlain](czBenchTable, "Pl", st.Key("P#{ID}", "P"))
)

// czBenchJSON is an order document of about n bytes, as an API stores it.
func czBenchJSON(n int) string {
	type line struct {
		SKU   string  `json:"sku"`
		Name  string  `json:"name"`
		Qty   int     `json:"qty"`
		Price float64 `json:"price"`
	}
	doc := map[string]any{"orderId": "ord-2024-000123", "customer": map[string]string{"id": "c-981", "email": "ada@example.com"}, "status": "SHIPPED"}
	var lines []line
	for i := 0; ; i++ {
		lines = append(lines, line{SKU: fmt.Sprintf("SKU-%05d", i*7919%100000), Name: []string{"Blue pen", "Notebook A5", "Desk lamp", "USB-C cable"}[i%4], Qty: 1 + i%3, Price: float64(100+i*37%900) / 100})
		doc["lines"] = lines
		b, _ := json.Marshal(doc)
		if len(b) >= n {
			return string(b)
		}
	}
}

// czBenchText is prose of about n bytes (log messages).
func czBenchText(n int) string {
	words := strings.Fields("the quick service answered the request for order shipped to customer after payment was captured and the warehouse confirmed stock levels for every line item in the basket")
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(words[i*7%len(words)])
		b.WriteByte(' ')
	}
	return b.String()
}

func BenchmarkCompress(b *testing.B) {
	db := st.New(&singletabletest.Client{}, czBenchTable)
	for _, body := range []struct {
		name string
		v    string
	}{{"json-8KB", czBenchJSON(8 << 10)}, {"json-64KB", czBenchJSON(64 << 10)}, {"text-64KB", czBenchText(64 << 10)}} {
		b.Run(body.name+"/plain/put", func(b *testing.B) {
			b.SetBytes(int64(len(body.v)))
			for b.Loop() {
				_, _ = czBenchPlainE.PutInput(db, czBenchPlain{ID: "1", Body: body.v})
			}
		})
		for _, c := range []struct {
			name string
			e    *st.Entity[czBench]
		}{{"gzip", czBenchGzip}, {"zstd", czBenchZstd}} {
			in, err := c.e.PutInput(db, czBench{ID: "1", Body: body.v})
			if err != nil {
				b.Fatal(err)
			}
			stored := len(in.Item["Body"].(*types.AttributeValueMemberB).Value)
			ratio := float64(stored) / float64(len(body.v))
			b.Run(body.name+"/"+c.name+"/put", func(b *testing.B) {
				b.SetBytes(int64(len(body.v)))
				for b.Loop() {
					_, _ = c.e.PutInput(db, czBench{ID: "1", Body: body.v})
				}
				b.ReportMetric(ratio, "stored/plain")
			})
			b.Run(body.name+"/"+c.name+"/get", func(b *testing.B) {
				b.SetBytes(int64(len(body.v)))
				for b.Loop() {
					_, _ = c.e.Decode(in.Item)
				}
				b.ReportMetric(ratio, "stored/plain")
			})
		}
	}
}

// An item whose compressed field is under the threshold costs what the
// same item without compression costs: no allocation more, to write or
// to read.
func TestCompressUnderThresholdAllocatesNothingMore(t *testing.T) {
	db := st.New(&singletabletest.Client{}, czBenchTable)
	small := czBenchText(300)
	plainIn, _ := czBenchPlainE.PutInput(db, czBenchPlain{ID: "1", Body: small})
	gzIn, _ := czBenchGzip.PutInput(db, czBench{ID: "1", Body: small})
	put := func(f func()) float64 { return testing.AllocsPerRun(200, f) }
	assert.Equal(t,
		put(func() { _, _ = czBenchPlainE.PutInput(db, czBenchPlain{ID: "1", Body: small}) }),
		put(func() { _, _ = czBenchGzip.PutInput(db, czBench{ID: "1", Body: small}) }), "PutInput")
	assert.Equal(t,
		put(func() { _, _ = czBenchPlainE.Decode(plainIn.Item) }),
		put(func() { _, _ = czBenchGzip.Decode(gzIn.Item) }), "Decode")
}
