//go:build integration

package subskip

import (
	"os"
	"testing"
)

func TestSubSkip(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
	t.Run("case", func(t *testing.T) { t.Skip("the whole point of the test, skipped") })
}

func TestSubFail(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
	t.Run("case", func(t *testing.T) { t.Error("subtest fails") })
}
