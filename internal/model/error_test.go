package model

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorMatchesItsSentinelWrapped(t *testing.T) {
	err := fmt.Errorf("declaring: %w", &Error{Table: "T", Entity: "User", Field: "Email", Template: "USER#{Email}", Reason: "bad"})
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("errors.Is(%v, ErrInvalid) = false", err)
	}
	var me *Error
	if !errors.As(err, &me) || me.Field != "Email" {
		t.Fatalf("errors.As: %v, %+v", err, me)
	}
	want := `singletable: entity User, template "USER#{Email}", field Email: bad`
	if got := me.Error(); got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got := (&Error{Table: "T", Reason: "r"}).Error(); got != "singletable: table T: r" {
		t.Fatalf("table-level Error() = %q", got)
	}
}
