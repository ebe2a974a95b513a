package model

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// steps are Define's model steps in the root's order, without the root's
// own (options, managed fields, registration).
var steps = []Step{CheckName, ResolveFields, CheckAttributes, ParseKeys, DeclaredIndexes, DerivedIndexes, CheckGuardNamespace, ResolveShard, CheckBucketSorts}

func newSchema(indexes ...*Index) *Schema {
	return &Schema{Name: "T", PK: "PK", SK: "SK", TypeAttr: "_type", TTLAttr: "ttl", Delim: '#', PKLimit: MaxPartitionKeyBytes, Indexes: indexes}
}

// define runs the steps over a new model of T on s, stopping at the first
// error.
func define[T any](s *Schema, name string, spec Spec) (*Entity, *Error) {
	e := New(s, name, reflect.TypeFor[T]())
	for _, step := range steps {
		if err := step(&spec, e); err != nil {
			return nil, err
		}
	}
	return e, nil
}

type order struct {
	UserID string `dynamodbav:"userId"`
	ID     string `dynamodbav:"orderId"`
	Status string `dynamodbav:"status"`
	Email  string `dynamodbav:"email"`
	At     time.Time
	Shard  int
}

func TestDefineResolvesKeysAndIndexes(t *testing.T) {
	gsi1 := &Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}
	inverted := &Index{Name: "Inverted", PK: "SK", SK: "PK"}
	byEmail := &Index{Name: "ByEmail", PK: "email"}
	e, err := define[order](newSchema(gsi1, inverted, byEmail), "Order", Spec{
		PK: "USER#{UserID}", SK: "ORDER#{ID}",
		Indexes: []IndexSpec{{Index: "GSI1", PK: "STATUS#{Status}", SK: "ORDER#{ID}"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{e.PK.Raw, e.SK.Raw}; got[0] != "USER#{UserID}" || got[1] != "ORDER#{ID}" {
		t.Fatalf("templates %v", got)
	}
	if !e.KeyFields["UserID"] || !e.KeyFields["ID"] || len(e.KeyFieldList) != 2 {
		t.Fatalf("key fields %v %d", e.KeyFields, len(e.KeyFieldList))
	}
	// The declared index first, then the derived ones: the inverted index
	// (the table's own keys) and the field's own attribute.
	var got []string
	for _, ei := range e.Indexes {
		got = append(got, ei.Index.Name+":"+ei.Describe())
	}
	want := []string{`GSI1:GSI1PK "STATUS#{Status}", GSI1SK "ORDER#{ID}"`, `Inverted:SK "ORDER#{ID}", PK "USER#{UserID}"`, `ByEmail:email "{Email}"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("indexes\n got %q\nwant %q", got, want)
	}
	if !e.Indexes[0].Writes() || e.Indexes[1].Writes() || e.Indexes[2].Writes() || !e.Indexes[2].RawPK() {
		t.Fatal("which indexes write a key of their own")
	}
	if !e.Indexes[0].DependsOn("Status") || e.Indexes[1].DependsOn("ID") {
		t.Fatal("DependsOn: a derived index depends on no field")
	}
	if ei, sort, ok := e.IndexOfField("Email"); !ok || sort || ei.Index != byEmail {
		t.Fatalf("IndexOfField(Email) = %v %v %v", ei, sort, ok)
	}
}

func TestDefineErrorsNameWhatIsWrong(t *testing.T) {
	gsi1 := &Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"}
	type stored struct {
		ID  string
		TTL string `dynamodbav:"ttl"`
	}
	type clash struct {
		ID string
		PK string
	}
	for name, c := range map[string]struct {
		define func() *Error
		field  string
		reason string
	}{
		"empty name": {func() *Error { _, err := define[order](newSchema(), "", Spec{PK: "X"}); return err }, "", "name is empty"},
		"unknown field": {func() *Error {
			_, err := define[order](newSchema(), "O", Spec{PK: "U#{Nope}", SK: "X"})
			return err
		}, "Nope", ""},
		"field under a key attribute": {func() *Error { _, err := define[clash](newSchema(), "C", Spec{PK: "{ID}", SK: "X"}); return err }, "PK", "the table's partition key"},
		"TTL attribute of a string":   {func() *Error { _, err := define[stored](newSchema(), "S", Spec{PK: "{ID}", SK: "X"}); return err }, "TTL", "TTL attribute"},
		"no sort template":            {func() *Error { _, err := define[order](newSchema(), "O", Spec{PK: "{ID}"}); return err }, "", "needs a sort template"},
		"undeclared index": {func() *Error {
			_, err := define[order](newSchema(), "O", Spec{PK: "{ID}", SK: "X", Indexes: []IndexSpec{{Index: "GSI9", PK: "{Status}", SK: "X"}}})
			return err
		}, "", "not declared on table T"},
		"index twice": {func() *Error {
			ix := IndexSpec{Index: "GSI1", PK: "{Status}", SK: "X"}
			_, err := define[order](newSchema(gsi1), "O", Spec{PK: "{ID}", SK: "X", Indexes: []IndexSpec{ix, ix}})
			return err
		}, "", "given twice"},
		"guard namespace": {func() *Error {
			_, err := define[order](newSchema(), "O", Spec{PK: "_unique#{ID}", SK: "X"})
			return err
		}, "", "reserved for unique-value guard items"},
		"shard in no template": {func() *Error {
			_, err := define[order](newSchema(), "O", Spec{PK: "{ID}", SK: "X", Shard: &ShardSpec{Field: "Shard", N: 4}, ShardCalls: 1})
			return err
		}, "Shard", "no key template writes {Shard}"},
		"sort coarser than its bucket": {func() *Error {
			_, err := define[order](newSchema(), "O", Spec{PK: "{ID}#{At:2006-01-02-15}", SK: "{At:2006-01-02}"})
			return err
		}, "At", "coarser than the hour bucket"},
	} {
		err := c.define()
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !errors.Is(err, ErrInvalid) || err.Field != c.field || !strings.Contains(err.Reason, c.reason) {
			t.Errorf("%s: %#v", name, err)
		}
	}
}
