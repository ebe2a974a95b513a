package singletable

import (
	"hash/maphash"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// itemIndex maps the itemIDs of a batch's items (at most a few thousand)
// to their places, to find the same item twice and the items a response
// names. It maps 64-bit hashes of the ids (a slot of 16 bytes, where an
// itemID key takes 40: a 100-key BatchGet allocates 3 KB less), and
// checks a hash's item against the id asked for (idAt), so two items that
// share a hash are told apart: the later one's place is kept by its id, in
// a map made only then.
type itemIndex struct {
	seed   maphash.Seed
	places map[uint64]int32
	shared map[model.ItemID]int // places of items whose hash an earlier one has
	idAt   func(i int) model.ItemID
}

// newItemIndex makes an itemIndex for about n items, whose ids idAt reads
// when it checks a place (so an item must be there once added).
func newItemIndex(n int, idAt func(i int) model.ItemID) *itemIndex {
	return &itemIndex{seed: maphash.MakeSeed(), places: make(map[uint64]int32, n), idAt: idAt}
}

func (x *itemIndex) hash(id model.ItemID) uint64 {
	return maphash.String(x.seed, id.PK)*31 + maphash.String(x.seed, id.SK)
}

// add records that the item at place i has id; if an item at an earlier
// place has it, it reports that place instead.
func (x *itemIndex) add(id model.ItemID, i int) (earlier int, dup bool) {
	h := x.hash(id)
	j, taken := x.places[h]
	switch {
	case !taken:
		x.places[h] = int32(i)
		return 0, false
	case x.idAt(int(j)) == id:
		return int(j), true
	}
	if k, ok := x.shared[id]; ok {
		return k, true
	}
	if x.shared == nil {
		x.shared = map[model.ItemID]int{}
	}
	x.shared[id] = i
	return 0, false
}

// find returns the place of the item whose id is id.
func (x *itemIndex) find(id model.ItemID) (int, bool) {
	j, ok := x.places[x.hash(id)]
	switch {
	case !ok:
		return 0, false
	case x.idAt(int(j)) == id:
		return int(j), true
	}
	k, ok := x.shared[id]
	return k, ok
}

// idOf returns the itemID of a key, or of a whole item: only the table's
// key attributes are read.
func (t *Table) idOf(item map[string]types.AttributeValue) model.ItemID {
	id := model.ItemID{PK: keyValue(item[t.schema.PK])}
	if t.schema.SK != "" {
		id.SK = keyValue(item[t.schema.SK])
	}
	return id
}

// keyOfID is the table key whose itemID is id, made anew (the table's key
// attributes hold strings, see keyValue): for a retry, and for the errors
// that name a key after its request was sent, since the request's own maps
// are the Client's, which may have changed them.
func (t *Table) keyOfID(id model.ItemID) map[string]types.AttributeValue {
	key := make(map[string]types.AttributeValue, 2)
	key[t.schema.PK] = &types.AttributeValueMemberS{Value: id.PK}
	if t.schema.SK != "" {
		key[t.schema.SK] = &types.AttributeValueMemberS{Value: id.SK}
	}
	return key
}

// keySize is the itemSize of the key attributes of a key, or of a whole
// item (only the table's key attributes are read).
func (t *Table) keySize(item map[string]types.AttributeValue) int {
	n := 0
	if v, ok := item[t.schema.PK]; ok {
		n += len(t.schema.PK) + codec.Size(v)
	}
	if t.schema.SK != "" {
		if v, ok := item[t.schema.SK]; ok {
			n += len(t.schema.SK) + codec.Size(v)
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
