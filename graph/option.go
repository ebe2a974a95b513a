package graph

import (
	"errors"
	"fmt"
)

// Option declares part of a Relation: which edge fields hold the ends'
// keys (FromField, ToField), how In reads (InIndex or InMirror) and the
// counts kept in step (CountOut, CountIn). Only this package's functions
// make one; Relate refuses a nil Option, and a single-valued option
// (InIndex, InMirror, CountOut, CountIn) given twice, rather than let the
// last one win.
type Option interface{ apply(*spec) error }

// spec is a Relation's declaration as its options give it.
type spec struct {
	from, to          [][2]string     // edge field, end field
	shared            map[string]bool // edge fields Shared maps to both ends
	index             string
	mirror            *[3]string // name, pk, sk
	ways              int        // InIndex and InMirror given
	countOut, countIn string
}

type option func(*spec) error

func (o option) apply(s *spec) error { return o(s) }

// once refuses a single-valued option that was given already (set).
func once(name string, set bool) error {
	if set {
		return fmt.Errorf("%s is given twice: a relation has one", name)
	}
	return nil
}

// FromField says that the edge's field edgeField holds the from end's key
// field endField. Every field of the from end's primary key needs one, and
// the edge's partition template may read only these fields (Out renders it
// from the from end).
func FromField(edgeField, endField string) Option {
	return option(func(s *spec) error { s.from = append(s.from, [2]string{edgeField, endField}); return nil })
}

// ToField says that the edge's field edgeField holds the to end's key field
// endField. Every field of the to end's primary key needs one.
func ToField(edgeField, endField string) Option {
	return option(func(s *spec) error { s.to = append(s.to, [2]string{edgeField, endField}); return nil })
}

// Shared says that the edge's field edgeField holds both the from end's
// key field fromField and the to end's toField: a field the two ends'
// keys share, which the edge stores once (the tenant of a ticket and of
// its tag, both keyed TENANT#{TenantID}#...). It is FromField(edgeField,
// fromField) and ToField(edgeField, toField) together, which Relate
// otherwise refuses as an edge field mapped twice. The edge's partition
// template and the In partition may read it (it is each end's), and From
// and To copy it into both ends; Edge takes it from the from end.
func Shared(edgeField, fromField, toField string) Option {
	return option(func(s *spec) error {
		if s.shared == nil {
			s.shared = map[string]bool{}
		}
		if s.shared[edgeField] {
			return fmt.Errorf("Shared(%q, ...) is given twice", edgeField)
		}
		s.shared[edgeField] = true
		s.from = append(s.from, [2]string{edgeField, fromField})
		s.to = append(s.to, [2]string{edgeField, toField})
		return nil
	})
}

// InIndex makes In read the edges through the global secondary index
// named index, which the edge entity must be in (the inverted index
// IndexKeys("SK", "PK") holds every entity; another needs an Index
// declaration on the edge) with a partition template that reads only the
// to end's fields. One item per edge.
func InIndex(index string) Option {
	return option(func(s *spec) error {
		if index == "" {
			return errors.New("InIndex: the index name is empty")
		}
		if err := once("InIndex", s.index != ""); err != nil {
			return err
		}
		s.index = index
		s.ways++
		return nil
	})
}

// InMirror makes every edge two items: the edge, and its mirror, an entity
// named name of the same struct with the key templates pk and sk, whose
// partition template reads only the to end's fields, and whose templates
// together read exactly the edge's key fields (so that each edge has one
// mirror). Link, Unlink and Relation.Update write both in one transaction;
// In queries the mirrors on the table. The edge entity may not have a
// version or unique fields (the mirror is a copy, not checked on its own).
//
// Only the relation's own writes keep the mirror in step: a Put, Update,
// Delete, batch or transaction action on the edge entity itself changes the
// edge alone, leaving In to read a stale (or deleted edge's) mirror.
func InMirror(name, pk, sk string) Option {
	return option(func(s *spec) error {
		if err := once("InMirror", s.mirror != nil); err != nil {
			return err
		}
		s.mirror = &[3]string{name, pk, sk}
		s.ways++
		return nil
	})
}

// CountOut keeps the from end's integer field field equal to its number of
// out-edges, in the transaction of each Link and Unlink. An edge created or
// deleted by the edge entity's own writes (Put, Create, Delete, batches) is
// not counted: link and unlink through the relation.
func CountOut(field string) Option {
	return option(func(s *spec) error {
		if field == "" {
			return errors.New("CountOut: the field name is empty")
		}
		if err := once("CountOut", s.countOut != ""); err != nil {
			return err
		}
		s.countOut = field
		return nil
	})
}

// CountIn keeps the to end's integer field field equal to its number of
// in-edges, in the transaction of each Link and Unlink. As with CountOut,
// the edge entity's own writes are not counted.
func CountIn(field string) Option {
	return option(func(s *spec) error {
		if field == "" {
			return errors.New("CountIn: the field name is empty")
		}
		if err := once("CountIn", s.countIn != ""); err != nil {
			return err
		}
		s.countIn = field
		return nil
	})
}
