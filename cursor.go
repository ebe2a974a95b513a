package singletable

import (
	"crypto/sha256"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/read"
)

// Cursors
//
// A page's Cursor is DynamoDB's LastEvaluatedKey (or the key of the last
// item returned, when a page stops early), bound to the pattern's name, its
// partition value, its sort-key condition (the bounds the params,
// QueryBetween's upper one or PartialMatch gave) and its sort direction,
// and sealed with
// HMAC-SHA256 under the DB's cursor key. It is an opaque base64url string,
// safe to hand to a client. It is not encrypted: it reveals the key of the
// last item read. A cursor that was altered, or comes from another pattern,
// another partition, other sort bounds or the other direction, or whose
// start key lies outside the read's partition or sort bounds, is a
// *CursorError matching ErrInvalidCursor, and no request is sent.
//
// The sort bounds are bound rather than checked against the cursor's key:
// a cursor resumes one query, and a query whose bounds changed while its
// cursor was kept would silently skip the items between its new start and
// the cursor, or be refused by DynamoDB (ValidationException) when the
// cursor's key lies outside the new bounds.
//
// Cursor keys: the default, derived from the table, and secret ones with
// rotation; see WithCursorKeys. Sealing and opening
// are the read engine's (internal/read).

// cursorKeys are the keys a DB seals and opens cursors with: keys[0] seals,
// every key opens. New fills them in (see DB.initCursorKeys).
type cursorKeys struct {
	keys    [][]byte
	set     bool   // given with WithCursorKeys(s); else derived by New
	invalid string // why the given keys are refused; "" if they are not
}

// initCursorKeys checks the keys given, or derives the default key: New
// calls it once the options are applied (the table name is one of them).
func (db *DB) initCursorKeys() {
	c := &db.cursor
	if !c.set {
		c.keys = [][]byte{defaultCursorKey(db.name, db.table)}
		return
	}
	for i, k := range c.keys {
		if len(k) >= MinCursorKeyBytes {
			continue
		}
		if i == 0 {
			c.invalid = fmt.Sprintf("the cursor key is %d bytes; WithCursorKeys needs at least %d", len(k), MinCursorKeyBytes)
		} else {
			c.invalid = fmt.Sprintf("previous cursor key %d is %d bytes; WithCursorKeys needs at least %d", i, len(k), MinCursorKeyBytes)
		}
		return
	}
}

// defaultCursorKey derives a DB's default cursor key from the physical
// table name and the table's key schema: the same in every process that
// serves the table with the same model (see Cursors). The indexes and
// entities are left out, so that a deployment adding one keeps the cursors
// in flight valid; a cursor of an index is checked against its key
// attributes anyway.
func defaultCursorKey(name string, t *Table) []byte {
	h := sha256.New()
	for _, s := range []string{"singletable default cursor key v1", name, t.schema.PK, t.schema.SK, string(t.schema.Delim)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// cursorSecret returns the key that seals the DB's cursors.
func (db *DB) cursorSecret(op string) ([]byte, error) {
	if db.cursor.invalid != "" {
		return nil, &InputError{Op: op, Reason: db.cursor.invalid}
	}
	return db.cursor.keys[0], nil
}

// openCursor checks a cursor of the read b binds against the DB's cursor
// keys, and returns the ExclusiveStartKey it carries.
func (db *DB) openCursor(b *read.Binding, cursor string) (map[string]types.AttributeValue, error) {
	key, reason := read.OpenCursor(db.cursor.keys, b, cursor)
	if reason != "" {
		return nil, &CursorError{Pattern: b.Pattern, Reason: reason}
	}
	return key, nil
}

// cursorError makes the *CursorError of a token the engine refused to open
// (a *read.Refusal) for pattern; other errors are returned as they are.
func cursorError(pattern string, err error) error {
	if rf, ok := err.(*read.Refusal); ok {
		return &CursorError{Pattern: pattern, Reason: rf.Reason}
	}
	return err
}

// cursor seals the key to resume from; "" at the end.
func (r *readReq) cursor(next map[string]types.AttributeValue) (string, error) {
	c, err := r.Cursor(next)
	if err != nil {
		return "", &InputError{Op: r.Op, Reason: err.Error()}
	}
	return c, nil
}
