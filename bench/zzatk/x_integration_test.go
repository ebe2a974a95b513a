//go:build integration

package zzatk

import (
	"os"
	"testing"
)

func TestBenchInt(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
	t.Fatal("bench integration broken")
}
