package singletable_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/golden"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// scribbler is a Client that, once the client it wraps has answered,
// scribbles over every map and slice it was given: every map (names,
// values, keys, items, ExclusiveStartKey, RequestItems ...) gets its values
// overwritten, keys added and deleted, and is then cleared; every slice
// element (TransactItems, Keys, write requests ...) is zeroed; so are the
// lists, maps, sets and bytes inside attribute values, and their strings
// and numbers are overwritten. A Client may do all of that: no later
// request, and nothing the library keeps, may carry any of it. sent holds each request
// as it was sent (golden.JSON), before the scribbling.
type scribbler struct {
	inner *singletabletest.Client
	mu    sync.Mutex
	sent  []string
}

// note records in as sent; done scribbles over it.
func (s *scribbler) note(in any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, string(golden.JSON(in)))
}

func (s *scribbler) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.sent...)
}

func (s *scribbler) reset() {
	s.mu.Lock()
	s.sent = nil
	s.mu.Unlock()
	s.inner.Reset()
}

func (s *scribbler) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.GetItem(ctx, in, o...)
}

func (s *scribbler) PutItem(ctx context.Context, in *dynamodb.PutItemInput, o ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.PutItem(ctx, in, o...)
}

func (s *scribbler) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, o ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.UpdateItem(ctx, in, o...)
}

func (s *scribbler) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.DeleteItem(ctx, in, o...)
}

func (s *scribbler) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.Query(ctx, in, o...)
}

func (s *scribbler) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.Scan(ctx, in, o...)
}

func (s *scribbler) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.BatchGetItem(ctx, in, o...)
}

func (s *scribbler) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.BatchWriteItem(ctx, in, o...)
}

func (s *scribbler) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.TransactWriteItems(ctx, in, o...)
}

func (s *scribbler) TransactGetItems(ctx context.Context, in *dynamodb.TransactGetItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactGetItemsOutput, error) {
	s.note(in)
	defer scribble(in)
	return s.inner.TransactGetItems(ctx, in, o...)
}

var _ st.Client = (*scribbler)(nil)

// scribble overwrites what v (a request) holds, in place, as far as it
// reaches: through pointers, interfaces, structs, slices and maps; its
// scalar pointer fields are also pointed elsewhere.
func scribble(v any) { scribbleValue(reflect.ValueOf(v)) }

func scribbleValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		switch {
		case v.IsNil():
		case v.Type().Implements(reflect.TypeFor[types.AttributeValue]()):
			// An attribute value's list, map, set or bytes, and its
			// string or number itself: a member is a pointer, so a Client
			// can overwrite what it holds.
			if v.Kind() == reflect.Interface {
				v = v.Elem()
			}
			if member := v.Elem(); member.Kind() == reflect.Struct {
				switch f := member.FieldByName("Value"); f.Kind() {
				case reflect.Slice, reflect.Map:
					scribbleValue(f)
				case reflect.String:
					f.SetString("987654321") // a number too, so N stays valid
				}
			}
		default:
			scribbleValue(v.Elem())
		}
	case reflect.String:
		// What a *string field points to (TableName, an expression):
		// written through the pointer the request holds.
		if v.CanSet() {
			v.SetString("scribbled")
		}
	case reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(987)
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			f := v.Field(i)
			scribbleValue(f)
			// The field itself, too: a *string, *int32 or *bool the
			// Client points elsewhere.
			if f.Kind() == reflect.Pointer && !f.IsNil() && f.CanSet() {
				switch f.Type().Elem().Kind() {
				case reflect.String, reflect.Int32, reflect.Int64, reflect.Bool:
					p := reflect.New(f.Type().Elem())
					scribbleValue(p.Elem())
					f.Set(p)
				}
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribbleValue(v.Index(i))
			v.Index(i).SetZero()
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		keys := v.MapKeys()
		for _, k := range keys {
			scribbleValue(v.MapIndex(k)) // what its values point to
			v.SetMapIndex(k, scribbled(v.Type().Elem()))
		}
		if v.Type().Key().Kind() == reflect.String {
			v.SetMapIndex(reflect.ValueOf("#scribbled").Convert(v.Type().Key()), scribbled(v.Type().Elem()))
		}
		if len(keys) > 0 {
			v.SetMapIndex(keys[0], reflect.Value{}) // deleted
		}
		v.Clear()
	}
}

// scribbled is a value of type t other than what a request would hold.
func scribbled(t reflect.Type) reflect.Value {
	switch {
	case t.Kind() == reflect.String:
		return reflect.ValueOf("scribbled").Convert(t)
	case t == reflect.TypeFor[types.AttributeValue]():
		return reflect.ValueOf(types.AttributeValue(&types.AttributeValueMemberS{Value: "scribbled"}))
	}
	return reflect.Zero(t)
}

// deepCopy is a copy of v sharing nothing it can reach with it: what a
// service answers is its own, not the request's.
func deepCopy[V any](v V) V {
	out := copyValue(reflect.ValueOf(&v).Elem())
	return out.Interface().(V)
}

func copyValue(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(copyValue(v.Elem()))
			out.Set(p)
		}
	case reflect.Interface:
		if !v.IsNil() {
			out.Set(copyValue(v.Elem()))
		}
	case reflect.Struct:
		out.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(copyValue(v.Field(i)))
			}
		}
	case reflect.Slice:
		if !v.IsNil() {
			out.Set(reflect.MakeSlice(v.Type(), v.Len(), v.Len()))
			for i := range v.Len() {
				out.Index(i).Set(copyValue(v.Index(i)))
			}
		}
	case reflect.Map:
		if !v.IsNil() {
			out.Set(reflect.MakeMapWithSize(v.Type(), v.Len()))
			for it := v.MapRange(); it.Next(); {
				out.SetMapIndex(it.Key(), copyValue(it.Value()))
			}
		}
	default:
		out.Set(v)
	}
	return out
}

// A scribbling case: the answers to set on the mock, the operation, and
// the golden files its first requests must equal ("" for none).
type scribbleCase struct {
	name   string
	answer func(t *testing.T, mock *singletabletest.Client, plain *st.DB)
	run    func(ctx context.Context, db *st.DB) error
	golden []string
	// model is the table model the case runs on: testmodel.Shop unless set.
	model *st.Table
	// err is the error the operation ends with (nil: none, or not found);
	// requests, when set, how many requests it sends.
	err      error
	requests int
}

// item is what Put stores of v, for a mock to answer with.
func item[T any](t *testing.T, e *st.Entity[T], db *st.DB, v T) map[string]types.AttributeValue {
	in, err := e.PutInput(db, v)
	require.NoError(t, err)
	return in.Item
}

// paged answers a read's first page with a key to resume from, so that
// every read sends a second request, built after the first was scribbled.
func paged(last map[string]types.AttributeValue, start map[string]types.AttributeValue) map[string]types.AttributeValue {
	if start == nil {
		return deepCopy(last)
	}
	return nil
}

func scribbleCases() []scribbleCase {
	orderKey := testmodel.ShopOrder{UserID: "u123", ID: "2024-001"}
	orderLast := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "USER#u123"}, "SK": &types.AttributeValueMemberS{Value: "ORDER#2024-001"},
		"GSI1PK": &types.AttributeValueMemberS{Value: "STATUS#PENDING"}, "GSI1SK": &types.AttributeValueMemberS{Value: "2024-01-15#2024-001"},
	}
	queryPaged := func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
		mock.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
			return &dynamodb.QueryOutput{LastEvaluatedKey: paged(orderLast, in.ExclusiveStartKey)}, nil
		}
	}
	updatedOrder := func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
		stored := item(t, testmodel.ShopOrders, plain, seedOrder)
		mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
			return &dynamodb.UpdateItemOutput{Attributes: deepCopy(stored)}, nil
		}
		mock.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
			return &dynamodb.GetItemOutput{Item: deepCopy(stored)}, nil
		}
	}
	return []scribbleCase{
		{name: "Update", answer: updatedOrder, golden: []string{"update/status"},
			run: func(ctx context.Context, db *st.DB) error {
				_, err := testmodel.ShopOrders.Update(ctx, db, orderKey, st.Set("Status", "SHIPPED").Set("Date", "2024-01-15"))
				return err
			}},
		{name: "Update reading first", answer: updatedOrder,
			run: func(ctx context.Context, db *st.DB) error {
				_, err := testmodel.ShopOrders.Update(ctx, db, orderKey, st.Set("Status", "SHIPPED"))
				return err
			}},
		{name: "Update reading first, its condition failing", answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			updatedOrder(t, mock, plain)
			mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
				return nil, &types.ConditionalCheckFailedException{Message: aws.String("The conditional request failed")}
			}
		}, err: st.ErrConditionFailed, requests: 3, // read, update, read again: the item did not change
			run: func(ctx context.Context, db *st.DB) error {
				_, err := testmodel.ShopOrders.Update(ctx, db, orderKey, st.Set("Status", "SHIPPED").If(st.Eq("Status", "CANCELLED")))
				return err
			}},
		{name: "Update upsert", answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			stored := item(t, testmodel.ShopProducts, plain, testmodel.ShopProduct{ID: "p1"})
			mock.UpdateItemFunc = func(context.Context, *dynamodb.UpdateItemInput) (*dynamodb.UpdateItemOutput, error) {
				return &dynamodb.UpdateItemOutput{Attributes: deepCopy(stored)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			_, err := testmodel.ShopProducts.Update(ctx, db, testmodel.ShopProduct{ID: "p1"}, st.Add("Inventory", -2), st.Upsert())
			return err
		}},
		{name: "Update of a unique field", model: st.WShop, answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			in, err := plain.TransactInput(func(tx *st.Tx) error {
				st.WUsers.TxPut(tx, st.WUser{ID: "u1", Email: "old@x"})
				return nil
			})
			require.NoError(t, err)
			stored := in.TransactItems[0].Put.Item
			mock.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return &dynamodb.GetItemOutput{Item: deepCopy(stored)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			_, err := st.WUsers.Update(ctx, db, st.WUser{ID: "u1"}, st.Set("Email", "new@x"))
			return err
		}},
		{name: "Get", answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			stored := item(t, testmodel.ShopUsers, plain, seedUser)
			mock.GetItemFunc = func(context.Context, *dynamodb.GetItemInput) (*dynamodb.GetItemOutput, error) {
				return &dynamodb.GetItemOutput{Item: deepCopy(stored)}, nil
			}
		}, golden: []string{"get/key"}, run: func(ctx context.Context, db *st.DB) error {
			_, err := testmodel.ShopUsers.Get(ctx, db, testmodel.ShopUser{ID: "u123"})
			return err
		}},
		{name: "Put", golden: []string{"put/user"}, run: func(ctx context.Context, db *st.DB) error {
			return testmodel.ShopUsers.Put(ctx, db, seedUser)
		}},
		{name: "Create", golden: []string{"put/create"}, run: func(ctx context.Context, db *st.DB) error {
			return testmodel.ShopUsers.Create(ctx, db, seedUser)
		}},
		{name: "Delete", golden: []string{"delete/must_exist"}, run: func(ctx context.Context, db *st.DB) error {
			return testmodel.ShopOrders.Delete(ctx, db, orderKey, st.MustExist())
		}},
		{name: "Query", answer: queryPaged, golden: []string{"query/orders"}, run: func(ctx context.Context, db *st.DB) error {
			_, err := testmodel.ShopOrders.Query(ctx, db, testmodel.ShopOrder{UserID: "u123"}, st.Descending(), st.Limit(10))
			return err
		}},
		{name: "Query collection", answer: queryPaged, golden: []string{"query/collection"}, run: func(ctx context.Context, db *st.DB) error {
			_, err := testmodel.ShopUserAndOrders.Query(ctx, db, st.Values{"UserID": "u123"})
			return err
		}},
		{name: "Query fan-out", model: fanTable, answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			last := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "PAGEVIEW#home#1#3"}, "SK": &types.AttributeValueMemberS{Value: "COUNTER"}}
			mock.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				return &dynamodb.QueryOutput{LastEvaluatedKey: paged(last, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			// One request at a time, so that both runs send theirs in
			// one order.
			for _, err := range pageViewShards.All(ctx, db, pageView{PageID: "home#1"}, st.FanOutConcurrency(1)) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "Scan", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
				return &dynamodb.ScanOutput{LastEvaluatedKey: paged(orderLast, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			for _, err := range testmodel.ShopOrders.Scan(ctx, db, st.Filter(st.Eq("Status", "PENDING"))) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "BatchGet retrying", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				if len(mock.Calls()) == 1 { // the first request: all unprocessed
					return &dynamodb.BatchGetItemOutput{UnprocessedKeys: deepCopy(in.RequestItems)}, nil
				}
				return &dynamodb.BatchGetItemOutput{}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			_, err := testmodel.ShopUsers.BatchGet(ctx, db, []testmodel.ShopUser{{ID: "u1"}, {ID: "u2"}}, st.ConsistentRead())
			return err
		}},
		{name: "BatchWrite retrying", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				if len(mock.Calls()) == 1 {
					return &dynamodb.BatchWriteItemOutput{UnprocessedItems: deepCopy(in.RequestItems)}, nil
				}
				return &dynamodb.BatchWriteItemOutput{}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{
				st.BatchPut(testmodel.ShopUsers, seedUser, testmodel.ShopUser{ID: "u2", Name: "Bo"}),
				st.BatchDelete(testmodel.ShopOrders, orderKey),
			})
		}},
		{name: "Transact", model: st.WShop, golden: []string{"txn/place_order"}, run: func(ctx context.Context, db *st.DB) error {
			return db.Transact(ctx, func(tx *st.Tx) error {
				st.WOrders.TxCreate(tx, st.WOrder{UserID: "u1", ID: "o1", Date: "2024-01-15", Status: "PENDING", Total: 3})
				st.WOrderItems.TxCreate(tx, st.WOrderItem{OrderID: "o1", ProductID: "p1", Quantity: 2, Price: 1.5})
				st.WProducts.TxUpdate(tx, st.WProduct{ID: "p1"}, st.Decrement("Inventory", 2).If(st.Ge("Inventory", 2)))
				return nil
			}, st.IdempotencyToken("golden-token"))
		}},
		{name: "TransactGet", model: st.WShop, golden: []string{"txn/get"}, run: func(ctx context.Context, db *st.DB) error {
			tg := db.TransactGet()
			st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
			st.WOrders.TxGet(tg, st.WOrder{UserID: "u1", ID: "o1"})
			return tg.Run(ctx)
		}},
	}
}

// A Client may modify every request it is given: each operation, run twice
// under a Client that scribbles over its requests once answered, sends
// the same requests the second time (its golden ones, where it has them),
// and its retries and later pages are the requests they would have been.
func TestClientMayModifyRequests(t *testing.T) {
	for _, c := range slices.Concat(scribbleCases(), scribbleReadCases(), scribblePackageCases()) {
		t.Run(c.name, func(t *testing.T) {
			if c.model == nil {
				c.model = testmodel.Shop
			}
			plain := st.New(&singletabletest.Client{}, c.model, st.WithClock(st.FixedClock))
			mock := &singletabletest.Client{}
			if c.answer != nil {
				c.answer(t, mock, plain)
			}
			s := &scribbler{inner: mock}
			db := plain.WithClient(s)
			st.SetBatchTiming(db, func(context.Context, time.Duration) error { return nil }, func(d time.Duration) time.Duration { return d })
			var runs [2][]string
			for i := range runs {
				s.reset()
				err := c.run(t.Context(), db)
				switch {
				case c.err != nil:
					require.ErrorIs(t, err, c.err)
				case err != nil && !errors.Is(err, st.ErrNotFound):
					require.NoError(t, err)
				}
				runs[i] = s.requests()
				if c.requests > 0 {
					require.Len(t, runs[i], c.requests, "run %d", i)
				}
			}
			require.NotEmpty(t, runs[0])
			assert.Equal(t, withoutTokens(runs[0]), withoutTokens(runs[1]), "the second run sends what the first did")
			for i, name := range c.golden {
				if name == "" {
					continue
				}
				for _, r := range runs {
					require.Greater(t, len(r), i)
					want, err := os.ReadFile("testdata/golden/" + name + ".json")
					require.NoError(t, err)
					assert.Equal(t, string(want), r[i], "request %d is golden %s", i, name)
				}
			}
			if strings.Contains(c.name, "retrying") || strings.HasPrefix(c.name, "Query") || strings.Contains(c.name, "Scan") {
				// The retry, or the next page, is the first request again
				// (but for where it starts), built after the first was
				// scribbled over.
				require.GreaterOrEqual(t, len(runs[0]), 2, "a retry or a second page was sent")
				assert.Equal(t, withoutStart(t, runs[0][0]), withoutStart(t, runs[0][1]))
			}
		})
	}
}

// withoutStart is request r (golden.JSON) without its ExclusiveStartKey.
func withoutStart(t *testing.T, r string) map[string]any {
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(r), &m))
	delete(m, "ExclusiveStartKey")
	return m
}

// randomToken is a transaction's random idempotency token, each run's own.
var randomToken = regexp.MustCompile(`"ClientRequestToken": "[0-9a-f]{32}"`)

// withoutTokens is requests without their random tokens.
func withoutTokens(requests []string) []string {
	out := make([]string, len(requests))
	for i, r := range requests {
		out[i] = randomToken.ReplaceAllString(r, `"ClientRequestToken": "random"`)
	}
	return out
}
