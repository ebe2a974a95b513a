package notes_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
	"github.com/singletable/singletable/singletabletest/internal/readme"
)

// A unit test: the recording Client answers with typed values and records
// every request.
func TestGetNote(t *testing.T) {
	mock := &singletabletest.Client{}
	db := singletable.New(mock, notes.Table)
	mock.GetItemFunc = singletabletest.GetItemReturns(t, db, notes.Notes, notes.Note{ID: "n1", Text: "hello"})

	got, err := notes.Notes.Get(context.Background(), db, notes.Note{ID: "n1"})
	if err != nil || got.Text != "hello" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if calls := mock.Calls(); len(calls) != 1 || calls[0].Op != "GetItem" {
		t.Fatalf("calls = %v", calls)
	}
}

// A fault test: a fifth of the batch's items come back unprocessed, each
// retry drawn again, and Import retries them (at once, with NoRetryDelay)
// until each is written. (The DB gives up after RetryPolicy.MaxAttempts
// requests and hands back what is left: at rate 0.5, 40 items would all
// get through 10 attempts only about 96% of the time.)
func TestImportRetriesUnprocessed(t *testing.T) {
	mock := &singletabletest.Client{}
	faulty := singletabletest.NewFaultClient(mock, singletabletest.Faults{Seed: 1, Unprocessed: 0.2})
	db := singletable.New(faulty, notes.Table, singletabletest.NoRetryDelay())

	var ns []notes.Note
	for i := range 40 {
		ns = append(ns, notes.Note{ID: fmt.Sprint(i)})
	}
	if err := notes.Import(context.Background(), db, ns); err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, c := range mock.Calls() {
		written += len(c.Input.(*dynamodb.BatchWriteItemInput).RequestItems["Notes"])
	}
	if written != 40 || len(faulty.Injected()) == 0 {
		t.Fatalf("%d of 40 notes written, faults injected: %v", written, faulty.Injected())
	}
}
