//go:build integration

package sameb

import (
	"os"
	"testing"
)

func TestSame(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
}
