//go:build integration

package samea

import (
	"os"
	"testing"
)

func TestOtherInt(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
}
