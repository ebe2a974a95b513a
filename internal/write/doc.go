// Package write is the write-planning engine behind the root package's
// Update, Put, Delete, transactions and batches: the planned request of
// every write and its SDK inputs (action.go); an update's changes
// (change.go) and its phases, each in its own file: compile, whose shape
// is checked once and cached per entity (compile.go), bind, the values
// into the request and what the item becomes (bind.go, next.go), and read
// first, what must be read and what was (read.go); how a field path over
// Go names is walked and a value encoded there as the entity stores them
// (path.go, encode.go) and rendered as a condition's placeholders
// (cond.go); an index's When condition compiled for the model (when.go);
// the update operators (operators.go), a set operand taken from any Go
// shape of a set (set.go), the room an integer field needs (ranges.go) and
// a Set's value as the field holds it (value.go); its errors (errors.go).
//
// It works on the entity model (internal/model), the codec, the recycled
// values (internal/recycle) and the expression builder, and never imports
// the root package: the root translates its public values (Changes, Cond,
// options) into the plain inputs taken here, runs its managed fields'
// hooks on a Plan, and re-exports the engine's public types (InputError,
// ErrInvalidInput, ReadNeededError, ErrReadNeeded, FieldRef) as aliases.
package write
