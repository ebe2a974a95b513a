// Package write is the write-planning engine behind the root package's
// Update, Put, Delete, transactions and batches: how a field path over Go
// names is walked and a value encoded there as the entity stores it
// (path.go, encode.go) and rendered as a condition's placeholders
// (cond.go), the update operators (operators.go), a set
// operand taken from any Go shape of a set (set.go), the room an integer
// field needs (ranges.go) and what the item becomes, as far as an update
// knows it (value.go).
//
// It works on the entity model (internal/model), the codec and the
// expression builder, and never imports the root package: the root
// translates its public values (Changes, Cond, options) into the plain
// inputs taken here and makes its public errors of what is returned.
package write
