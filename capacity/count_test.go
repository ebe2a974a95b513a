package capacity_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/capacity"
	"github.com/singletable/singletable/singletabletest"
)

// Limit made each page of a count Limit items: Count with Limit(1) over
// 50 items sent 51 requests. A count reads everything the pattern
// selects, so Limit is refused before anything is sent.
func TestCountRefusesLimit(t *testing.T) {
	m := newModel(t)
	c := &singletabletest.Client{}
	db := st.New(c, m.Table)
	_, err := capacity.Count(context.Background(), db, m.ByOwner, Doc{Owner: "o"}, st.Limit(1))
	require.ErrorIs(t, err, st.ErrInvalidInput)
	assert.Contains(t, err.Error(), "Limit")
	assert.Empty(t, c.Calls(), "nothing sent")
}
