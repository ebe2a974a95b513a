package singletable

import (
	"reflect"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/expr"
	writes "github.com/singletable/singletable/internal/write"
)

// Version declares the entity's version field (an integer) for optimistic
// locking, as the tag `singletable:"version"` does.
//
// Every write stores the version plus one and checks the stored one:
//   - Create stores 1 and needs the item not to exist.
//   - Put of a value whose version is 0 needs the item not to exist (it is
//     new); Put of version n needs the stored version to be n, and stores n+1.
//   - Update and Delete of a key whose version is n need the stored version
//     to be n; a key with version 0 skips the check (Update still stores
//     the version plus one, so that other writers see the change).
//   - BatchWrite cannot check: BatchWriteItem takes no condition. A
//     BatchPut stores the version given plus one, unchecked, and a
//     BatchDelete deletes whatever version is stored. Use them for loads
//     and cleanups no other writer races with; Put and Delete (or a
//     transaction) where one may.
//
// A write whose check fails returns a *VersionConflictError, which matches
// ErrVersionConflict and ErrConditionFailed and carries the item as stored
// (Entity.CurrentItem decodes it).
func Version(field string) EntityOption {
	return writeOption(func(s *writeSpec) { s.set("version", field) })
}

// versionField is the version feature: optimistic locking.
type versionField struct {
	noHooks
	field *codec.Field
}

// resolveVersion resolves the version field: an integer stored as a
// number, which no index key reads.
func resolveVersion(r *managedResolver) (managedField, *ModelError) {
	f, err := r.one("version")
	if f == nil || err != nil {
		return nil, err
	}
	if !isIntegerType(f.Type) || f.Tag.AsString {
		return nil, r.fail(f.GoName, "the version field must be an integer stored as a number, not %s", f.Type)
	}
	for _, ei := range r.m.Indexes {
		if ei.DependsOn(f.GoName) {
			// DynamoDB adds to the version on every write, so a key
			// or condition reading it would go stale with each one.
			return nil, r.fail(f.GoName, "index %s's key or When condition reads the version field, which every write changes; key the index on other fields", ei.Index.Name)
		}
	}
	r.m.managed.version = f
	return &versionField{field: f}, nil
}

// onPut stores the version: 1 by Create; by Put the version given plus
// one, checked (0: the item must not exist); by a batch plus one,
// unchecked.
func (h *versionField) onPut(w *write, v reflect.Value) error {
	a, f := w.a, h.field
	exp := versionOf(f, v)
	switch {
	case w.mode == writeCreate:
		setVersion(f, v, 1)
	case w.mode == writeBatch:
		setVersion(f, v, exp+1) // BatchWriteItem takes no condition
	case exp == 0:
		w.check(a.m.table.notExists)
		a.Versioned = true
		setVersion(f, v, 1)
	default:
		w.check(Eq(f.GoName, v.FieldByIndex(f.Index).Interface()))
		a.Versioned, a.expected = true, exp
		setVersion(f, v, exp+1)
	}
	return nil
}

// onUpdate adds one to the version, checked when the key gives one.
func (h *versionField) onUpdate(w *write, plan *writes.Plan) error {
	a, f, b := w.a, h.field, w.b
	plan.Update.Act(expr.ClauseAdd, b.Name(f.Attr), " ", b.Value(&types.AttributeValueMemberN{Value: "1"}))
	if exp := versionOf(f, w.key); exp != 0 {
		w.check(Eq(f.GoName, w.key.FieldByIndex(f.Index).Interface()))
		a.Versioned, a.expected = true, exp
	}
	return nil
}

// onDelete checks a version the key gives (a batch cannot).
func (h *versionField) onDelete(w *write) error {
	a, f := w.a, h.field
	if exp := versionOf(f, w.key); exp != 0 && w.mode != writeBatch {
		w.check(Eq(f.GoName, w.key.FieldByIndex(f.Index).Interface()))
		a.Versioned, a.expected = true, exp
		a.WhenMissing = failNotFound
	}
	return nil
}

// versionOf reads version field f of struct value v.
func versionOf(f *codec.Field, v reflect.Value) int64 {
	fv := fieldValue(f, v)
	if fv.CanInt() {
		return fv.Int()
	}
	return int64(fv.Uint())
}

func setVersion(f *codec.Field, v reflect.Value, n int64) {
	fv, ok := settableField(v, f.Index)
	if !ok {
		return
	}
	if fv.CanInt() {
		fv.SetInt(n)
	} else {
		fv.SetUint(uint64(n))
	}
}

// storedVersion reads the version attribute of a stored item (0 if none).
func (mf *managed) storedVersion(item map[string]types.AttributeValue) int64 {
	n, ok := item[mf.version.Attr].(*types.AttributeValueMemberN)
	if !ok {
		return 0
	}
	v, _ := strconv.ParseInt(n.Value, 10, 64)
	return v
}
