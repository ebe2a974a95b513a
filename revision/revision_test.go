package revision_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

type doc struct {
	ID      string
	Rev     int64 `dynamodbav:"_rev"`
	Version int64
	Body    string
}

type plain struct {
	ID      string
	Version int64 `dynamodbav:"_v"`
}

// TestRevisionDefineRefusals: each misdeclaration is a *ModelError naming
// what is wrong, at Define.
func TestRevisionDefineRefusals(t *testing.T) {
	raw := func(map[string]types.AttributeValue) error { return nil }
	cases := []struct {
		name string
		def  func(t *st.Table) error
		want string
	}{
		{"collides with a field", func(tb *st.Table) error {
			_, err := st.Define[doc](tb, "Doc", st.Key("D#{ID}", "D"), revision.Current(1))
			return err
		}, `"_rev" is already field Rev's attribute`},
		{"collides with the version field", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), st.Version("Version"), revision.CurrentFrom(2, 0, "_v"))
			return err
		}, "the version field's attribute"},
		{"collides with the type attribute", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.CurrentFrom(2, 0, "_type"))
			return err
		}, "the entity type attribute"},
		{"current below base", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.CurrentFrom(1, 2, ""))
			return err
		}, "below the base revision"},
		{"upgrader out of range", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.Current(2), revision.UpgradeItem(2, raw))
			return err
		}, "upgraders go from 0 to 1"},
		{"upgrader of another type", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.Current(2), revision.Upgrade(0, func(*doc) error { return nil }))
			return err
		}, "the upgrader takes"},
		{"raw after typed", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.Current(2),
				revision.Upgrade(0, func(*plain) error { return nil }), revision.UpgradeItem(1, raw))
			return err
		}, "raw upgraders (over the item) must come first"},
		{"twice", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.Current(2), revision.UpgradeItem(0, raw), revision.UpgradeItem(0, raw))
			return err
		}, "given twice"},
		{"upgrader without Current", func(tb *st.Table) error {
			_, err := st.Define[plain](tb, "P", st.Key("P#{ID}", "P"), revision.UpgradeItem(0, raw))
			return err
		}, "not revision.Current"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.def(st.MustTable("Things"))
			var me *st.ModelError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// TestRevisionReadNeedsNoRequest: decoding upgrades without the service.
func TestRevisionDecodeUpgrades(t *testing.T) {
	tb := st.MustTable("Things")
	e := st.MustDefine[plain](tb, "P", st.Key("P#{ID}", "P"), revision.Current(1),
		revision.UpgradeItem(0, func(item map[string]types.AttributeValue) error {
			item["_v"] = &types.AttributeValueMemberN{Value: "7"}
			return nil
		}))
	item := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "P#a"}, "SK": &types.AttributeValueMemberS{Value: "P"},
		"_type": &types.AttributeValueMemberS{Value: "P"}, "ID": &types.AttributeValueMemberS{Value: "a"}}
	v, err := e.Decode(item)
	require.NoError(t, err)
	assert.Equal(t, plain{ID: "a", Version: 7}, v)
	_, touched := item["_v"]
	assert.False(t, touched, "the upgrader works on a copy")
	item["_rev"] = &types.AttributeValueMemberN{Value: "2"}
	_, err = e.Decode(item)
	assert.ErrorIs(t, err, revision.ErrNewer)
	item["_rev"] = &types.AttributeValueMemberS{Value: "x"}
	_, err = e.Decode(item)
	assert.ErrorIs(t, err, st.ErrDecode)
}

// TestRevisionSheetAndLint: the sheet and lint show each entity's revision.
func TestRevisionSheetAndLint(t *testing.T) {
	tb := st.MustTable("Things")
	st.MustDefine[plain](tb, "P", st.Key("P#{ID}", "P"), revision.CurrentFrom(4, 1, "shape"))
	assert.Contains(t, tb.Sheet(), "Shape revisions: P 4 (base 1, attribute shape).")
	found := false
	for _, is := range tb.Lint() {
		if is.Subject == "entity P" && strings.Contains(is.Message, "shape revision 4") {
			found = true
		}
	}
	assert.True(t, found, "%v", tb.Lint())
}
