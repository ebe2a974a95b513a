//go:build integration

package fuzz

import (
	"os"
	"testing"
)

func FuzzUp(f *testing.F) {
	f.Add(1)
	f.Fuzz(func(t *testing.T, n int) {
		if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
			t.Fatal("no ddb")
		}
		t.Fatal("broken with ddb")
	})
}
