package singletable_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

func TestShardsDeclarationErrors(t *testing.T) {
	type item struct {
		ID    string
		Name  string
		Shard int
		Label string
		N     *int
	}
	tbl := st.MustTable("ShardErrors")
	for name, opts := range map[string][]st.EntityOption{
		"no such field":         {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Nope", 4)},
		"not an integer":        {st.Key("A#{ID}#{Label}", "X"), st.Shards("Label", 4)},
		"pointer":               {st.Key("A#{ID}", "X"), st.Shards("N", 4)},
		"zero shards":           {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 0)},
		"too many shards":       {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 1001)},
		"in no template":        {st.Key("A#{ID}", "X"), st.Shards("Shard", 4)},
		"padding too narrow":    {st.Key("A#{ID}#{Shard:1}", "X"), st.Shards("Shard", 11)},
		"old count too narrow":  {st.Key("A#{ID}#{Shard:1}", "X"), st.Shards("Shard", 10).Previously(12)},
		"By not in primary key": {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 4).By("Name")},
		"By the shard itself":   {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 4).By("Shard")},
		"By with no field":      {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 4).By()},
		"Shards twice":          {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 4), st.Shards("Shard", 5)},
		"bad old count":         {st.Key("A#{ID}#{Shard}", "X"), st.Shards("Shard", 4).Previously(0)},
	} {
		_, err := st.Define[item](tbl, "Item"+name, opts...)
		assert.ErrorIs(t, err, st.ErrInvalidModel, name)
	}
}

func TestShardHashIsStable(t *testing.T) {
	_, db := fanMockDB()
	// FNV-1a 32 of "s1\x00e1\x00" (the By fields as written in keys,
	// escaped) mod 4, computed apart from the library: fixed, so that every
	// process and release finds the same shard.
	want := map[string]string{"e1": "EVENT#s1#3", "e2": "EVENT#s1#0", "e3": "EVENT#s1#1", "x%#y": "EVENT#s1#2"}
	got := map[string]string{}
	for id := range want {
		in, err := streamEvs.GetInput(db, event{Stream: "s1", ID: id, At: hour(1, 0), Shard: 3}) // a wrong shard is recomputed
		require.NoError(t, err)
		got[id] = in.Key["PK"].(*types.AttributeValueMemberS).Value
	}
	assert.Equal(t, want, got)
	// The shard goes into the stored field and every key that holds it.
	in, err := streamEvs.PutInput(db, event{Stream: "s1", ID: "e3", At: hour(1, 0), Kind: "click"})
	require.NoError(t, err)
	assert.Equal(t, "1", in.Item["shard"].(*types.AttributeValueMemberN).Value)
	assert.Equal(t, "KIND#click#01", in.Item["GSI1PK"].(*types.AttributeValueMemberS).Value)
}

func TestShardWrites(t *testing.T) {
	_, db := fanMockDB()
	// A shard the value carries is used as is, in range.
	in, err := pageViews.PutInput(db, pageView{PageID: "p", Shard: 9})
	require.NoError(t, err)
	assert.Equal(t, "PAGEVIEW#p#9", in.Item["PK"].(*types.AttributeValueMemberS).Value)
	for _, bad := range []int{-1, 10} {
		_, err = pageViews.PutInput(db, pageView{PageID: "p", Shard: bad})
		assert.ErrorIs(t, err, st.ErrInvalidKey, "shard %d", bad)
		_, err = pageViews.GetInput(db, pageView{PageID: "p", Shard: bad})
		assert.ErrorIs(t, err, st.ErrInvalidKey, "shard %d", bad)
	}
	// RandomShard spreads over the shards, and Upsert stores the shard it chose.
	seen := map[string]bool{}
	for range 200 {
		up, err := pageViews.UpdateInput(db, pageView{PageID: "p", Shard: 7}, st.Increment("Views", 1), st.Upsert(), st.RandomShard())
		require.NoError(t, err)
		seen[up.Key["PK"].(*types.AttributeValueMemberS).Value] = true
	}
	assert.Len(t, seen, 10)
	// RandomShard where the entity is not sharded, or sharded by hash.
	_, err = streamEvs.PutInput(db, event{Stream: "s", ID: "e", At: hour(1, 0)}, st.RandomShard())
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	_, err = readings.PutInput(db, reading{DeviceID: "d", At: hour(1, 0)}, st.RandomShard())
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	// A derived shard cannot be set; an update recomputes the index key with it.
	_, err = streamEvs.UpdateInput(db, event{Stream: "s1", ID: "e2", At: hour(1, 0)}, st.Set("Shard", 1))
	assert.ErrorIs(t, err, st.ErrInvalidInput)
	up, err := streamEvs.UpdateInput(db, event{Stream: "s1", ID: "e2", At: hour(1, 0)}, st.Set("Kind", "view"))
	require.NoError(t, err, "the shard is known from the key: no read needed")
	found := false
	for _, v := range up.ExpressionAttributeValues {
		if s, ok := v.(*types.AttributeValueMemberS); ok && s.Value == "KIND#view#00" {
			found = true
		}
	}
	assert.True(t, found, "GSI1PK recomputed with the hashed shard: %v", up.ExpressionAttributeValues)
}

func TestShardsPreviously(t *testing.T) {
	type counter struct {
		ID    string
		Shard int
	}
	tbl := st.MustTable("ShardChange")
	c := st.MustDefine[counter](tbl, "Counter", st.Key("C#{ID}#{Shard}", "X"), st.Shards("Shard", 4).Previously(8))
	p := c.Pattern("Counters").Must()
	db := st.New(nil, tbl)
	ins, err := p.QueryInputs(db, counter{ID: "a"})
	require.NoError(t, err)
	assert.Len(t, ins, 8, "reads cover the old shards while items move")
	_, err = c.PutInput(db, counter{ID: "a", Shard: 7})
	assert.NoError(t, err, "an item still in an old shard can be written and deleted")
	for range 50 {
		in, err := c.PutInput(db, counter{ID: "a"}, st.RandomShard())
		require.NoError(t, err)
		assert.Contains(t, []string{"C#a#0", "C#a#1", "C#a#2", "C#a#3"}, in.Item["PK"].(*types.AttributeValueMemberS).Value)
	}
	assert.Contains(t, tbl.Sheet(), "fan-out over 8 shards")
}

func TestBucketLayouts(t *testing.T) {
	type item struct {
		ID string
		At time.Time
	}
	tbl := st.MustTable("Buckets")
	for layout, want := range map[string]string{
		"2006-01-02-15":    "hour",
		"2006-01-02T15":    "hour",
		"2006-01-02":       "day",
		"2006-01":          "month",
		"2006":             "year",
		"2006-01-02T15:04": "minute",
		"20060102":         "day",
	} {
		e := st.MustDefine[item](tbl, "Item"+layout, st.Key("I#{ID}#{At:"+layout+"}", "{At}"))
		p := e.Pattern("Between" + layout).SortBetween()
		require.NoError(t, p.Err(), layout)
		assert.Contains(t, tbl.Sheet(), "fan-out over "+want+" buckets", layout)
	}
	// Layouts that render no bucket: a read between two times could not
	// know which partitions hold them.
	for _, layout := range []string{"15", "01-02", "Jan 2", "2006-01-02T15:04:05"} {
		e := st.MustDefine[item](tbl, "Bad"+layout, st.Key("I#{ID}#{At:"+layout+"}", "{At}"))
		assert.ErrorIs(t, e.Pattern("Bad"+layout).SortBetween().Err(), st.ErrInvalidModel, layout)
		// A read of one partition is still fine.
		assert.NoError(t, e.Pattern("One"+layout).SortPrefix().Err(), layout)
	}
}

// A shard field too narrow for the shard numbers would wrap (uint8 shard
// 256 is 0), so that reads fan out over one shard twice and return its
// items twice: Define refuses it, as it does a padding too narrow.
func TestShardsFieldTooNarrow(t *testing.T) {
	type narrow struct {
		ID string
		U8 uint8
		I8 int8
	}
	tbl := st.MustTable("ShardNarrow")
	for name, opts := range map[string][]st.EntityOption{
		"uint8, 257 shards":           {st.Key("A#{ID}#{U8}", "X"), st.Shards("U8", 257)},
		"int8, 129 shards":            {st.Key("A#{ID}#{I8}", "X"), st.Shards("I8", 129)},
		"uint8, previously 300":       {st.Key("A#{ID}#{U8}", "X"), st.Shards("U8", 10).Previously(300)},
		"int8, 200 shards, by a hash": {st.Key("A#{ID}#{I8}", "X"), st.Shards("I8", 200).By("ID")},
	} {
		_, err := st.Define[narrow](tbl, "Narrow", opts...)
		require.ErrorIs(t, err, st.ErrInvalidModel, name)
		assert.Contains(t, err.Error(), "cannot hold shard", name)
	}
	for name, opts := range map[string][]st.EntityOption{
		"uint8, 256 shards": {st.Key("A#{ID}#{U8}", "X"), st.Shards("U8", 256)},
		"int8, 128 shards":  {st.Key("A#{ID}#{I8}", "X"), st.Shards("I8", 128).By("ID")},
	} {
		_, err := st.Define[narrow](tbl, "Fits"+name[:2], opts...)
		assert.NoError(t, err, name)
	}
}
