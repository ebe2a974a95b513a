package singletable

// DB binds a table model to a client and a physical table name: the model
// says what to send, the DB sends it. It is cheap, immutable and safe for
// concurrent use; make one per client and table.
type DB struct {
	client Client
	admin  AdminClient
	table  *Table
	name   string
	w      dbWrite    // write-side settings: clock, sleep (options_write.go)
	cursor cursorKeys // the keys that seal and open query cursors (cursor.go)
}

// DBOption configures a DB.
type DBOption func(*DB)

// WithTableName binds the model to another physical table than the name it
// was declared with: a per-environment or per-test table.
func WithTableName(name string) DBOption { return func(db *DB) { db.name = name } }

// WithAdminClient sets the client used for table administration (CreateTable,
// EnsureTable, DeleteTable). By default the Client is used when it also
// implements AdminClient, as *dynamodb.Client does.
func WithAdminClient(a AdminClient) DBOption { return func(db *DB) { db.admin = a } }

// New returns a DB that sends the table's requests through client.
func New(client Client, table *Table, opts ...DBOption) *DB {
	if table == nil {
		// New has no error to return, and a DB without a model can do
		// nothing: fail at once, clearly, as MustTable would have.
		panic(&ModelError{Table: "(nil)", Reason: "New: the table is nil: declare it with NewTable or MustTable"})
	}
	db := &DB{client: client, table: table, name: table.name}
	if a, ok := client.(AdminClient); ok {
		db.admin = a
	}
	for _, o := range opts {
		o(db)
	}
	db.initCursorKeys()
	return db
}

// Table is the model the DB serves.
func (db *DB) Table() *Table { return db.table }

// TableName is the physical table name requests go to.
func (db *DB) TableName() string { return db.name }

// Client is the client requests are sent through.
func (db *DB) Client() Client { return db.client }

// checkTable makes sure an entity belongs to the DB's table.
func (db *DB) checkTable(op string, m *entityModel) error {
	if m.table != db.table {
		return &InputError{Op: op, Reason: "entity " + m.name + " is defined on table " + m.table.name + ", not on this DB's table " + db.table.name}
	}
	return nil
}
