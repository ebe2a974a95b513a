//go:build integration

package example

import (
	"fmt"
	"os"
)

func ExampleUp() {
	fmt.Println(os.Getenv("AWS_ENDPOINT_URL_DYNAMODB") != "")
	// Output: false
}
