//go:build integration

package singletable_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// Keys at exactly DynamoDB's limits are stored; one byte over is a
// *KeyError, never the service's "Size limit exceeded": the table's
// partition key where an inverted index makes it a sort key (1024), and a
// field's attribute as an index's partition (2048) or sort key (1024).
func TestIntegrationIndexKeyLimits(t *testing.T) {
	inv := st.MustTable("T3InvLocal", st.WithGSI("Inverted", st.IndexKeys("SK", "PK"), st.KeysOnly()))
	invMembers := st.MustDefine[t3Member](inv, "Member", st.Key("M#{ID}", "PROFILE"))
	db := singletabletest.LocalDB(t, inv)
	require.NoError(t, invMembers.Put(ctx, db, t3Member{ID: strings.Repeat("a", 1022)}))
	err := invMembers.Put(ctx, db, t3Member{ID: strings.Repeat("a", 1023)})
	require.ErrorIs(t, err, st.ErrInvalidKey)

	attr := st.MustTable("T3AttrLocal", st.WithGSI("ByMail", st.IndexKeys("mail", "nick")))
	attrMembers := st.MustDefine[t3Member](attr, "Member", st.Key("M#{ID}", "PROFILE"))
	db = singletabletest.LocalDB(t, attr)
	require.NoError(t, attrMembers.Put(ctx, db, t3Member{ID: "m", Mail: strings.Repeat("e", 2048), Nick: strings.Repeat("n", 1024)}))
	err = attrMembers.Put(ctx, db, t3Member{ID: "m", Mail: "e", Nick: strings.Repeat("n", 1025)})
	require.ErrorIs(t, err, st.ErrInvalidKey)
	_, err = attrMembers.Update(ctx, db, t3Member{ID: "m"}, st.Set("Nick", strings.Repeat("n", 1025)))
	require.ErrorIs(t, err, st.ErrInvalidKey)
}
