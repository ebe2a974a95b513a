package singletabletest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable/singletabletest"
)

func TestLocalClientNeedsTheEndpoint(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "")
	_, err := singletabletest.LocalClient(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "AWS_ENDPOINT_URL_DYNAMODB is not set")
}
