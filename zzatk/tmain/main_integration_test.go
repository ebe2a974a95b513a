//go:build integration

package tmain

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		fmt.Println("these tests need DynamoDB Local")
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestIntBrokenBehindTestMain(t *testing.T) { t.Fatal("broken") }
