package singletable

import (
	"reflect"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
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

// Change decodes a stream record of entity e. A record of another entity
// is an *EntityMismatchError (matching ErrWrongEntity): find a record's
// entity with Table.EntityOf(rec.Keys), or let a StreamHandler dispatch.
func (e *Entity[T]) Change(rec Record) (Change[T], error) {
	m := e.m
	op := m.name + ".Change"
	c := Change[T]{Entity: m.name, Event: rec.Event, Expired: rec.Expired, SequenceNumber: rec.SequenceNumber, Time: rec.Time, Record: rec}
	if err := rec.check(); err != nil {
		return c, err
	}
	keys := rec.Keys
	if keys == nil {
		keys = m.keyOfItem(rec.image())
	}
	if err := m.rawMember(keys).decode(op, keys, reflect.ValueOf(&c.Key).Elem(), true); err != nil {
		return c, err
	}
	decode := func(img map[string]types.AttributeValue) (*T, error) {
		if img == nil {
			return nil, nil
		}
		v := new(T)
		if err := m.rawMember(img).decode(op, img, reflect.ValueOf(v).Elem(), true); err != nil {
			return nil, err
		}
		return v, nil
	}
	var err error
	if c.Old, err = decode(rec.OldImage); err != nil {
		return c, err
	}
	if c.New, err = decode(rec.NewImage); err != nil {
		return c, err
	}
	c.Changed = changedFields(m, rec)
	return c, nil
}

// changedFields compares a record's images field by field; see
// Change.Changed.
func changedFields(m *entityModel, rec Record) []string {
	old, nu := rec.OldImage, rec.NewImage
	switch {
	case rec.Event == EventInsert && nu != nil:
	case rec.Event == EventRemove && old != nil:
	case rec.Event == EventModify && old != nil && nu != nil:
	default:
		return nil
	}
	out := []string{}
	for _, f := range m.fields.List {
		if !codec.Equal(old[f.Attr], nu[f.Attr]) {
			out = append(out, f.GoName)
		}
	}
	return out
}
