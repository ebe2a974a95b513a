package singletable_test

// Unique values and time to live do not mix: DynamoDB's TTL deletes an
// expired item but not its unique-value guard items, and Create over an
// expired item replaced it without freeing its values, so an email or a
// code stayed taken for good, by an item no read could find.

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
)

type uqInvite struct {
	Team  string    `dynamodbav:"team"`
	Code  string    `dynamodbav:"code"`
	Email string    `dynamodbav:"email"`
	Exp   time.Time `dynamodbav:"ttl,unixtime"`
}

type uqTaggedInvite struct {
	Team  string    `dynamodbav:"team"`
	Email string    `dynamodbav:"email" singletable:"unique"`
	Exp   int64     `dynamodbav:"ttl"` // the expiry by its attribute alone
	At    time.Time `dynamodbav:"at"`
}

func TestDefineRefusesUniqueFieldsOfAnExpiringEntity(t *testing.T) {
	table := st.MustTable("Invites", st.WithTTL("ttl"))
	cases := map[string]func() error{
		"options": func() error {
			_, err := st.Define[uqInvite](table, "Invite", st.Key("TEAM#{Team}", "INV#{Code}"),
				st.Unique("Email"), st.Expires("Exp"))
			return err
		},
		"tags and the TTL attribute": func() error {
			_, err := st.Define[uqTaggedInvite](table, "TaggedInvite", st.Key("TEAM#{Team}", "AT#{At}"))
			return err
		},
	}
	for name, define := range cases {
		t.Run(name, func(t *testing.T) {
			err := define()
			var me *st.ModelError
			require.True(t, errors.As(err, &me), "%v", err)
			assert.Equal(t, "Email", me.Field)
			assert.Contains(t, err.Error(), "time to live")
		})
	}
	// Either alone is fine.
	_, err := st.Define[uqInvite](table, "ExpiringInvite", st.Key("TEAM#{Team}", "INV#{Code}"), st.Expires("Exp"))
	require.NoError(t, err)
	_, err = st.Define[uqInvite](st.MustTable("Invites2"), "UniqueInvite", st.Key("TEAM#{Team}", "INV#{Code}"), st.Unique("Email"))
	require.NoError(t, err)
}
