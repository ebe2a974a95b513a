package migrate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/migrate"
	"github.com/singletable/singletable/singletabletest"
)

type scopeAgent struct {
	ID     string `dynamodbav:"id"`
	Tenant string `dynamodbav:"tenant"`
	Email  string `dynamodbav:"email"`
}

// scopeModel is the agents' model: emails unique table-wide (v1) or per
// tenant (v2).
func scopeModel(scoped bool) *st.Entity[scopeAgent] {
	decl := "Email"
	if scoped {
		decl = "Email within Tenant"
	}
	return st.MustDefine[scopeAgent](st.MustTable("ScopeAgents"), "Agent", st.Key("AGENT#{ID}", "AGENT"), st.Unique(decl))
}

// A field not unique within a scope is refused before anything is sent.
func TestScopeUniqueRefusals(t *testing.T) {
	mock := &singletabletest.Client{}
	v1 := scopeModel(false)
	db := st.New(mock, v1.Table())
	_, err := migrate.ScopeUnique(context.Background(), db, v1, "Email")
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "declares Email unique table-wide")
	v2 := scopeModel(true)
	_, err = migrate.ScopeUnique(context.Background(), st.New(mock, v2.Table()), v2, "Tenant")
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "has no unique field Tenant")
	assert.Empty(t, mock.Calls())
}
