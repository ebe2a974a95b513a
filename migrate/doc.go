// Package migrate rewrites every stored item of an entity as the current
// model renders it: [Run] applies a Go transform to each item,
// [BackfillIndex] writes the keys of an index added to the model into the
// items stored before it, and [UpgradeRevisions] writes the items stored
// at an older shape revision (package revision) in the current shape.
//
// A migration walks every item of one entity (a parallel scan, as
// singletable's Entity.Scan), decodes it, applies the transform to the
// value, and writes the item back as the current model renders it: its
// fields, its primary key and the keys of every index recomputed.
// Attributes the model does not write (another writer's) are written back
// as read. An item whose rendering equals what is stored is skipped, so a
// migration is idempotent and a crashed one can simply run again; with a
// checkpoint store ([SaveCheckpoints]) it resumes where it stopped instead
// of re-reading everything. Expired items are migrated too: a migration
// rewrites what is stored.
//
// Each write is a PutItem conditioned on the item being unchanged since it
// was read: the stored version when the entity has a version field (the
// write stores it plus one; an upgrade keeps it), and the stored shape
// revision for an entity with revisions, else every attribute equal to
// what was read and the model's other attributes still absent. An item another writer
// changed in between is read again (strongly consistent), transformed
// again and written, up to [MaxRetries] times: a concurrent change is never
// overwritten with stale data. A condition over DynamoDB's 4 KB expression
// limit (items of some 200 attributes) fails that item: declare a version
// field for such entities.
//
// Managed fields: the version goes up by one (other writers holding the
// old one get a version conflict and read again); the updated timestamp is
// left as stored unless [TouchUpdated] (a backfill is not an update of the
// item's content); unique values must not change (their guard items are
// left as they are; change them with Update).
//
// A changed primary key (a new PK or SK template) moves the item: one
// transaction deletes the old item (on the same unchanged condition) and
// puts the new one (which must not exist). Entities with unique fields
// cannot move: their guard items name the old key; such items fail with an
// *singletable.InputError (ErrInvalidInput) in the [Report].
//
// Bad options (a nil one, a zero or negative count or rate, a nil store or
// callback) are an *singletable.InputError naming the option, and nothing
// is sent. See docs/migrations.md for the whole procedure of adding an
// index to a live table.
package migrate
