//go:build integration

package prefix

import (
	"os"
	"testing"
)

func need(t *testing.T) {
	if os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") == "" {
		t.Fatal("no ddb")
	}
}

func TestFoo(t *testing.T)    { need(t); t.Fatal("TestFoo is broken") }
func TestFooBar(t *testing.T) { need(t) }
func TestÜber(t *testing.T)   { need(t) }
func TestÄñ(t *testing.T)     { need(t) }
