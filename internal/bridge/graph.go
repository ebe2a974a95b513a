package bridge

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/keys"
)

// Graph is what package graph needs beyond the root's public API; the
// root's bridge_graph.go fills it in. An entity is a *singletable.Entity[X],
// a transaction a *singletable.Tx and a database a *singletable.DB, each
// passed as any.
var Graph struct {
	// Model describes entity's declaration, for Relate's checks; nil for a
	// nil entity.
	Model func(entity any) *GraphModel
	// Transact sends the actions build adds to a fresh transaction, as
	// DB.Transact does, under the operation name op (errors and a TxError's
	// Op name it), with opts (singletable.TxOption values: capacity.Into). A build that failed to plan an action returns
	// that error, and nothing is sent.
	Transact func(ctx context.Context, db any, op string, build func(tx any), opts []any) error
	// Live is the condition that an item of entity has not expired by
	// db's clock (a singletable.Cond); the zero Cond for an entity that
	// does not expire.
	Live func(db, entity any) any
	// DBOf is the DB (a *singletable.DB) transaction tx (a *singletable.Tx)
	// is built for.
	DBOf func(tx any) any
	// Wait waits as db does before the retry-th retry (from 1) of a
	// request (singletable.DefaultRetryPolicy, db's jitter, and no wait
	// under singletabletest.NoRetryDelay); ctx's end stops it.
	Wait func(ctx context.Context, db any, retry int) error
	// PlanLink adds to tx the put of edge v (a value of the edge entity's
	// struct, which it changes: managed fields) and of its mirror (nil for
	// none), stamped with one clock reading. With old nil, the edge is
	// created: it must not exist, expired or not. Else old is the stored
	// edge, expired, that the put replaces: conditioned on its expiry being
	// unchanged.
	PlanLink func(tx, edge, mirror any, v reflect.Value, old map[string]types.AttributeValue)
	// Expired reports whether item, stored by entity, has expired by db's
	// clock.
	Expired func(db, entity any, item map[string]types.AttributeValue) bool
	// SameItem reports whether a and b, values of entity's struct, are the
	// key of one item (false if either has no valid key).
	SameItem func(entity any, a, b reflect.Value) bool
	// Upserts reports whether opts (a []singletable.UpdateOption) holds
	// Upsert.
	Upserts func(opts any) bool
	// TxFail adds err to tx (a *singletable.Tx), which then sends nothing
	// and fails with it, as an action that could not be planned does.
	TxFail func(tx any, err error)
}

// GraphModel is the part of an entity's declaration that Relate checks.
type GraphModel struct {
	Name string // the entity's name
	// Fields are the struct's fields.
	Fields *codec.Fields
	// KeyFields are the fields the primary key reads, in field order,
	// then its key-only ones (no attribute, not in Fields).
	KeyFields []*codec.Field
	// PK is the primary key's partition template.
	PK *keys.Template
	// Indexes are the GSIs the entity is in.
	Indexes []GraphIndex
	// Versioned and Unique say whether the entity has a version field or
	// unique fields; Managed whether the named field is one of those.
	Versioned, Unique bool
	Managed           func(goName string) bool
	// Expires is the expiry field, nil for none.
	Expires *codec.Field
	// Exists is the condition (a singletable.Cond) that an item of the
	// entity exists: its partition key attribute does.
	Exists any
}

// GraphIndex is a GSI an entity is in.
type GraphIndex struct {
	Name string
	PK   *keys.Template // its partition template
	// DependsOn reports whether writing the entity's index key reads the
	// named field (its templates or its condition).
	DependsOn func(goName string) bool
}

// GraphLinkOption and GraphUnlinkOption seal package graph's LinkOption
// and UnlinkOption by a method of this package's: only a type that embeds
// GraphLink (GraphUnlink) has it, and only graph's own options and the
// root's capacity option (capacity.Into) do. So Link and Unlink take
// capacity.Into but no other option of the core's, and no core operation
// takes a graph option: each a compile error.
type (
	GraphLinkOption   interface{ graphLinkOption() }
	GraphUnlinkOption interface{ graphUnlinkOption() }
)

// GraphLink and GraphUnlink, embedded in an option type, make it a
// GraphLinkOption (GraphUnlinkOption).
type (
	GraphLink   struct{}
	GraphUnlink struct{}
)

func (GraphLink) graphLinkOption()     {}
func (GraphUnlink) graphUnlinkOption() {}
