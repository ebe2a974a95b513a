package singletable_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/testmodel"
	"github.com/singletable/singletable/singletabletest"
)

// The kinds model on a table of this test's own, for requests whose values
// hold lists, maps, sets and bytes.
var (
	scribbleKindsTable = st.MustTable("ScribbleKinds")
	scribbleKinds      = st.MustDefine[testmodel.Kinds](scribbleKindsTable, "Kinds", st.Key("K#{ID}", "SEQ#{Seq:4}"))
)

// kindsCond compares lists, maps, sets and bytes: values a Client may
// modify inside the request's attribute values.
func kindsCond() st.Cond {
	v := testmodel.KindsValue()
	return st.And(st.Eq("List", v.List), st.Eq("Map", v.Map), st.Eq("Deep", v.Deep), st.Eq("Nums", v.Nums), st.Eq("Bin", v.Bin))
}

// The reads and batches a Client may modify (see TestClientMayModifyRequests):
// later pages, retries, and what the library keeps of what it sent.
func scribbleReadCases() []scribbleCase {
	users := []testmodel.ShopUser{{ID: "u1", Name: "Ada"}, {ID: "u2", Name: "Bo"}}
	userKeys := []testmodel.ShopUser{{ID: "u1"}, {ID: "u2"}}
	usersFound := func(t *testing.T, plain *st.DB) []map[string]types.AttributeValue {
		return []map[string]types.AttributeValue{item(t, testmodel.ShopUsers, plain, users[0]), item(t, testmodel.ShopUsers, plain, users[1])}
	}
	// batchGot checks that BatchGet found every user.
	batchGot := func(got []*testmodel.ShopUser, err error) error {
		if err != nil {
			return err
		}
		for i, u := range got {
			if u == nil || u.Name != users[i].Name {
				return fmt.Errorf("BatchGet found %v of %v", got, users)
			}
		}
		return nil
	}
	calls := func(mock *singletabletest.Client, op string) int {
		n := 0
		for _, c := range mock.Calls() {
			if c.Op == op {
				n++
			}
		}
		return n
	}
	twice := st.BatchRetry(st.RetryPolicy{MaxAttempts: 2})
	sh := testmodel.NewSeed()
	var tg *st.GetTx // TransactGet run again: one GetTx, run by both runs
	return []scribbleCase{
		{name: "Query of lists and maps", model: scribbleKindsTable, answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			last := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "K#a"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#0001"}}
			mock.QueryFunc = func(_ context.Context, in *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				return &dynamodb.QueryOutput{LastEvaluatedKey: paged(last, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			_, err := scribbleKinds.Query(ctx, db, testmodel.Kinds{ID: "a"}, st.Filter(kindsCond()), st.Limit(5))
			return err
		}},
		{name: "Scan of lists and maps, in segments", model: scribbleKindsTable, answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			last := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "K#a"}, "SK": &types.AttributeValueMemberS{Value: "SEQ#0001"}}
			mock.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
				return &dynamodb.ScanOutput{LastEvaluatedKey: paged(last, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			var positions []string
			// One segment at a time, so that both runs send theirs in one
			// order.
			for _, err := range scribbleKinds.Scan(ctx, db, st.Filter(kindsCond()), st.Segments(3), st.ScanConcurrency(1),
				st.OnProgress(func(p st.ScanProgress) { positions = append(positions, p.Position) })) {
				if err != nil {
					return err
				}
			}
			if len(positions) != 6 {
				return fmt.Errorf("%d positions reported, want one per page (6)", len(positions))
			}
			return nil
		}},
		{name: "DB.Scan", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			last := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "USER#u1"}, "SK": &types.AttributeValueMemberS{Value: "PROFILE"}}
			mock.ScanFunc = func(_ context.Context, in *dynamodb.ScanInput) (*dynamodb.ScanOutput, error) {
				return &dynamodb.ScanOutput{LastEvaluatedKey: paged(last, in.ExclusiveStartKey)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			for _, err := range db.Scan(ctx, st.Filter(st.Eq("status", "PENDING"))) {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{name: "FetchFull, its BatchGet retried", model: sh.Table, answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			keys := func(user string) map[string]types.AttributeValue {
				return map[string]types.AttributeValue{"PK": s("USER#" + user), "SK": s("TEAM#t1"), "GSI2PK": s("TEAM#t1"), "GSI2SK": s("USER#" + user)}
			}
			full := func(user string) map[string]types.AttributeValue {
				it := keys(user)
				it["_type"], it["userId"], it["teamId"], it["role"] = s("Membership"), s(user), s("t1"), s("role-"+user)
				return it
			}
			mock.QueryFunc = func(context.Context, *dynamodb.QueryInput) (*dynamodb.QueryOutput, error) {
				return &dynamodb.QueryOutput{Items: []map[string]types.AttributeValue{keys("a"), keys("b")}}, nil
			}
			mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				if calls(mock, "BatchGetItem") == 1 { // b found, a left for later
					return &dynamodb.BatchGetItemOutput{
						Responses:       map[string][]map[string]types.AttributeValue{"OrdersTable": {full("b")}},
						UnprocessedKeys: map[string]types.KeysAndAttributes{"OrdersTable": {Keys: deepCopy(in.RequestItems["OrdersTable"].Keys[:1])}},
					}, nil
				}
				return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"OrdersTable": {full("a")}}}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			page, err := sh.TeamMembers.Query(ctx, db, testmodel.Membership{TeamID: "t1"}, st.FetchFull())
			if err != nil {
				return err
			}
			want := []testmodel.Membership{{UserID: "a", TeamID: "t1", Role: "role-a"}, {UserID: "b", TeamID: "t1", Role: "role-b"}}
			if !reflect.DeepEqual(page.Items, want) {
				return fmt.Errorf("FetchFull read %v, want %v", page.Items, want)
			}
			return nil
		}},
		{name: "BatchGet", answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			found := usersFound(t, plain)
			mock.BatchGetItemFunc = func(context.Context, *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"ECommerceApp": deepCopy(found)}}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			return batchGot(testmodel.ShopUsers.BatchGet(ctx, db, userKeys))
		}},
		{name: "BatchGet retrying, then found", answer: func(t *testing.T, mock *singletabletest.Client, plain *st.DB) {
			found := usersFound(t, plain)
			mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				if calls(mock, "BatchGetItem") == 1 { // the first request: all unprocessed
					return &dynamodb.BatchGetItemOutput{UnprocessedKeys: deepCopy(in.RequestItems)}, nil
				}
				return &dynamodb.BatchGetItemOutput{Responses: map[string][]map[string]types.AttributeValue{"ECommerceApp": deepCopy(found)}}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			return batchGot(testmodel.ShopUsers.BatchGet(ctx, db, userKeys, st.ConsistentRead()))
		}},
		{name: "BatchGet left unprocessed", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.BatchGetItemFunc = func(_ context.Context, in *dynamodb.BatchGetItemInput) (*dynamodb.BatchGetItemOutput, error) {
				return &dynamodb.BatchGetItemOutput{UnprocessedKeys: deepCopy(in.RequestItems)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			want, err := testmodel.ShopUsers.BatchGetInputs(db, userKeys)
			if err != nil {
				return err
			}
			_, err = testmodel.ShopUsers.BatchGet(ctx, db, userKeys, twice)
			var be *st.BatchError
			if !errors.As(err, &be) || len(be.Unprocessed) != 2 {
				return fmt.Errorf("BatchGet: %v, want both keys unprocessed", err)
			}
			for i, u := range be.Unprocessed {
				if !reflect.DeepEqual(u.Key, want[0].RequestItems["ECommerceApp"].Keys[i]) {
					return fmt.Errorf("unprocessed key %d is %v, want %v", i, u.Key, want[0].RequestItems["ECommerceApp"].Keys[i])
				}
			}
			return nil
		}},
		{name: "BatchWrite of lists and maps retrying", model: scribbleKindsTable, answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				if calls(mock, "BatchWriteItem") == 1 {
					return &dynamodb.BatchWriteItemOutput{UnprocessedItems: deepCopy(in.RequestItems)}, nil
				}
				return &dynamodb.BatchWriteItemOutput{}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			return db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(scribbleKinds, testmodel.KindsValue())})
		}},
		{name: "BatchWrite left unprocessed", answer: func(_ *testing.T, mock *singletabletest.Client, _ *st.DB) {
			mock.BatchWriteItemFunc = func(_ context.Context, in *dynamodb.BatchWriteItemInput) (*dynamodb.BatchWriteItemOutput, error) {
				return &dynamodb.BatchWriteItemOutput{UnprocessedItems: deepCopy(in.RequestItems)}, nil
			}
		}, run: func(ctx context.Context, db *st.DB) error {
			ops := []st.BatchOp{st.BatchPut(testmodel.ShopUsers, users...), st.BatchDelete(testmodel.ShopOrders, testmodel.ShopOrder{UserID: "u1", ID: "o1"})}
			want, err := db.BatchWriteInputs(ops)
			if err != nil {
				return err
			}
			err = db.BatchWrite(ctx, ops, twice)
			var be *st.BatchError
			if !errors.As(err, &be) || len(be.Unprocessed) != 3 {
				return fmt.Errorf("BatchWrite: %v, want every item unprocessed", err)
			}
			for i, u := range be.Unprocessed {
				w := want[0].RequestItems["ECommerceApp"][i]
				switch {
				case w.PutRequest != nil && !reflect.DeepEqual(u.Item, w.PutRequest.Item):
					return fmt.Errorf("unprocessed item %d is %v, want %v", i, u.Item, w.PutRequest.Item)
				case w.DeleteRequest != nil && !reflect.DeepEqual(u.Key, w.DeleteRequest.Key):
					return fmt.Errorf("unprocessed key %d is %v, want %v", i, u.Key, w.DeleteRequest.Key)
				}
			}
			// Sent again, they are the items given.
			mock := &singletabletest.Client{}
			if err := db.WithClient(mock).BatchWrite(ctx, be.Ops()); err != nil {
				return err
			}
			if got := mock.Calls()[0].Input.(*dynamodb.BatchWriteItemInput); !reflect.DeepEqual(got, want[0]) {
				return fmt.Errorf("Ops sent %v, want %v", got, want[0])
			}
			return nil
		}},
		{name: "TransactGet run again", model: st.WShop, golden: []string{"txn/get"}, run: func(ctx context.Context, db *st.DB) error {
			if tg == nil {
				tg = db.TransactGet()
				st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
				st.WOrders.TxGet(tg, st.WOrder{UserID: "u1", ID: "o1"})
			}
			return tg.Run(ctx)
		}},
		{name: "TransactGet not found", model: st.WShop, run: func(ctx context.Context, db *st.DB) error {
			tg := db.TransactGet()
			v := st.WProducts.TxGet(tg, st.WProduct{ID: "p1"})
			if err := tg.Run(ctx); err != nil {
				return err
			}
			if _, err := v.Get(); !errors.Is(err, st.ErrNotFound) || !strings.Contains(err.Error(), "PRODUCT#p1") {
				return fmt.Errorf("Get: %v, want ErrNotFound naming the key", err)
			}
			return nil
		}},
	}
}
