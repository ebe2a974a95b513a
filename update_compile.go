package singletable

// Compiling an update, phase 1: the shape of its changes is checked and
// compiled once and cached per entity by the write engine
// (internal/write's compile.go: writes.Compile, writes.Cache); the values
// are bound to it on every call (update_bind.go).

import (
	writes "github.com/singletable/singletable/internal/write"
)

// shapeOf returns the shape of the update plan is for: from the cache for
// an update that read nothing, else compiled (and then cached) by
// resolveShape. An update whose shape is wrong (an unknown field, a key
// field changed, ...) is an error, every time.
func (m *entityModel) shapeOf(op string, s *settings, plan *writes.Plan) (*writes.Shape, error) {
	if plan.Read != nil {
		return m.resolveShape(op, s, plan)
	}
	var buf [256]byte
	key := writes.ShapeKey(buf[:0], s.upsert, s.changes)
	if sh, ok := m.updates.Shapes.Load(key); ok {
		return sh, nil
	}
	sh, err := m.resolveShape(op, s, plan)
	if err != nil {
		return nil, err
	}
	m.updates.Shapes.Store(string(key), sh)
	return sh, nil
}

// resolveShape compiles the changes against the model (see writes.Compile).
func (m *entityModel) resolveShape(op string, s *settings, plan *writes.Plan) (*writes.Shape, error) {
	return writes.Compile(m.Entity, &m.managed, op, s.changes, s.upsert, plan.Known, plan.Read != nil && plan.Read.Found)
}

// IsVersion, IsUnique and GuardRole are writes.Guards: what compiling an
// update needs of the managed fields.

// IsVersion reports whether goName is the version field.
func (mf *managed) IsVersion(goName string) bool {
	return mf.version != nil && mf.version.GoName == goName
}

// IsUnique reports whether goName is a unique field or a scope (isUnique).
func (mf *managed) IsUnique(goName string) bool { return mf.isUnique(goName) }

// GuardRole says which, for messages (guardRole).
func (mf *managed) GuardRole(goName string) string { return mf.guardRole(goName) }
