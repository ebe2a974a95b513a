package singletable

import (
	"reflect"
	"testing"
	"time"
)

// TestManagedFeaturesApplyInRegistrationOrder: an entity's managed fields
// are the features of managedFeatures it uses, in their order (the order
// of their clauses and conditions in a request), and a tag option names a
// registered role or is refused with the list of them.
func TestManagedFeaturesApplyInRegistrationOrder(t *testing.T) {
	type doc struct {
		ID      string     `dynamodbav:"id"`
		Email   string     `dynamodbav:"email" singletable:"unique"`
		Version int64      `dynamodbav:"version" singletable:"version"`
		Updated time.Time  `dynamodbav:"updated" singletable:"updated"`
		Expires *time.Time `dynamodbav:"ttl,unixtime"`
		Body    string     `dynamodbav:"body" singletable:"compress"`
	}
	table := MustTable("ManagedOrder", WithTTL("ttl"))
	e, err := Define[doc](table, "Doc", Key("DOC#{ID}", "DOC"), ExpiresAfter(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range e.m.managed.fields {
		got = append(got, reflect.TypeOf(f).Elem().Name())
	}
	want := []string{"versionField", "timestampsField", "uniqueField", "expiryField", "compressField"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("managed fields %v, want %v", got, want)
	}

	type bad struct {
		ID   string `dynamodbav:"id"`
		Note string `dynamodbav:"note" singletable:"compressed"`
	}
	_, err = Define[bad](table, "Bad", Key("BAD#{ID}", "BAD"))
	const msg = `unknown singletable tag option "compressed" (want version, created, updated, unique, expires or compress)`
	if me, ok := err.(*ModelError); !ok || me.Reason != msg || me.Field != "Note" {
		t.Errorf("Define = %v, want a *ModelError on Note: %s", err, msg)
	}
}
