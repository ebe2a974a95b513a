package singletable

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"testing"
)

// collect hands every operation given no options the same noOptions: it
// must still be the zero settings after operations have used it.
func TestNoOptionsStaysZero(t *testing.T) {
	db := New(nil, WShop, WithClock(FixedClock))
	_, _ = WUsers.PutInput(db, WUser{ID: "u1", Email: "a@x"})
	_, _ = WProducts.GetInput(db, WProduct{ID: "p1"})
	_, _ = WProducts.DeleteInput(db, WProduct{ID: "p1"})
	_, _ = WOrders.QueryInput(db, WOrder{UserID: "u1"})
	_, _ = db.TransactInput(func(tx *Tx) error {
		WProducts.TxPut(tx, WProduct{ID: "p2"})
		WOrders.TxDelete(tx, WOrder{UserID: "u1", ID: "o1"})
		return nil
	})
	_, _ = db.BatchWriteInputs([]BatchOp{BatchPut(WRecords, WRecord{ID: "r1"})})
	_ = db.BatchWrite(context.Background(), nil)
	if !reflect.ValueOf(noOptions).IsZero() {
		t.Fatalf("noOptions was written: %+v", noOptions)
	}
}

// TestMisuseDoesNotCompile holds the promise of the typed options: an
// option, a change or a bound given to an operation that does not take it
// is a compile error, not a run-time one. Each snippet is a package of a
// scratch module that uses this one (through a replace directive, offline
// from the module cache); one go build compiles them all, and each misuse
// must fail while the control, which uses every operation rightly, builds.
func TestMisuseDoesNotCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	snippets := map[string]string{
		"control": `
			_, _ = orders.Get(ctx, db, Order{}, st.ConsistentRead())
			_, _ = orders.GetInput(db, Order{})
			_ = orders.Put(ctx, db, Order{}, st.If(st.Exists("ID")))
			_ = orders.Create(ctx, db, Order{})
			_ = orders.Delete(ctx, db, Order{}, st.MustExist(), st.If(st.Exists("ID")))
			_, _ = orders.Update(ctx, db, Order{}, st.Set("Status", "S").Increment("N", 1).Remove("Note").If(st.Eq("Status", "P")), st.Upsert(), st.NoRead())
			_, _ = orders.UpdateInput(db, Order{}, st.Append("Log", "x"))
			_, _ = orders.Query(ctx, db, Order{}, st.Limit(1), st.Descending(), st.ConsistentRead())
			_, _ = byDate.Query(ctx, db, Order{}, st.Limit(1), st.After(""), st.Filter(st.Eq("Status", "P")), st.Project("ID"), st.ConsistentRead())
			_, _ = byDate.QueryBetween(ctx, db, Order{}, Order{}, st.Limit(2))
			_, _ = byDate.QueryBetweenInput(db, Order{}, Order{})
			for range byDate.AllBetween(ctx, db, Order{}, Order{}) {
			}
			_, _ = byDate.Get(ctx, db, Order{}, st.Project("ID"), st.Filter(st.Eq("Status", "P")), st.ConsistentRead(), st.IncludeExpired(),
				st.FetchFull(), st.PartialMatch(), st.PartialTime(st.Month), st.SortFields(1), st.FanOutConcurrency(2), st.MaxFanOutRequests(9))
			_, _ = byDate.GetInput(db, Order{}, st.Project("ID"), st.ConsistentRead())
			_, _ = orders.Get(ctx, db, Order{}, st.IncludeExpired())
			_, _ = orders.GetInput(db, Order{}, st.ConsistentRead(), st.IncludeExpired())
			_ = orders.Put(ctx, db, Order{}, st.RandomShard())
			_, _ = orders.Update(ctx, db, Order{}, st.Set("N", 1), st.RandomShard())
			for range orders.Scan(ctx, db, st.Filter(st.Eq("Status", "P")), st.ConsistentRead(), st.IncludeExpired()) {
			}
			_, _ = orders.BatchGet(ctx, db, nil, st.IncludeExpired())
			_, _ = st.Sum(ctx, db, byDate, Order{}, func(o Order) int { return o.N }, st.Limit(1), st.MaxFanOutRequests(2))
			_, _ = orders.BatchGet(ctx, db, nil, st.ConsistentRead(), st.Concurrency(2), st.BatchRetry(st.DefaultRetryPolicy))
			_ = db.BatchWrite(ctx, nil, st.Concurrency(2))
			// Each query option where it may apply: the entity's query,
			// which reads the table, takes every one but FetchFull; a
			// collection's every one but the sort-key and fan-out ones; a
			// relation's every one but the sort-key ones (Out: nor FetchFull).
			_, _ = byDate.Query(ctx, db, Order{}, st.FetchFull(), st.PartialMatch(), st.PartialTime(st.Day), st.SortFields(1), st.FanOutConcurrency(2), st.MaxFanOutRequests(9), st.Ascending(), st.IncludeExpired())
			_, _ = orders.Query(ctx, db, Order{}, st.Limit(1), st.After(""), st.Ascending(), st.Filter(st.Eq("Status", "P")), st.Project("ID"), st.ConsistentRead(), st.IncludeExpired(),
				st.PartialMatch(), st.PartialTime(st.Day), st.SortFields(1), st.FanOutConcurrency(2), st.MaxFanOutRequests(9))
			_, _ = orders.QueryInput(db, Order{}, st.Descending(), st.SortFields(1))
			_, _ = orders.QueryInputs(db, Order{}, st.MaxFanOutRequests(9))
			for range orders.All(ctx, db, Order{}, st.Limit(1), st.PartialMatch()) {
			}
			_, _ = coll.Query(ctx, db, st.Values{"ID": "o1"}, st.Limit(1), st.After(""), st.Descending(), st.Ascending(), st.Filter(st.Eq("Status", "P")), st.Project("ID"),
				st.ConsistentRead(), st.IncludeExpired(), st.FetchFull())
			_, _ = coll.QueryInput(db, st.Values{"ID": "o1"}, st.FetchFull())
			for range coll.All(ctx, db, st.Values{"ID": "o1"}, st.Limit(1)) {
			}
			_, _ = rel.Out(ctx, db, User{}, st.Limit(1), st.After(""), st.Descending(), st.Ascending(), st.Filter(st.Eq("Status", "P")), st.Project("ID"),
				st.ConsistentRead(), st.IncludeExpired(), st.FanOutConcurrency(2), st.MaxFanOutRequests(9))
			_, _ = rel.OutInput(db, User{}, st.Limit(1))
			for range rel.OutAll(ctx, db, User{}, st.Limit(1)) {
			}
			_, _ = rel.In(ctx, db, User{}, st.Limit(1), st.After(""), st.Descending(), st.Ascending(), st.Filter(st.Eq("Status", "P")), st.Project("ID"),
				st.ConsistentRead(), st.IncludeExpired(), st.FanOutConcurrency(2), st.MaxFanOutRequests(9), st.FetchFull())
			_, _ = rel.InInput(db, User{}, st.FetchFull())
			for range rel.InAll(ctx, db, User{}, st.FetchFull()) {
			}
			_, _ = rel.Has(ctx, db, Order{}, st.ConsistentRead(), st.IncludeExpired())
			_ = orders.TxGet(tg, Order{}, st.IncludeExpired())
			// A caller can name each operation's option type to build a list.
			eo := []st.EntityQueryOption{st.Limit(1), st.SortFields(1)}
			_, _ = orders.Query(ctx, db, Order{}, eo...)
			co := []st.CollectionOption{st.Limit(1), st.FetchFull()}
			_, _ = coll.Query(ctx, db, nil, co...)
			po := []st.PartitionQueryOption{st.Limit(1), st.FetchFull(), st.FanOutConcurrency(2)}
			_, _ = rel.In(ctx, db, User{}, po...)
			oo := []graph.OutOption{st.Limit(1), st.MaxFanOutRequests(2)}
			_, _ = rel.Out(ctx, db, User{}, oo...)
			qo := []st.QueryOption{st.Limit(1), st.FetchFull(), st.PartialMatch()}
			_, _ = byDate.Query(ctx, db, Order{}, qo...)
			_ = db.Transact(ctx, func(tx *st.Tx) error {
				orders.TxPut(tx, Order{}, st.If(st.Exists("ID")))
				orders.TxUpdate(tx, Order{}, st.Decrement("N", 1).If(st.Ge("N", 1)))
				orders.TxDelete(tx, Order{}, st.MustExist())
				return nil
			}, st.IdempotencyToken("t"))`,
		"set_to_get":                `_, _ = orders.Get(ctx, db, Order{}, st.Set("Status", "S"))`,
		"limit_to_put":              `_ = orders.Put(ctx, db, Order{}, st.Limit(1))`,
		"change_as_query_option":    `_, _ = byDate.Query(ctx, db, Order{}, st.Set("Status", "S"))`,
		"bound_of_another_type":     `_, _ = byDate.QueryBetween(ctx, db, Order{}, User{})`,
		"upto_is_gone":              `_, _ = byDate.Query(ctx, db, Order{}, st.UpTo(Order{}))`,
		"consistent_to_put":         `_ = orders.Put(ctx, db, Order{}, st.ConsistentRead())`,
		"must_exist_to_update":      `_, _ = orders.Update(ctx, db, Order{}, st.Set("Status", "S"), st.MustExist())`,
		"if_option_to_update":       `_, _ = orders.Update(ctx, db, Order{}, st.Set("Status", "S"), st.If(st.Exists("ID")))`,
		"update_without_changes":    `_, _ = orders.Update(ctx, db, Order{}, st.Upsert())`,
		"upsert_to_get":             `_, _ = orders.Get(ctx, db, Order{}, st.Upsert())`,
		"project_to_entity_get":     `_, _ = orders.Get(ctx, db, Order{}, st.Project("ID"))`,
		"limit_to_batch_write":      `_ = db.BatchWrite(ctx, nil, st.Limit(3))`,
		"consistent_to_batch_write": `_ = db.BatchWrite(ctx, nil, st.ConsistentRead())`,
		"token_to_put":              `_ = orders.Put(ctx, db, Order{}, st.IdempotencyToken("t"))`,
		"limit_to_tx_update":        `db.Transact(ctx, func(tx *st.Tx) error { orders.TxUpdate(tx, Order{}, st.Set("A", 1), st.Limit(1)); return nil })`,
		"must_exist_to_put":         `_ = orders.Put(ctx, db, Order{}, st.MustExist())`,
		"outside_implementation":    `var _ st.QueryOption = myOption{}`,
		// Pattern.Get finds one item: what pages or orders a list does not apply.
		"limit_to_pattern_get":       `_, _ = byDate.Get(ctx, db, Order{}, st.Limit(1))`,
		"after_to_pattern_get":       `_, _ = byDate.Get(ctx, db, Order{}, st.After(""))`,
		"descending_to_pattern_get":  `_, _ = byDate.Get(ctx, db, Order{}, st.Descending())`,
		"ascending_to_pattern_get":   `_, _ = byDate.Get(ctx, db, Order{}, st.Ascending())`,
		"limit_to_pattern_get_input": `_, _ = byDate.GetInput(db, Order{}, st.Limit(1))`,
		"query_option_to_pattern_get": `var o st.QueryOption = st.Project("ID")
			_, _ = byDate.Get(ctx, db, Order{}, o)`,
		"fan_out_to_entity_get":  `_, _ = orders.Get(ctx, db, Order{}, st.MaxFanOutRequests(1))`,
		"filter_to_entity_get":   `_, _ = orders.Get(ctx, db, Order{}, st.Filter(st.Eq("Status", "P")))`,
		"random_shard_to_delete": `_ = orders.Delete(ctx, db, Order{}, st.RandomShard())`,
		"concurrency_to_put":     `_ = orders.Put(ctx, db, Order{}, st.Concurrency(2))`,
		// An entity's query reads the table, which holds whole items.
		"fetch_full_to_entity_query":        `_, _ = orders.Query(ctx, db, Order{}, st.FetchFull())`,
		"fetch_full_to_entity_all":          `for range orders.All(ctx, db, Order{}, st.FetchFull()) {}`,
		"fetch_full_to_entity_query_input":  `_, _ = orders.QueryInput(db, Order{}, st.FetchFull())`,
		"fetch_full_to_entity_query_inputs": `_, _ = orders.QueryInputs(db, Order{}, st.FetchFull())`,
		"query_option_to_entity_query": `var o st.QueryOption = st.Limit(1)
			_, _ = orders.Query(ctx, db, Order{}, o)`,
		// A collection reads one partition, and its sort condition is a
		// literal: no fan-out, no sort-key options.
		"fan_out_concurrency_to_collection": `_, _ = coll.Query(ctx, db, nil, st.FanOutConcurrency(2))`,
		"max_fan_out_to_collection_all":     `for range coll.All(ctx, db, nil, st.MaxFanOutRequests(2)) {}`,
		"max_fan_out_to_collection_input":   `_, _ = coll.QueryInput(db, nil, st.MaxFanOutRequests(2))`,
		"partial_match_to_collection":       `_, _ = coll.Query(ctx, db, nil, st.PartialMatch())`,
		"partial_time_to_collection":        `_, _ = coll.Query(ctx, db, nil, st.PartialTime(st.Day))`,
		"sort_fields_to_collection":         `_, _ = coll.Query(ctx, db, nil, st.SortFields(1))`,
		"entity_option_to_collection": `var o st.EntityQueryOption = st.Limit(1)
			_, _ = coll.Query(ctx, db, nil, o)`,
		// A relation reads whole partitions: no sort-key options; Out reads
		// the table: no FetchFull.
		"fetch_full_to_relation_out":       `_, _ = rel.Out(ctx, db, User{}, st.FetchFull())`,
		"fetch_full_to_relation_out_all":   `for range rel.OutAll(ctx, db, User{}, st.FetchFull()) {}`,
		"fetch_full_to_relation_out_input": `_, _ = rel.OutInput(db, User{}, st.FetchFull())`,
		"partial_match_to_relation_out":    `_, _ = rel.Out(ctx, db, User{}, st.PartialMatch())`,
		"sort_fields_to_relation_in":       `_, _ = rel.In(ctx, db, User{}, st.SortFields(1))`,
		"partial_time_to_relation_in_all":  `for range rel.InAll(ctx, db, User{}, st.PartialTime(st.Day)) {}`,
		"partial_match_to_relation_input":  `_, _ = rel.InInput(db, User{}, st.PartialMatch())`,
		"project_to_relation_has":          `_, _ = rel.Has(ctx, db, Order{}, st.Project("ID"))`,
		"number_is_gone":                   `type n interface{ st.Number }`,
		"new_collection_is_gone":           `_, _ = st.NewCollection(nil, "C", "P")`,
		// The option types that existed only to satisfy several interfaces
		// are gone: a zero one cannot be written.
		"zero_read_option":        `_, _ = orders.Get(ctx, db, Order{}, st.ReadOption{})`,
		"zero_cond_option":        `_ = orders.Put(ctx, db, Order{}, st.CondOption{})`,
		"zero_filter_option":      `_, _ = byDate.Query(ctx, db, Order{}, st.FilterOption{})`,
		"zero_batch_option":       `_ = db.BatchWrite(ctx, nil, st.BatchOption{})`,
		"zero_write_shard_option": `_ = orders.Put(ctx, db, Order{}, st.WriteShardOption{})`,
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).Find(goMod)
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", fmt.Sprintf("module misuse\n\n%s\n\nrequire github.com/singletable/singletable v0.0.0\n\nreplace github.com/singletable/singletable => %s\n", goLine, root))
	write("go.sum", string(goSum))
	for name, body := range snippets {
		write(name+"/x.go", `package `+name+`

import (
	"context"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/graph"
)

type Order struct{ ID, Status, Note string; N int; Log []string }

type User struct{ ID string }

type myOption struct{}

func use(ctx context.Context, db *st.DB, orders *st.Entity[Order], byDate *st.Pattern[Order],
	coll *st.Collection, rel *graph.Relation[User, Order, User], tg *st.GetTx) {
	`+body+`
}
`)
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	out, _ := cmd.CombinedOutput()
	// go build names each package that fails to compile: "# misuse/name".
	failed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^# misuse/(\w+)$`).FindAllStringSubmatch(string(out), -1) {
		failed[m[1]] = true
	}
	if failed["control"] || len(failed) == 0 {
		t.Fatalf("the control snippet must compile:\n%s", out)
	}
	for name := range snippets {
		if name != "control" && !failed[name] {
			t.Errorf("%s compiles; it must not", name)
		}
	}
	if t.Failed() {
		t.Logf("go build:\n%s", out)
	}
}

// An option's value satisfies the interfaces its constructor lists and no
// others, even to a type assertion: an operation never receives an option
// it was not typed to take.
func TestOptionValuesSatisfyOnlyTheirInterfaces(t *testing.T) {
	is := func(o any) []string {
		var got []string
		for name, ok := range map[string]bool{
			"Get":            func() bool { _, ok := o.(GetOption); return ok }(),
			"PatternGet":     func() bool { _, ok := o.(PatternGetOption); return ok }(),
			"Query":          func() bool { _, ok := o.(QueryOption); return ok }(),
			"EntityQuery":    func() bool { _, ok := o.(EntityQueryOption); return ok }(),
			"PartitionQuery": func() bool { _, ok := o.(PartitionQueryOption); return ok }(),
			"Collection":     func() bool { _, ok := o.(CollectionOption); return ok }(),
			"Put":            func() bool { _, ok := o.(PutOption); return ok }(),
			"Delete":         func() bool { _, ok := o.(DeleteOption); return ok }(),
			"Update":         func() bool { _, ok := o.(UpdateOption); return ok }(),
			"Tx":             func() bool { _, ok := o.(TxOption); return ok }(),
			"BatchGet":       func() bool { _, ok := o.(BatchGetOption); return ok }(),
			"BatchWrite":     func() bool { _, ok := o.(BatchWriteOption); return ok }(),
			"Scan":           func() bool { _, ok := o.(ScanOption); return ok }(),
		} {
			if ok {
				got = append(got, name)
			}
		}
		slices.Sort(got)
		return got
	}
	// Each query option is a QueryOption, and an option of each narrower
	// interface whose reads it may apply to.
	reads := []string{"BatchGet", "Collection", "EntityQuery", "Get", "PartitionQuery", "PatternGet", "Query", "Scan"}
	list := []string{"Collection", "EntityQuery", "PartitionQuery", "Query"}
	sortKey := []string{"EntityQuery", "PatternGet", "Query"}
	fan := []string{"EntityQuery", "PartitionQuery", "PatternGet", "Query"}
	for name, c := range map[string]struct {
		o    any
		want []string
	}{
		"ConsistentRead":    {ConsistentRead(), reads},
		"IncludeExpired":    {IncludeExpired(), reads},
		"Project":           {Project("ID"), []string{"Collection", "EntityQuery", "PartitionQuery", "PatternGet", "Query"}},
		"FetchFull":         {FetchFull(), []string{"Collection", "PartitionQuery", "PatternGet", "Query"}},
		"PartialMatch":      {PartialMatch(), sortKey},
		"PartialTime":       {PartialTime(Month), sortKey},
		"SortFields":        {SortFields(1), sortKey},
		"FanOutConcurrency": {FanOutConcurrency(2), fan},
		"MaxFanOutRequests": {MaxFanOutRequests(2), fan},
		"Filter":            {Filter(Exists("ID")), []string{"Collection", "EntityQuery", "PartitionQuery", "PatternGet", "Query", "Scan"}},
		"Limit":             {Limit(1), list},
		"After":             {After(""), list},
		"Descending":        {Descending(), list},
		"Ascending":         {Ascending(), list},
		"If":                {If(Exists("ID")), []string{"Delete", "Put"}},
		"MustExist":         {MustExist(), []string{"Delete"}},
		"Upsert":            {Upsert(), []string{"Update"}},
		"NoRead":            {NoRead(), []string{"Update"}},
		"Current":           {Current(WUser{}), []string{"Update"}},
		"RandomShard":       {RandomShard(), []string{"Put", "Update"}},
		"IdempotencyToken":  {IdempotencyToken("t"), []string{"Tx"}},
		"Concurrency":       {Concurrency(2), []string{"BatchGet", "BatchWrite"}},
		"BatchRetry":        {BatchRetry(DefaultRetryPolicy), []string{"BatchGet", "BatchWrite"}},
	} {
		if got := is(c.o); !slices.Equal(got, c.want) {
			t.Errorf("%s satisfies %v, want %v", name, got, c.want)
		}
	}
}

// The model's own options are funcs a caller can pass as nil: NewTable
// refuses a nil TableOption or IndexOption with a *ModelError, and New,
// which returns no error, panics with an *InputError naming the option.
func TestNilModelOptions(t *testing.T) {
	_, err := NewTable("Nil", WithKeys("PK", "SK"), nil)
	var me *ModelError
	if !errors.As(err, &me) || me.Reason != "TableOption 2 of 2 is nil" {
		t.Errorf("NewTable: %v", err)
	}
	_, err = NewTable("Nil", WithGSI("GSI1", KeysOnly(), nil))
	if !errors.As(err, &me) || me.Reason != "index GSI1: IndexOption 2 of 2 is nil" {
		t.Errorf("WithGSI: %v", err)
	}
	defer func() {
		ie, ok := recover().(*InputError)
		if !ok || ie.Op != "New" || ie.Reason != "DBOption 2 of 2 is nil" {
			t.Errorf("New: panicked with %v, want an *InputError naming DBOption 2", ie)
		}
	}()
	New(nil, WShop, WithClock(FixedClock), nil)
	t.Error("New did not panic")
}
