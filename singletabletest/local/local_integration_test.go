//go:build integration

package local

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Start runs a private instance that answers, and Stop ends it and removes
// its state; a kept instance is reused by the next Keep and stopped by
// StopKept. These start JVMs of their own (seconds each).
func TestStartAndKeep(t *testing.T) {
	ctx := context.Background()
	o := FromEnv()
	o.Log = io.Discard

	inst, err := Start(ctx, o)
	require.NoError(t, err)
	c, err := clientFor(ctx, inst.Endpoint)
	require.NoError(t, err)
	_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)
	require.NoError(t, inst.Stop())
	assert.False(t, alive(inst.PID), "the JVM is stopped")
	assert.NoDirExists(t, inst.stateDir)
	assert.False(t, answers(inst.Port))

	state := filepath.Join(t.TempDir(), "run")
	t.Setenv("SINGLETABLE_STATE", state)
	kept, err := Keep(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = StopKept(o) })
	assert.False(t, kept.Reused)
	again, err := Keep(ctx, o)
	require.NoError(t, err)
	assert.True(t, again.Reused)
	assert.Equal(t, kept.Endpoint, again.Endpoint)
	require.NoError(t, again.Stop(), "Stop leaves a kept instance running")
	found, ok := Kept(o)
	require.True(t, ok)
	assert.Equal(t, kept.PID, found.PID)

	require.NoError(t, StopKept(o))
	assert.False(t, alive(kept.PID))
	_, ok = Kept(o)
	assert.False(t, ok)
	assert.NoFileExists(t, filepath.Join(state, "pid"))
}

// Ensure reuses the instance the environment names, and does not stop it.
func TestEnsureReusesTheEnvironment(t *testing.T) {
	endpoint := os.Getenv(EndpointEnv)
	require.NotEmpty(t, endpoint, "run against DynamoDB Local")
	inst, err := Ensure(context.Background(), Options{Log: io.Discard})
	require.NoError(t, err)
	assert.True(t, inst.Reused)
	assert.Equal(t, endpoint, inst.Endpoint)
	require.NoError(t, inst.Stop())
	assert.True(t, answers(portOf(t, endpoint)))
}

func portOf(t *testing.T, endpoint string) int {
	u, err := url.Parse(endpoint)
	require.NoError(t, err)
	port, err := strconv.Atoi(u.Port())
	require.NoError(t, err)
	return port
}

// The harness's costs (docs/testing.md): run with
// go test -tags integration -run '^$' -bench . ./singletabletest/local
func BenchmarkColdStart(b *testing.B) {
	o := FromEnv()
	o.Log = io.Discard
	for b.Loop() {
		inst, err := Start(context.Background(), o)
		if err == nil {
			_, err = WarmStart(context.Background(), inst.Endpoint)
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = inst.Stop()
		b.StartTimer()
	}
}

func BenchmarkWarmStart(b *testing.B) {
	for b.Loop() {
		if _, err := WarmStart(context.Background(), os.Getenv(EndpointEnv)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFreshTable(b *testing.B) {
	ctx := context.Background()
	c, err := clientFor(ctx, os.Getenv(EndpointEnv))
	require.NoError(b, err)
	for b.Loop() {
		_, drop, err := FreshTable(ctx, c)
		if err == nil {
			err = drop()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOperation(b *testing.B) {
	ctx := context.Background()
	c, err := clientFor(ctx, os.Getenv(EndpointEnv))
	require.NoError(b, err)
	db, drop, err := FreshTable(ctx, c)
	require.NoError(b, err)
	defer drop()
	i := 0
	for b.Loop() {
		i++
		if _, err := Operation(ctx, db, i); err != nil {
			b.Fatal(err)
		}
	}
}
