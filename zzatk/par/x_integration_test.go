//go:build integration

package par

import (
	"os"
	"testing"
)

func TestPar1(t *testing.T) {
	t.Parallel()
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
}

func TestPar2(t *testing.T) {
	t.Parallel()
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
	t.Error("par2 broken")
}
