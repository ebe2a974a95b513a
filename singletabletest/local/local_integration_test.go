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

// Start runs a private instance that answers; Keep, Kept and StopKept
// find, reuse and stop it as the kept instance of its state dir; Stop ends
// a private one and removes its state. One JVM, started here (seconds).
func TestStartAndKeep(t *testing.T) {
	if os.Getenv("SINGLETABLE_DDB_ENV_ONLY") != "" {
		t.Fatal("SINGLETABLE_DDB_ENV_ONLY is set: this test starts DynamoDB Local itself")
	}
	ctx := context.Background()
	o := FromEnv()
	o.Log = io.Discard

	inst, err := Start(ctx, o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = inst.Stop() })
	c, err := clientFor(ctx, inst.Endpoint)
	require.NoError(t, err)
	_, err = c.ListTables(ctx, &dynamodb.ListTablesInput{})
	require.NoError(t, err)

	t.Setenv("SINGLETABLE_STATE", inst.stateDir)
	kept, err := Keep(ctx, o)
	require.NoError(t, err)
	assert.True(t, kept.Reused, "the instance of the state dir is reused")
	assert.Equal(t, inst.PID, kept.PID)
	require.NoError(t, kept.Stop(), "Stop leaves a kept instance running")
	found, ok := Kept(o)
	require.True(t, ok)
	assert.Equal(t, inst.Endpoint, found.Endpoint)

	require.NoError(t, StopKept(o))
	assert.False(t, answers(inst.Port), "StopKept stopped it")
	_, ok = Kept(o)
	assert.False(t, ok)
	assert.NoFileExists(t, filepath.Join(inst.stateDir, "pid"))

	require.NoError(t, inst.Stop())
	assert.NoDirExists(t, inst.stateDir, "Stop removes a private instance's state")
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
			_, err = warmStart(context.Background(), inst.Endpoint)
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
		if _, err := warmStart(context.Background(), os.Getenv(EndpointEnv)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFreshTable(b *testing.B) {
	ctx := context.Background()
	c, err := clientFor(ctx, os.Getenv(EndpointEnv))
	require.NoError(b, err)
	for b.Loop() {
		_, drop, err := freshTable(ctx, c)
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
	db, drop, err := freshTable(ctx, c)
	require.NoError(b, err)
	defer drop()
	i := 0
	for b.Loop() {
		i++
		if _, err := operation(ctx, db, i); err != nil {
			b.Fatal(err)
		}
	}
}
