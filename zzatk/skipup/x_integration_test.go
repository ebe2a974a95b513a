//go:build integration

package skipup

import (
	"os"
	"testing"
)

func TestSkipWhenUp(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
	t.Skip("skips when up")
}
