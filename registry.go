package singletable

import (
	"slices"
	"sync"
)

// readRegistry is the read side's state on a Table: the named patterns and
// collections declared on it (for the access-pattern sheet and lint).
type readRegistry struct {
	mu     sync.Mutex
	byName map[string]*readDecl
	order  []*readDecl
}

// checkName reports a name already taken by another read on the table.
func (r *readRegistry) checkName(d *readDecl) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.byName[d.name]; ok && prev.id != d.id && d.name != "" {
		what := "a pattern"
		if prev.collection {
			what = "a collection"
		}
		return d.fail("%s of this name is already declared on table %s", what, d.table.schema.Name)
	}
	return nil
}

// put registers d, replacing the earlier steps of the same declaration.
func (r *readRegistry) put(d *readDecl) {
	if d.nameErr != nil || d.name == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byName == nil {
		r.byName = map[string]*readDecl{}
	}
	if prev, ok := r.byName[d.name]; ok {
		if prev.id != d.id {
			return
		}
		for i, o := range r.order {
			if o == prev {
				r.order[i] = d
			}
		}
	} else {
		r.order = append(r.order, d)
	}
	r.byName[d.name] = d
}

// all lists the table's reads in declaration order.
func (r *readRegistry) all() []*readDecl {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.order)
}
