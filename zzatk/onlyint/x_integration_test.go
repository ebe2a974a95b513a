//go:build integration

package onlyint

import (
	"os"
	"testing"
)

func TestOnlyInt(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
}
