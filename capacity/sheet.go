package capacity

import (
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
)

// SheetOptions size the capacity columns of Sheet.
type SheetOptions struct {
	// Samples are typical values of the table's entities (a T or *T of
	// an entity's struct), one per entity: the estimates are theirs. An
	// entity without one is listed without units.
	Samples []any
	// PageItems is how many items a Query page reads (10 when 0).
	PageItems int
}

// Sheet is the table's access-pattern sheet (Table.Sheet) followed by the
// capacity each pattern and each write costs, estimated from the sample
// values: a pattern's page of PageItems items, eventually and strongly
// consistent, on the index it reads (its projection included), and for
// each entity the item's size and its put, delete and transactional
// writes, index writes included.
func Sheet(t *st.Table, o SheetOptions) string {
	var b strings.Builder
	_ = WriteSheet(&b, t, o)
	return b.String()
}

// WriteSheet writes Sheet to w.
func WriteSheet(w io.Writer, t *st.Table, o SheetOptions) error {
	if o.PageItems <= 0 {
		o.PageItems = 10
	}
	var b strings.Builder
	b.WriteString(t.Sheet())
	writes := map[string]Writes{}
	items := map[string]bridge.CapacityModel{}
	var order []string
	for _, e := range bridge.Capacity.Entities(t) {
		m := bridge.Capacity.Model(e)
		order = append(order, m.Entity)
		items[m.Entity] = *m
		for _, v := range o.Samples {
			if w, err := writesOf(m, v); err == nil {
				writes[m.Entity] = w
				break
			}
		}
	}
	fmt.Fprintf(&b, "\n## Capacity\n\nEstimated by DynamoDB's rules from the sample values (docs/capacity.md): read units of a page of %d items (one for a GetItem), write units of one write, index writes included.\n\n", o.PageItems)
	b.WriteString("| Pattern | Index | Entry bytes | RCU eventual | RCU strong |\n|---|---|---|---|---|\n")
	for _, d := range bridge.Capacity.Reads(t) {
		index := "table"
		if d.Index != "" {
			index = d.Index + " (" + d.Projection + ")"
		}
		bytes, ok := 0, false
		for _, name := range d.Entities {
			w, found := writes[name]
			if !found {
				continue
			}
			size := w.ItemBytes
			if d.Projection != "ALL" {
				if item, err := sampleItem(items[name], o.Samples); err == nil {
					size = ItemSize(entry(d.Projection, d.Keys, d.Include, item))
				}
			}
			bytes, ok = max(bytes, size), true
		}
		if !ok {
			fmt.Fprintf(&b, "| %s | %s | no sample | | |\n", d.Name, index)
			continue
		}
		ev := readOf(d, Page{Items: o.PageItems, ItemBytes: bytes})
		strong := "n/a (index)"
		if d.Index == "" {
			strong = num(readOf(d, Page{Items: o.PageItems, ItemBytes: bytes, Consistent: true}).Units)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s |\n", d.Name, index, bytes, num(ev.Units), strong)
	}
	b.WriteString("\n| Entity | Item bytes | Put WCU | Delete WCU | TxPut WCU | Index WCU of a put |\n|---|---|---|---|---|---|\n")
	for _, name := range order {
		w, ok := writes[name]
		if !ok {
			fmt.Fprintf(&b, "| %s | no sample | | | | |\n", name)
			continue
		}
		var ix []string
		for _, k := range sortedKeys(w.Put.Index) {
			ix = append(ix, fmt.Sprintf("%s %s", k, num(w.Put.Index[k])))
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", name, w.ItemBytes, num(w.Put.Units), num(w.Delete.Units), num(w.TxPut.Units), strings.Join(ix, ", "))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sampleItem(m bridge.CapacityModel, samples []any) (map[string]types.AttributeValue, error) {
	for _, v := range samples {
		if item, err := m.Item(v); err == nil {
			return item, nil
		}
	}
	return nil, fmt.Errorf("no sample")
}
