package write

// Change is one field change of an update: its operator, the field path it
// names ("Status", "Address.City", "Tags[0]") and its value. The root's
// Changes is a list of them; the managed fields' hooks see them as this.
type Change struct {
	Op    Op
	Field string
	Value any
}

// Unknown reports whether the change leaves the field's new value unknown
// to the request: it is below the field ("Address.City"), or DynamoDB
// computes it from the stored value (Add, Increment ...).
func (c Change) Unknown() bool { return Unknown(c.Op, c.Field) }

// Touches reports whether one of changes is to top-level field goName.
func Touches(changes []Change, goName string) bool {
	for _, c := range changes {
		if TopField(c.Field) == goName {
			return true
		}
	}
	return false
}
