package singletable_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

// A chat design: a bare timestamp sort key shares the room's partition with
// "Join:" keys. No timestamp starts with "J": lint reports nothing.
func TestLintBareTimestampBesideJoinKeys(t *testing.T) {
	type message struct {
		Room string
		At   time.Time
		Text string
	}
	type join struct{ Room, User string }
	tbl := st.MustTable("Chat", st.WithTypeAttribute("_type,keys"))
	st.MustDefine[message](tbl, "Message", st.Key("ROOM#{Room}", "{At}"))
	st.MustDefine[join](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	assert.Empty(t, tbl.Lint(), st.LintReport(tbl.Lint()))

	// A layout that starts with a month name can: still reported.
	tbl = st.MustTable("Chat", st.WithTypeAttribute("_type,keys"))
	st.MustDefine[message](tbl, "Message", st.Key("ROOM#{Room}", "{At:Jan 2 15:04}"))
	st.MustDefine[join](tbl, "Join", st.Key("ROOM#{Room}", "Join:{User}"))
	issues := tbl.Lint()
	if assert.Len(t, issues, 1) {
		assert.Equal(t, st.LintError, issues[0].Severity)
	}
}

// An option of the type attribute other than keys and omit is a
// *ModelError naming it.
func TestAdoptTypeAttributeOptionRefused(t *testing.T) {
	_, err := st.NewTable("Bad", st.WithTypeAttribute("_type,nope"))
	var me *st.ModelError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, err.Error(), "nope")
}
