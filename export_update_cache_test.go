package singletable

// UpdateCacheLen is how many expression strings and names maps an entity's
// updates share (exported for the external test package only).
func UpdateCacheLen[T any](e *Entity[T]) (strs, names int) { return e.m.updates.shared.Len() }
