package stream

import (
	"cmp"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/bridge"
	"github.com/singletable/singletable/internal/codec"
)

// Change is a stream record of entity T, decoded: what happened, the value
// before and after as T, and which fields changed.
type Change[T any] struct {
	Entity string    // the entity's name
	Event  EventType // EventInsert, EventModify or EventRemove
	// Expired is set on a removal by time to live.
	Expired bool
	// Key holds the fields the item's key templates give, parsed from the
	// record's keys: every view has them, a removal included.
	Key T
	// Old and New are the item before and after the change, when the
	// stream's view carries them: Old is nil on an insert, New on a
	// removal, both on a KEYS_ONLY stream.
	Old, New *T
	// Changed lists, in field order, the Go names of the fields whose
	// stored values differ between Old and New (an absent attribute
	// counts as a value): every stored field on an insert or a removal,
	// the fields a modification changed. It is nil when the view lacks an
	// image the comparison needs (a modification on a NEW_IMAGE stream).
	Changed []string
	// SequenceNumber and Time are the record's.
	SequenceNumber string
	Time           time.Time
	// Record is the record the change was decoded from.
	Record Record
}

// FieldChanged reports whether the Go field is among Changed.
func (c Change[T]) FieldChanged(field string) bool { return slices.Contains(c.Changed, field) }

// Decode decodes a stream record of entity e into a Change. A record of
// another entity is an *singletable.EntityMismatchError (matching
// singletable.ErrWrongEntity): find a record's entity with the table's
// EntityOf(rec.Keys), or let a Handler dispatch. A nil e, or a record
// Decode cannot handle rightly (an unknown event, no sequence number), is
// an *singletable.InputError. A record whose images are not of the item
// its Keys name (their table key attributes differ), or whose OldImage and
// NewImage are of two items, is an *singletable.DecodeError
// (singletable.ErrDecode): DynamoDB writes no such record.
func Decode[T any](e *st.Entity[T], rec Record) (Change[T], error) {
	if e == nil {
		return Change[T]{Record: rec}, &st.InputError{Op: "stream.Decode", Reason: "the entity is nil"}
	}
	c := Change[T]{Entity: e.Name(), Event: rec.Event, Expired: rec.Expired, SequenceNumber: rec.SequenceNumber, Time: rec.Time, Record: rec}
	if err := rec.check(); err != nil {
		return c, err
	}
	keys := rec.Keys
	if keys == nil {
		keys = keyOf(e.Table(), rec.image())
	}
	if err := sameItem(e.Table(), e.Name(), keys, rec); err != nil {
		return c, err
	}
	// Each image is decoded into the T that Old or New points to, and Key
	// into the first of those before its image: a T for each image, none
	// more (Entity.Decode returns a T, which a *T would copy again).
	var old, nu *T
	if rec.OldImage != nil {
		old = new(T)
	}
	if rec.NewImage != nil {
		nu = new(T)
	}
	v := cmp.Or(old, nu)
	if v == nil {
		v = new(T)
	}
	if err := bridge.DecodeInto(e, keys, v); err != nil {
		return c, err
	}
	c.Key = *v
	var zero T
	if old != nil {
		*old = zero
		if err := bridge.DecodeInto(e, rec.OldImage, old); err != nil {
			return c, err
		}
		c.Old = old
	}
	if nu != nil {
		*nu = zero
		if err := bridge.DecodeInto(e, rec.NewImage, nu); err != nil {
			return c, err
		}
		c.New = nu
	}
	c.Changed = changedFields(e, rec)
	return c, nil
}

// changedFields compares a record's images field by field when its event
// and view allow; see Change.Changed.
func changedFields(e st.AnyEntity, rec Record) []string {
	old, nu := rec.OldImage, rec.NewImage
	switch {
	case rec.Event == EventInsert && nu != nil:
	case rec.Event == EventRemove && old != nil:
	case rec.Event == EventModify && old != nil && nu != nil:
	default:
		return nil
	}
	return bridge.ChangedFields(e, old, nu)
}

// sameItem checks that the record's images are of the item keys names:
// each image's table key attributes are the keys' own.
func sameItem(t *st.Table, entity string, keys map[string]types.AttributeValue, rec Record) error {
	for _, img := range []struct {
		name string
		item map[string]types.AttributeValue
	}{{"OldImage", rec.OldImage}, {"NewImage", rec.NewImage}} {
		if img.item == nil {
			continue
		}
		for _, a := range []string{t.PartitionKey(), t.SortKey()} {
			if a != "" && !codec.Equal(img.item[a], keys[a]) {
				return &st.DecodeError{Op: "stream.Decode", Entity: entity, Attr: a, Key: keys,
					Reason: "the record's " + img.name + " is of another item than its Keys"}
			}
		}
	}
	return nil
}

// keyOf picks the table key attributes out of an item.
func keyOf(t *st.Table, item map[string]types.AttributeValue) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, a := range []string{t.PartitionKey(), t.SortKey()} {
		if v, ok := item[a]; ok && a != "" {
			key[a] = v
		}
	}
	return key
}
