//go:build integration

package singletable_test

// The mixed oracle's shape revisions (see oracle_mixed_integration_test.go):
// notes are at revision 2, and old code still writes them at revision 0
// (from before revisions: no revision attribute, the language in
// "language") and revision 1 (in "lang", its Put conditioned on the stored
// revision not being newer), as a raw PutItem. The oracle keeps every note
// as reads must return it, upgraded, and which ones are stored older; the
// reads of oracle_mixed_reads_integration_test.go and
// oracle_mixed_ops_integration_test.go check them through every path.

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

// mxOldNote is a note stored at an older revision: which, and its
// language as stored (before revision 2's default).
type mxOldNote struct {
	rev  int
	lang string
}

// setNote records n as current code stored it (revision 2); dropNote, a
// note's deletion.
func (x *mxRun) setNote(n mxNote) {
	x.notes[mxNK(n)] = n.norm()
	delete(x.oldNotes, mxNK(n))
}

func (x *mxRun) dropNote(k mxNoteKey) {
	delete(x.notes, k)
	delete(x.oldNotes, k)
}

// oldWriteNote writes a note as code at revision 0 or 1 does: the item
// current code would Put, in the older shape.
func (x *mxRun) oldWriteNote() {
	n, rev := x.randomNote(), x.r.IntN(2)
	in, err := x.m.notes.PutInput(x.db, n)
	require.NoError(x.t, err, x.where)
	item := maps.Clone(in.Item)
	put := &dynamodb.PutItemInput{TableName: aws.String(x.db.TableName()), Item: item}
	if rev == 0 {
		delete(item, revision.DefaultAttribute)
		if l, ok := item["lang"]; ok {
			item["language"] = l
			delete(item, "lang")
		}
	} else {
		item[revision.DefaultAttribute] = &types.AttributeValueMemberN{Value: "1"}
		put.ConditionExpression = aws.String("attribute_not_exists(#r) OR #r <= :r")
		put.ExpressionAttributeNames = map[string]string{"#r": revision.DefaultAttribute}
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":r": &types.AttributeValueMemberN{Value: "1"}}
	}
	_, err = x.db.Client().PutItem(x.ctx, put)
	_, stored := x.notes[mxNK(n)]
	if _, old := x.oldNotes[mxNK(n)]; rev == 1 && stored && !old {
		var ccf *types.ConditionalCheckFailedException
		require.ErrorAs(x.t, err, &ccf, x.where+": revision-1 code's Put of a revision-2 note")
		x.seen["old write refused"]++
		return
	}
	require.NoError(x.t, err, x.where)
	x.seen["old note written"]++
	up := n
	require.NoError(x.t, mxDefaultLang(&up))
	x.notes[mxNK(n)] = up.norm()
	x.oldNotes[mxNK(n)] = mxOldNote{rev: rev, lang: n.Lang}
}

// oldReadNote reads a note with code at revision 1: a revision-2 note is a
// *revision.NewerError naming both revisions, an older one comes back in
// revision 1's shape (no default language).
func (x *mxRun) oldReadNote() {
	k := x.noteKey()
	incl := x.r.IntN(2) == 0
	var opts []st.GetOption
	if incl {
		opts = append(opts, st.IncludeExpired())
	}
	got, err := x.m.notesV1.Get(x.ctx, x.dbV1, k, opts...)
	cur, ok := x.notes[mxNK(k)]
	old, isOld := x.oldNotes[mxNK(k)]
	switch {
	case !ok || !incl && x.expired(cur):
		require.ErrorIs(x.t, err, st.ErrNotFound, x.where)
	case isOld:
		require.NoError(x.t, err, x.where)
		cur.Lang = old.lang
		require.Equal(x.t, cur, got.norm(), x.where+": revision-1 code's read of an older note")
	default:
		var ne *revision.NewerError
		require.ErrorAs(x.t, err, &ne, x.where+": revision-1 code's read of a revision-2 note")
		require.ErrorIs(x.t, err, revision.ErrNewer, x.where)
		require.Equal(x.t, [2]int{2, 1}, [2]int{ne.Stored, ne.Current}, x.where)
		x.seen["newer note refused"]++
	}
}

// oldNoteUpgrade changes a note stored older as docs/migrations.md says a
// service does: its Update is refused (it would mark the note current
// without its upgrade), so it reads the note (upgraded) and Puts it
// changed. The stored item is then revision 2's shape.
func (x *mxRun) oldNoteUpgrade() {
	if len(x.oldNotes) == 0 {
		return
	}
	k := pick(x.r, slices.SortedFunc(maps.Keys(x.oldNotes), func(a, b mxNoteKey) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) }))
	key := mxNote{Org: k.org, Acct: k.acct, Seq: k.seq}
	_, err := x.m.notes.Update(x.ctx, x.db, key, st.Set("Body", "kept"))
	require.ErrorIs(x.t, err, st.ErrConditionFailed, x.where+": Update of a note at an older revision")
	x.seen["old note update refused"]++
	n, err := x.m.notes.Get(x.ctx, x.db, key, st.IncludeExpired())
	require.NoError(x.t, err, x.where)
	require.Equal(x.t, x.notes[k], n.norm(), x.where)
	n.Body = "kept"
	require.NoError(x.t, x.m.notes.Put(x.ctx, x.db, n), x.where)
	x.setNote(n)
	x.seen["old note upgraded"]++
	raw, err := x.db.Client().GetItem(x.ctx, &dynamodb.GetItemInput{TableName: aws.String(x.db.TableName()), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + esc(k.org)}, "SK": &types.AttributeValueMemberS{Value: mxNoteSK(n)}}})
	require.NoError(x.t, err, x.where)
	_, language := raw.Item["language"]
	require.False(x.t, language, x.where+": the upgraded note keeps its revision-0 attribute")
	require.Equal(x.t, &types.AttributeValueMemberN{Value: "2"}, raw.Item[revision.DefaultAttribute], x.where)
}
