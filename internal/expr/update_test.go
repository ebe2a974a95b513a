package expr

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUpdateEmpty(t *testing.T) {
	var u Update
	assert.Equal(t, "", u.String())
}

// Clauses come out in SET, REMOVE, ADD, DELETE order whatever the order of
// the actions, each action of a clause after a comma.
func TestUpdateClauses(t *testing.T) {
	var u Update
	u.Act(ClauseDelete, "#n3", " ", ":v2")
	u.Act(ClauseSet, "#n0", " = ", ":v0")
	u.Act(ClauseRemove, "#n1")
	u.Act(ClauseAdd, "#n2", " ", ":v1")
	u.Act(ClauseSet, "#n4", " = ", ":v3")
	assert.Equal(t, "SET #n0 = :v0, #n4 = :v3 REMOVE #n1 ADD #n2 :v1 DELETE #n3 :v2", u.String())
}

func TestUpdateSingleClause(t *testing.T) {
	var u Update
	u.Act(ClauseRemove, "#n0")
	u.Act(ClauseRemove, "#n1")
	assert.Equal(t, "REMOVE #n0, #n1", u.String())
}

func TestUpdateTemplate(t *testing.T) {
	var u Update
	u.Template(ClauseSet, []string{"$p", " = list_append(if_not_exists(", "$p", ", ", "$k", "), ", "$v", ")"}, "#n0", ":v1", ":v0")
	u.Template(ClauseAdd, []string{"$p", " ", "$v"}, "#n1", ":v2", "")
	assert.Equal(t, "SET #n0 = list_append(if_not_exists(#n0, :v0), :v1) ADD #n1 :v2", u.String())
}

func TestUpdateActAllocations(t *testing.T) {
	var u Update
	u.Act(ClauseSet, "#n0", " = ", ":v0")
	allocs := testing.AllocsPerRun(100, func() {
		u.Template(ClauseSet, []string{"$p", " = ", "$v"}, "#n1", ":v1", "")
	})
	assert.LessOrEqual(t, allocs, 1.0, "the clause grows; the parts stay on the stack")
}

// Past the room the Update holds in itself (24 actions, 320 bytes) it
// grows on the heap and writes the same expression.
func TestUpdateOutgrowsItsBuffer(t *testing.T) {
	var u Update
	var set, remove []string
	for i := range 60 {
		p := "#attribute_name_" + strconv.Itoa(i)
		if i%3 == 0 {
			u.Act(ClauseRemove, p)
			remove = append(remove, p)
		} else {
			u.Act(ClauseSet, p, " = ", ":v"+strconv.Itoa(i))
			set = append(set, p+" = :v"+strconv.Itoa(i))
		}
	}
	assert.Equal(t, "SET "+strings.Join(set, ", ")+" REMOVE "+strings.Join(remove, ", "), u.String())
	assert.Equal(t, "x"+u.String(), string(u.Append([]byte("x"))))
}
