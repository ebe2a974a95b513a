package singletable_test

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// signature marshals by pointer into a slice of its own memory: encoded
// from the copy a write plans with, the item's value aliases that copy.
type signature [4]byte

func (s *signature) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberB{Value: s[:]}, nil
}

type copyDevice struct {
	ID      string
	Name    string
	Count   int
	Version int
	Updated time.Time
}

type copyReading struct {
	ID  string
	Sig signature
}

// TestRequestsKeepTheirValues: writes plan with copies of the values they
// are given and recycle them (copies.go). A request a Client keeps (a mock
// recording calls, a wrapper queueing them) must still hold what was sent
// after later writes reuse those copies: nothing in it may point into one.
func TestRequestsKeepTheirValues(t *testing.T) {
	table := st.MustTable("Copies")
	devices := st.MustDefine[copyDevice](table, "Device", st.Key("DEVICE#{ID}", "DEVICE"),
		st.Version("Version"), st.Timestamps("", "Updated"))
	readings := st.MustDefine[copyReading](table, "Reading", st.Key("READING#{ID}", "SIG"))
	var sent []string // each call's request as the Client received it
	snap := func(in any) {
		b, err := json.Marshal(in)
		require.NoError(t, err)
		sent = append(sent, string(b))
	}
	mock := &singletabletest.Client{
		PutItemFunc: func(_ context.Context, in *dynamodb.PutItemInput) (*dynamodb.PutItemOutput, error) {
			snap(in)
			return &dynamodb.PutItemOutput{}, nil
		},
		UpdateItemFunc: func(_ context.Context, in *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			snap(in)
			item := maps.Clone(in.Key)
			item[st.DefaultTypeAttribute] = &types.AttributeValueMemberS{Value: "Device"}
			return &dynamodb.UpdateItemOutput{Attributes: item}, nil
		},
		DeleteItemFunc: func(_ context.Context, in *dynamodb.DeleteItemInput) (*dynamodb.DeleteItemOutput, error) {
			snap(in)
			return &dynamodb.DeleteItemOutput{}, nil
		},
		TransactWriteItemsFunc: func(_ context.Context, in *dynamodb.TransactWriteItemsInput) (*dynamodb.TransactWriteItemsOutput, error) {
			snap(in)
			return &dynamodb.TransactWriteItemsOutput{}, nil
		},
	}
	db := st.New(mock, table)

	for i, id := range []string{"a", "b", "c", "d"} {
		sig := signature{byte(i), byte(i), byte(i), byte(i)}
		name := "device-" + id
		require.NoError(t, devices.Put(ctx, db, copyDevice{ID: id, Name: name, Count: i}))
		require.NoError(t, readings.Put(ctx, db, copyReading{ID: id, Sig: sig}))
		require.NoError(t, devices.Create(ctx, db, copyDevice{ID: id + "-new", Name: name}))
		require.NoError(t, db.Transact(ctx, func(tx *st.Tx) error {
			devices.TxPut(tx, copyDevice{ID: id + "-tx", Name: name, Count: i, Version: 1})
			readings.TxPut(tx, copyReading{ID: id + "-tx", Sig: sig})
			devices.TxUpdate(tx, copyDevice{ID: id}, st.Set("Name", name+"-renamed"))
			devices.TxCheck(tx, copyDevice{ID: id + "-other"}, st.Exists("Name"))
			devices.TxCreate(tx, copyDevice{ID: id + "-txnew", Name: name})
			devices.TxDelete(tx, copyDevice{ID: id + "-old"})
			return nil
		}))
		_, err := devices.Update(ctx, db, copyDevice{ID: id, Version: 2}, st.Increment("Count", 1))
		require.NoError(t, err)
		require.NoError(t, devices.Delete(ctx, db, copyDevice{ID: id + "-tx", Version: 1}))
	}
	require.Len(t, sent, 24)
	for i, c := range mock.Calls() {
		b, err := json.Marshal(c.Input)
		require.NoError(t, err)
		require.JSONEq(t, sent[i], string(b), "call %d (%s) changed after it was sent", i, c.Op)
	}
}
