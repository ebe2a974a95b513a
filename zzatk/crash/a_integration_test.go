//go:build integration

package crash

import (
	"os"
	"testing"
)

func TestAPanic(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		var m map[string]int
		m["x"] = 1 // nil map: panics without DynamoDB Local
	}
}

func TestBBroken(t *testing.T) { t.Fatal("broken with or without DynamoDB Local") }
