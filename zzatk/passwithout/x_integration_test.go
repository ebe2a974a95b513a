//go:build integration

package passwithout

import (
	"os"
	"testing"
)

func TestPassWithout(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "" {
		t.Fatal("fails with ddb")
	}
}
