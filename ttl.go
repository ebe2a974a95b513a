package singletable

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Time to live
//
// A table declared WithTTL("ttl") names the attribute DynamoDB's time to
// live reads: seconds since the Unix epoch, after which the service deletes
// the item, lazily (typically within a couple of days). An entity's expiry
// field is the field stored under that attribute: a time.Time tagged
// `dynamodbav:"ttl,unixtime"` or an integer of epoch seconds, or a pointer
// to either (nil: no expiry). Declare it
// with Expires (or the tag `singletable:"expires"`); a field stored under
// the TTL attribute is the entity's expiry even undeclared, since DynamoDB
// deletes by the attribute either way.
//
// Every read leaves out the items whose expiry has passed, as if they were
// already deleted: Entity.Get and Pattern.Get return ErrNotFound, queries
// (patterns, Entity.Query, collections) and their iterators skip them,
// BatchGet returns nil in their place, a transactional read reports them
// not found, scans (Entity.Scan, DB.Scan) skip them; migrations, which
// rewrite what is stored, see them. An item is expired when its expiry is at or before the DB's
// clock (WithClock), to the second: AWS's guide filters "where the TTL time
// is equal to or less than the current time"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ttl-expired-items.html).
// An item with no expiry (the attribute absent, zero or negative, or not a
// number) never expires. IncludeExpired reads them anyway.
//
// The check is made by the library on the items DynamoDB returns, not by a
// FilterExpression: GetItem, BatchGetItem and TransactGetItems take no
// filter, so one rule serves every read; the requests stay what they were
// (a filter saves no read capacity: filtered items are paid for all the
// same); and the clock is the DB's, which a test controls. Limit counts the
// items returned, so a query reads on past expired ones, and a cursor
// resumes after the last item read, expired or not.
//
// An index that does not project the TTL attribute (KEYS_ONLY, or INCLUDE
// without it) cannot tell an expired item from a live one: a query of such
// an index is refused unless it fetches whole items (FetchFull, which
// checks them) or passes IncludeExpired. Project always asks for the TTL
// attribute too.

// IncludeExpired makes a read return items whose expiry has passed but
// which DynamoDB has not deleted yet. It applies to every read: Get,
// queries, BatchGet, TxGet and scans.
func IncludeExpired() interface {
	GetOption
	PatternGetOption
	EntityQueryOption
	CollectionOption
	BatchGetOption
	ScanOption
} {
	return readOpt{setIncludeExpired}
}

func setIncludeExpired(s *settings) { s.read.includeExpired = true }

// absent is the condition of a Create of the entity at now: the item does
// not exist, or has expired. To a read an expired item is absent, so a
// Create (a session or an invite made again) must not fail on it while
// DynamoDB has not deleted it yet.
func (m *entityModel) absent(now time.Time) Cond {
	if m.managed.expires == nil {
		return m.table.notExists
	}
	return Or(m.table.notExists, m.expiredBy(now))
}

// expiredBy is the condition that the item has expired by now: its expiry
// is in (0, now], as expiryCheck judges a read's items. A missing item has
// not expired.
func (m *entityModel) expiredBy(now time.Time) Cond {
	return expiredAt(m.managed.expires.GoName, now)
}

// expiredAt is the condition that name (a field, or a guard item's TTL
// attribute) holds an expiry in (0, now].
func expiredAt(name string, now time.Time) Cond {
	return And(
		Gt(name, &types.AttributeValueMemberN{Value: "0"}),
		Le(name, &types.AttributeValueMemberN{Value: strconv.FormatInt(now.Unix(), 10)}))
}

// upsertsReplace reports whether an upsert of m treats an expired item as
// absent: one that is not conditioned on it is live (planUpdate), and that
// Update replaces by deleting it first (removeExpired). Not with unique
// fields: the expired item's guards stay until DynamoDB deletes them, and
// a new item's would conflict with them.
func (m *entityModel) upsertsReplace() bool {
	return m.managed.expires != nil && len(m.managed.unique) == 0
}

// removeExpired deletes the item an upsert found expired (err, its failed
// condition, holds the item), on the condition that it still holds that
// expiry, and reports whether the upsert may be sent again: the item is
// gone, by this delete or another write.
func (m *entityModel) removeExpired(ctx context.Context, db *DB, err error) bool {
	var ce *ConditionError
	if !m.upsertsReplace() || !errors.As(err, &ce) || !db.expiryFor(&noOptions, m).expired(ce.Item) {
		return false
	}
	_, err = db.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(db.name), Key: ce.Key,
		ConditionExpression:       aws.String("#ttl = :ttl"),
		ExpressionAttributeNames:  map[string]string{"#ttl": m.table.schema.TTLAttr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":ttl": ce.Item[m.table.schema.TTLAttr]}})
	return err == nil || errors.As(err, new(*types.ConditionalCheckFailedException))
}

// expiryCheck tells a read's expired items: those whose attr holds epoch
// seconds in (0, now], and whose own entity has an expiry. The zero check
// (no attr) passes every item.
type expiryCheck struct {
	attr string
	now  int64
	// t, when set, is the table whose entities judge their items: an item
	// of an entity with no expiry, or of a type the table does not
	// register, never expires, whatever its TTL attribute holds (the
	// attribute may be shared). Without it, or for an item whose type is
	// not read (a keys-only index), the TTL attribute alone decides.
	t *Table
}

// expired reports whether item has expired.
func (c expiryCheck) expired(item map[string]types.AttributeValue) bool {
	if c.attr == "" {
		return false
	}
	at, ok := expiryAt(item[c.attr])
	// Past its expiry first: the entity is looked up only then.
	return ok && at <= float64(c.now) && c.expires(item)
}

// expires reports whether item's own entity has an expiry (see t).
func (c expiryCheck) expires(item map[string]types.AttributeValue) bool {
	if c.t == nil {
		return true
	}
	typ, ok := item[c.t.schema.TypeAttr].(*types.AttributeValueMemberS)
	if !ok {
		if c.t.schema.TypeByKeys {
			// Of its entity by its keys; of none or several: it expires.
			if found := c.t.byKeys("expiry", item); len(found) == 1 {
				return found[0].managed.expires != nil
			}
		}
		return true
	}
	c.t.mu.RLock()
	m := c.t.entities[typ.Value]
	c.t.mu.RUnlock()
	return m != nil && m.managed.expires != nil
}

// expiryAt reads a TTL attribute's value: the epoch seconds DynamoDB
// expires the item at; ok is false when it has none (absent, not a
// number, zero or negative).
func expiryAt(av types.AttributeValue) (at float64, ok bool) {
	n, isN := av.(*types.AttributeValueMemberN)
	if !isN {
		return 0, false
	}
	if i, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
		return float64(i), i > 0
	}
	// A number written by other code: DynamoDB reads it all the same.
	f, err := strconv.ParseFloat(n.Value, 64)
	return f, err == nil && f > 0
}

// expiryFor is the expiry check of a read of entities ms (none: any of
// the table's) with settings s: none when the table has no TTL attribute,
// IncludeExpired is given, or no entity read has an expiry. Each item is
// judged by its own entity's expiry. It reads the DB's clock once, for the
// read.
func (db *DB) expiryFor(s *settings, ms ...*entityModel) expiryCheck {
	if db.table.schema.TTLAttr == "" || s.read.includeExpired {
		return expiryCheck{}
	}
	check := expiryCheck{attr: db.table.schema.TTLAttr, now: db.now().Unix(), t: db.table}
	if len(ms) == 0 {
		return check
	}
	for _, m := range ms {
		if m.managed.expires != nil {
			return check
		}
	}
	return expiryCheck{}
}

// at is c judged at now instead (a transactional read's, taken at Run).
func (c expiryCheck) at(now int64) expiryCheck {
	c.now = now
	return c
}

// expires reports whether an entity the read returns has an expiry.
func (d *readDecl) expires() bool {
	for _, m := range d.entities {
		if m.managed.expires != nil {
			return true
		}
	}
	return false
}

// checkExpiry refuses a query that would return expired items unseen: one
// of an index that does not carry the TTL attribute, unless it fetches the
// whole items.
func (d *readDecl) checkExpiry(op string, s *settings, c expiryCheck) error {
	if c.attr == "" || s.read.fetchFull || d.projects(c.attr) {
		return nil
	}
	return &InputError{Op: op, Reason: fmt.Sprintf("index %s (%s) does not project the TTL attribute %s, so expired items cannot be left out: add FetchFull() (whole items are checked), IncludeExpired(), or project %s into the index", d.index.index.Name, d.index.index.Projection, c.attr, c.attr)}
}

// expiryNote is what the sheet says of an entity's expiry.
func expiryNote(m *entityModel) string {
	f := m.managed.expires
	switch {
	case f == nil:
		return ""
	case m.managed.expiresAfter > 0:
		return " (expires: " + f.GoName + ", " + m.managed.expiresAfter.String() + " after write)"
	}
	return " (expires: " + f.GoName + ")"
}
