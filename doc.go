// Package singletable models many entity types in one DynamoDB table.
//
// Declare the physical table once, with its generic key attributes and
// overloaded global secondary indexes; register each Go struct as an entity
// with key templates whose {placeholders} name its fields; then read and
// write typed values:
//
//	var Shop = singletable.MustTable("ECommerceApp",
//		singletable.WithGSI("GSI1"),
//		singletable.WithTTL("ttl"),
//	)
//
//	var Orders = singletable.MustDefine[Order](Shop, "Order",
//		singletable.Key("USER#{UserID}", "ORDER#{Date}#{ID}"),
//		singletable.Index("GSI1", "STATUS#{Status}", "{Date}#{ID}"),
//	)
//
//	db := singletable.New(dynamodb.NewFromConfig(cfg), Shop)
//	err := Orders.Create(ctx, db, Order{UserID: "u1", Date: "2024-01-15", ID: "o1", Status: "PENDING"})
//	o, err := Orders.Get(ctx, db, Order{UserID: "u1", Date: "2024-01-15", ID: "o1"})
//	o, err = Orders.Update(ctx, db, key, singletable.Set("Status", "SHIPPED").If(singletable.Eq("Status", "PENDING")))
//
// # Options and changes
//
// Each operation takes its own option interface (GetOption, QueryOption,
// PatternGetOption, EntityQueryOption, CollectionOption, PutOption,
// DeleteOption, UpdateOption, TxOption, BatchGetOption, BatchWriteOption),
// so an option given where it does not apply is a compile error; an option that fits several
// operations, such as ConsistentRead, returns an interface listing them. An update's changes are a value,
// Changes, built by chaining (Set("Status", "SHIPPED").Increment("Count",
// 1).Remove("Note")) and conditioned with If. A SortBetween pattern takes
// its two bounds as typed values: QueryBetween(ctx, db, from, to).
//
// # The path of every request
//
// Every operation is model → request → Client → decode. The request is
// built by a pure function that each operation exposes (GetInput, PutInput,
// UpdateInput ...), so a request can be inspected, logged or golden-tested
// without a network. The Client is a small interface that *dynamodb.Client
// satisfies, as does any wrapper or mock (package singletabletest). To
// send a DB's requests through a wrapper, derive it with DB.WithClient,
// which keeps the DB's clock, cursor keys and table name.
//
// # Keys
//
// Key templates are literal text with {Field} placeholders naming Go struct
// fields; integers take a zero-padding width ({Seq:8}; a value that does not
// fit, or a negative one, is an ErrInvalidKey, since its key would not sort
// by number) and times a layout ({At:2006-01-02}; {At} alone uses
// DefaultTimeLayout). Field values are escaped so that they never contain the
// table's delimiter ('#' by default): '#' is written %23 and '%' is written
// %25, so "u1#ORDER#x" cannot forge another entity's key, and stored keys
// parse back into fields. Key fields may be pointers. A value is absent
// only when it is a nil pointer, an empty string or a zero time (integers
// are always values, 0 included): an absent value in a table key is an
// ErrInvalidKey before any request; in an index key it leaves the item out
// of that index (a sparse index). See docs/rules.md.
//
// # Index keys are never stale
//
// Put computes every index key from the value. Update recomputes, in the
// same request, every index key that reads a changed field, and removes it
// when a key field becomes empty or the index's When condition stops
// holding; an update that cannot (because it does not give every field the
// key reads) fails before sending, naming the fields it needs.
//
// # Scale, expiry and graphs
//
// Shards spreads a hot partition over N key values and Pattern reads fan
// out over all of them, merged in sort order; a time layout in a partition
// template (DEVICE#{ID}#{At:2006-01-02-15}) buckets it by time, and a
// SortBetween read fans out over exactly the buckets it touches (fanout.go).
// Expires marks an item's expiry: every read leaves expired items out
// (ttl.go). Package graph (graph.Relate) declares a relationship read both
// ways, with counts kept in step.
//
// # Change data and model evolution
//
// Table.Decode turns any raw item into its entity's Go type; package
// stream (github.com/singletable/singletable/stream) turns stream records
// (Lambda events or the Streams API) into typed changes, dispatched by a
// handler that reports partial batch failures.
// Scans are explicit (Entity.Scan, DB.Scan: parallel segments, resumable
// positions); EnsureTable with AddMissingIndexes adds a new index to a live
// table, and package migrate (Run, BackfillIndex) rewrites an entity's
// items with keys recomputed from the current model, conditioned,
// rate-limited and resumable. Package capacity measures what each call
// consumes, estimates what each pattern and write costs and prices a
// traffic profile; package observe calls a func once per request, named
// by access pattern (docs/capacity.md, docs/observability.md).
//
// # Errors
//
// Errors match sentinels with errors.Is (ErrNotFound, ErrAlreadyExists,
// ErrConditionFailed, ErrInvalidKey, ErrInvalidModel, ErrInvalidInput,
// ErrWrongEntity) and carry details with errors.As (*ModelError, *KeyError,
// *InputError, *ConditionError, *EntityMismatchError, *UnknownEntityError);
// SDK errors stay
// reachable through them.
package singletable
