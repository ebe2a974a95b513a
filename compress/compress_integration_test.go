//go:build integration

package compress_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/compress"
	icompress "github.com/singletable/singletable/internal/compress"
	"github.com/singletable/singletable/singletabletest"
)

// This package's tests do not import compress/zstd: they are the program
// that reads values zstd wrote without registering it.

type doc struct {
	ID   string
	Body string `singletable:"compress"`
	Raw  []byte `singletable:"compress"`
}

// zstdBody is what compress/zstd stores for 20 times "zstd wrote this. "
// (a string): the header (codec id 2, kind S, 340 bytes), then the frame.
const zstdBody = "\x00STZ\x02S\xd4\x02(\xb5/\xfdD\x00T\x00\xd5\x00\x00\x14\x01zstd wrote this. \x01T\x10\x04,\x81(\x9b\x88\xaaN"

// The header rule, as a program meets it: each item is written through
// the raw client, as another program (or the field before it had its tag)
// wrote it, then read through the entity.
func TestIntegrationCompressHeaderRule(t *testing.T) {
	_, registered := icompress.Lookup(icompress.IDZstd)
	require.False(t, registered, "this test binary must not import compress/zstd")
	ctx := context.Background()
	tbl := st.MustTable("CzRule")
	docs := st.MustDefine[doc](tbl, "Doc", st.Key("D#{ID}", "D"), compress.With(compress.Gzip, 100))
	db := singletabletest.LocalDB(t, tbl)
	put := func(id string, body, raw types.AttributeValue) {
		t.Helper()
		item := map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "D#" + id}, "SK": &types.AttributeValueMemberS{Value: "D"},
			tbl.TypeAttribute(): &types.AttributeValueMemberS{Value: "Doc"}, "ID": &types.AttributeValueMemberS{Value: id},
			"Body": body, "Raw": raw,
		}
		_, err := db.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(db.TableName()), Item: item})
		require.NoError(t, err)
	}
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	b := func(v string) types.AttributeValue { return &types.AttributeValueMemberB{Value: []byte(v)} }

	// A plain binary written before Raw was tagged, beginning with the
	// magic but not a well-formed header: read as the bytes it is.
	legacy := icompress.Magic + "\x01Z legacy bytes"
	put("legacy", s("plain"), b(legacy))
	got, err := docs.Get(ctx, db, doc{ID: "legacy"})
	require.NoError(t, err)
	assert.Equal(t, doc{ID: "legacy", Body: "plain", Raw: []byte(legacy)}, got)

	// A well-formed gzip header whose payload does not decompress.
	put("damaged", s("plain"), b(icompress.Magic+"\x01B\x64not gzip"))
	_, err = docs.Get(ctx, db, doc{ID: "damaged"})
	var de *st.DecodeError
	require.ErrorAs(t, err, &de)
	require.ErrorIs(t, err, compress.ErrCorrupt)
	require.ErrorIs(t, err, st.ErrDecode)
	assert.Equal(t, "Raw", de.Field, "the error names the field")

	// zstd's value in a program that does not import compress/zstd.
	put("zstd", b(zstdBody), b("small"))
	_, err = docs.Get(ctx, db, doc{ID: "zstd"})
	require.ErrorAs(t, err, &de)
	require.ErrorIs(t, err, compress.ErrUnknownCodec)
	assert.Equal(t, "Body", de.Field)
	assert.Contains(t, err.Error(), "codec zstd")
	assert.Contains(t, err.Error(), "import github.com/singletable/singletable/compress/zstd")
}
