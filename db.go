package singletable

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/singletable/singletable/internal/bridge"
)

// DB binds a table model to a client and a physical table name: the model
// says what to send, the DB sends it. It is cheap, immutable and safe for
// concurrent use; make one per client and table.
type DB struct {
	client   Client
	admin    AdminClient
	adminSet bool // admin was given with WithAdminClient
	table    *Table
	name     string
	w        dbWrite    // write-side settings: clock, sleep
	cursor   cursorKeys // the keys that seal and open query cursors (cursor.go)
	// obs is package observe's observer, or nil (meter.go).
	obs *bridge.Observer
}

// dbWrite holds the DB's write-side settings.
type dbWrite struct {
	clock func() time.Time
	// sleep waits between batch retries; tests replace it so that they do
	// not wait for real.
	sleep func(ctx context.Context, d time.Duration) error
	// jitter returns a random duration in [0, d]; tests replace it.
	jitter func(d time.Duration) time.Duration
}

// DBOption configures a DB: WithTableName, WithAdminClient, WithClock,
// WithCursorKeys. A nil one makes New panic.
type DBOption func(*DB)

// WithTableName binds the model to another physical table than the name it
// was declared with: a per-environment or per-test table.
// An empty name makes New panic with an *InputError.
func WithTableName(name string) DBOption {
	return func(db *DB) {
		if name == "" {
			panic(&InputError{Op: "New", Reason: `WithTableName(""): the table name is empty`})
		}
		db.name = name
	}
}

// WithAdminClient sets the client used for table administration (CreateTable,
// EnsureTable, DeleteTable). By default the Client is used when it also
// implements AdminClient, as *dynamodb.Client does.
// A nil one makes New panic with an *InputError.
func WithAdminClient(a AdminClient) DBOption {
	return func(db *DB) {
		if a == nil {
			panic(&InputError{Op: "New", Reason: "WithAdminClient(nil): the admin client is nil"})
		}
		db.admin, db.adminSet = a, true
	}
}

// WithClock sets the clock that created and updated timestamps and
// expiries (ExpiresAfter) are read from, and that reads judge expired items
// by (default time.Now), so that tests can be deterministic.
// A nil one makes New panic with an *InputError.
func WithClock(now func() time.Time) DBOption {
	return func(db *DB) {
		if now == nil {
			panic(&InputError{Op: "New", Reason: "WithClock(nil): the clock is nil"})
		}
		db.w.clock = now
	}
}

// MinCursorKeyBytes is the shortest key WithCursorKeys accepts.
const MinCursorKeyBytes = 16

// WithCursorKeys sets the secret that seals query cursors, current: at least
// MinCursorKeyBytes random bytes, the same on every instance of a service
// that hands cursors out, so that a cursor issued by one is accepted by the
// others.
//
// Without it, a DB derives its cursor key from the physical table name and
// the table's key schema, so every instance of a service built from the
// same model (behind a load balancer, or after a restart) accepts the
// others' cursors. That default gives integrity, not secrecy: a cursor
// altered or issued for another table is refused, but anyone who knows the
// table name and the model can derive the key and forge a cursor (one that
// can only start a read inside the partition and sort bounds the caller's
// own params select). A secret key adds secrecy: only the service can
// issue cursors, and those of the default key are refused.
//
// A key that is too short makes every query that reads or issues a cursor
// fail with ErrInvalidInput.
//
// Cursors are sealed with current and accepted when sealed with current or
// any of previous: that is how to rotate the key without refusing the
// cursors in flight. Rotate in two steps: deploy the new key as a previous
// one everywhere, then make it current (the old one previous) once every
// instance has it; drop the old key when its cursors no longer matter.
func WithCursorKeys(current []byte, previous ...[]byte) DBOption {
	keys := make([][]byte, 0, 1+len(previous))
	keys = append(keys, slices.Clone(current))
	for _, k := range previous {
		keys = append(keys, slices.Clone(k))
	}
	return func(db *DB) { db.cursor = cursorKeys{keys: keys, set: true} }
}

// New returns a DB that sends the table's requests through client. A nil
// table, or a nil option, is a programming error that New, which returns
// no error, panics on at once (with a *ModelError, or an *InputError
// naming the option's position), rather than return a DB that would fail
// later or ignore the option.
func New(client Client, table *Table, opts ...DBOption) *DB {
	if table == nil {
		// New has no error to return, and a DB without a model can do
		// nothing: fail at once, clearly, as MustTable would have.
		panic(&ModelError{Table: "(nil)", Reason: "New: the table is nil: declare it with NewTable or MustTable"})
	}
	db := &DB{client: client, table: table, name: table.schema.Name}
	if a, ok := client.(AdminClient); ok {
		db.admin = a
	}
	for i, o := range opts {
		if o == nil {
			panic(&InputError{Op: "New", Reason: fmt.Sprintf("DBOption %d of %d is nil", i+1, len(opts))})
		}
		o(db)
	}
	db.initCursorKeys()
	return db
}

// WithClient returns a DB that sends its requests through c, with every
// other setting of db kept: the table name, the clock, the cursor keys (a
// cursor of one DB resumes on the other), the admin client given with
// WithAdminClient. Use it to wrap a DB's client (metrics, tracing, fault
// injection, a recording client in tests): New(wrapper, table) would start
// from the defaults instead, so reads would judge expiry by another clock
// and cursors would stop verifying. The admin client, when it was not
// given, is c if c implements AdminClient, else db's. db is unchanged, and
// the two share nothing that either changes.
func (db *DB) WithClient(c Client) *DB {
	d := *db
	d.client = c
	if a, ok := c.(AdminClient); ok && !db.adminSet {
		d.admin = a
	}
	d.cursor.keys = make([][]byte, len(db.cursor.keys))
	for i, k := range db.cursor.keys {
		d.cursor.keys[i] = slices.Clone(k)
	}
	return &d
}

// Table is the model the DB serves.
func (db *DB) Table() *Table { return db.table }

// TableName is the physical table name requests go to.
func (db *DB) TableName() string { return db.name }

// Client is the client requests are sent through.
func (db *DB) Client() Client { return db.client }

// checkTable makes sure there is a DB, and that an entity belongs to its
// table.
func (db *DB) checkTable(op string, m *entityModel) error {
	if db == nil {
		return &InputError{Op: op, Reason: "the DB is nil: make one with New"}
	}
	if m.table != db.table {
		return &InputError{Op: op, Reason: "entity " + m.Name + " is defined on table " + m.table.schema.Name + ", not on this DB's table " + db.table.schema.Name}
	}
	return nil
}

func (db *DB) now() time.Time {
	if db.w.clock != nil {
		return db.w.clock()
	}
	return time.Now()
}

func (db *DB) sleep(ctx context.Context, d time.Duration) error {
	if db.w.sleep != nil {
		return db.w.sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
