package singletable

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// itemID identifies an item of a table by the values of its key
// attributes. Transactions, batches and FetchFull compare itemIDs to find
// the same item twice and to match the keys DynamoDB returns unprocessed:
// a small struct as a map key costs no allocation, where formatKey builds
// (and sorts) a string per item. formatKey stays for messages.
type itemID struct{ pk, sk string }

// idOf returns the itemID of a key, or of a whole item: only the table's
// key attributes are read.
func (t *Table) idOf(item map[string]types.AttributeValue) itemID {
	id := itemID{pk: keyValue(item[t.pk])}
	if t.sk != "" {
		id.sk = keyValue(item[t.sk])
	}
	return id
}

// keySize is the itemSize of the key attributes of a key, or of a whole
// item (only the table's key attributes are read).
func (t *Table) keySize(item map[string]types.AttributeValue) int {
	n := 0
	if v, ok := item[t.pk]; ok {
		n += len(t.pk) + codec.Size(v)
	}
	if t.sk != "" {
		if v, ok := item[t.sk]; ok {
			n += len(t.sk) + codec.Size(v)
		}
	}
	return n
}

// keyValue is the value of a key attribute. The library's tables declare
// string keys, so in practice this is the S value; a number or binary key
// (one table holds only one type per key attribute, so values of different
// types never meet) is compared by its text or bytes.
func keyValue(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return string(v.Value)
	}
	return ""
}
