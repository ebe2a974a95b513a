package model

import (
	"fmt"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/read"
)

// CheckBucketSorts refuses a key whose sort template renders a bucketed
// time coarser than its partition's bucket (a day in the sort key of an
// hour's partition): the bucket's items would share that text, and a range
// read over them could not tell 10:05 from 10:30 (it returned readings
// outside the range it was asked for).
func CheckBucketSorts(_ *Spec, e *Entity) *Error {
	for _, w := range e.keyPairs() {
		for _, pph := range w[0].tpl.Placeholders() {
			if pph.Kind != keys.KindTime {
				continue
			}
			bucket, ok := read.UnitOf(pph.Layout)
			if !ok {
				continue
			}
			for _, sph := range w[1].tpl.Placeholders() {
				if sph.Field.GoName != pph.Field.GoName {
					continue
				}
				if u, ok := read.UnitOf(sph.Layout); ok && u > bucket {
					return &Error{Table: e.Schema.Name, Entity: e.Name, Field: pph.Field.GoName, Template: w[1].tpl.Raw,
						Reason: fmt.Sprintf("%s renders %s by the %s (%q), coarser than the %s bucket its partition %s %q renders: sort it at least as finely as the bucket",
							w[1].attr, pph.Field.GoName, u, sph.Layout, bucket, w[0].attr, w[0].tpl.Raw)}
				}
			}
		}
	}
	return nil
}

// keyPairs lists the partition and sort templates the entity writes
// together: the primary key's, and those of the indexes it writes both
// keys of.
func (e *Entity) keyPairs() [][2]writtenKey {
	var out [][2]writtenKey
	if e.SK != nil {
		out = append(out, [2]writtenKey{{e.Schema.PK, e.PK}, {e.Schema.SK, e.SK}})
	}
	for _, ei := range e.Indexes {
		if ei.PKFrom == KeyOwn && ei.PK != nil && ei.SKFrom == KeyOwn && ei.SK != nil {
			out = append(out, [2]writtenKey{{ei.Index.PK, ei.PK}, {ei.Index.SK, ei.SK}})
		}
	}
	return out
}
