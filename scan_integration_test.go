//go:build integration

package singletable_test

import (
	"context"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

func TestIntegrationScanSegmentsEveryItemOnce(t *testing.T) {
	ctx := context.Background()
	m := testmodel.NewMigModel(t, false)
	db := singletabletest.LocalDB(t, m.Table)
	const n = 240
	testmodel.LoadDocs(t, ctx, db, m, n)
	// Two items the model does not register: another type, and no type.
	client := db.Client().(*dynamodb.Client)
	for _, item := range []map[string]types.AttributeValue{
		{"PK": &types.AttributeValueMemberS{Value: "ALIEN#1"}, "SK": &types.AttributeValueMemberS{Value: "A"}, "_type": &types.AttributeValueMemberS{Value: "Alien"}},
		{"PK": &types.AttributeValueMemberS{Value: "RAW#1"}, "SK": &types.AttributeValueMemberS{Value: "R"}},
	} {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: item})
		require.NoError(t, err)
	}

	t.Run("table", func(t *testing.T) {
		seen := map[string]int{}
		var unknown []string
		var progress []st.ScanProgress
		for it, err := range db.Scan(ctx, st.Segments(4), st.PageSize(17), st.OnProgress(func(p st.ScanProgress) { progress = append(progress, p) })) {
			require.NoError(t, err)
			switch v := it.Value.(type) {
			case testmodel.MigDoc:
				seen["doc "+v.ID]++
				assert.Equal(t, testmodel.MigTestDoc(v.N), testmodel.SortedTags(v))
			case testmodel.MigNote:
				seen["note "+v.ID]++
			case nil:
				assert.False(t, it.Known())
				unknown = append(unknown, it.Entity+" "+it.Item["PK"].(*types.AttributeValueMemberS).Value)
			default:
				t.Fatalf("unexpected %T", v)
			}
		}
		assert.Len(t, seen, n+n/3)
		for k, c := range seen {
			assert.Equal(t, 1, c, k)
		}
		sort.Strings(unknown)
		assert.Equal(t, []string{" RAW#1", "Alien ALIEN#1"}, unknown)
		last := progress[len(progress)-1]
		assert.Equal(t, 4, last.SegmentsDone)
		assert.Equal(t, 4, last.TotalSegments)
		assert.Equal(t, int64(n+n/3+2), last.Scanned)
	})

	t.Run("entity", func(t *testing.T) {
		seen := map[string]int{}
		for d, err := range m.Docs.Scan(ctx, db, st.Segments(3), st.PageSize(50)) {
			require.NoError(t, err)
			seen[d.ID]++
		}
		assert.Len(t, seen, n)
		for i := range n {
			assert.Equal(t, 1, seen[testmodel.MigDocID(i)], testmodel.MigDocID(i))
		}
	})

	t.Run("filter", func(t *testing.T) {
		count := 0
		for d, err := range m.Docs.Scan(ctx, db, st.Segments(2), st.Filter(st.Eq("Owner", "o1"))) {
			require.NoError(t, err)
			assert.Equal(t, "o1", d.Owner)
			count++
		}
		assert.Equal(t, n/3, count)
	})

	t.Run("break stops", func(t *testing.T) {
		count := 0
		for _, err := range db.Scan(ctx, st.Segments(4), st.PageSize(5)) {
			require.NoError(t, err)
			if count++; count == 7 {
				break
			}
		}
		assert.Equal(t, 7, count)
	})
}

func TestIntegrationScanResume(t *testing.T) {
	ctx := context.Background()
	m := testmodel.NewMigModel(t, false)
	db := singletabletest.LocalDB(t, m.Table)
	const n = 120
	testmodel.LoadDocs(t, ctx, db, m, n)

	// One segment read at a time: the loop has handled exactly the pages
	// a progress call covers when it is made.
	var yielded []string
	var position string
	covered := 0
	opts := []st.ScanOption{st.Segments(3), st.ScanConcurrency(1), st.PageSize(7),
		st.OnProgress(func(p st.ScanProgress) { position, covered = p.Position, len(yielded) })}
	for d, err := range m.Docs.Scan(ctx, db, opts...) {
		require.NoError(t, err)
		yielded = append(yielded, d.ID)
		if len(yielded) == n/2 {
			break
		}
	}
	require.NotEmpty(t, position)
	require.Less(t, covered, n/2, "the break fell inside a page")

	seen := map[string]int{}
	for _, id := range yielded[:covered] {
		seen[id]++
	}
	for d, err := range m.Docs.Scan(ctx, db, st.Segments(3), st.PageSize(7), st.ResumeScan(position)) {
		require.NoError(t, err)
		seen[d.ID]++
	}
	assert.Len(t, seen, n)
	for id, c := range seen {
		assert.Equal(t, 1, c, id)
	}

	// A position resumes only the scan that issued it.
	for name, opts := range map[string][]st.ScanOption{
		"other segments": {st.Segments(2), st.ResumeScan(position)},
		"tampered":       {st.Segments(3), st.ResumeScan(position[:len(position)-2] + "AA")},
		"garbage":        {st.Segments(3), st.ResumeScan("x")},
	} {
		_, err := m.Docs.ScanInput(db, opts...)
		assert.ErrorIs(t, err, st.ErrInvalidCursor, name)
	}
	_, err := m.Notes.ScanInput(db, st.Segments(3), st.ResumeScan(position))
	assert.ErrorIs(t, err, st.ErrInvalidCursor, "another entity")
}
