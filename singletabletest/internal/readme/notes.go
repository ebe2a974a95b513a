// Package notes keeps notes in a single DynamoDB table.
package notes

import (
	"context"

	"github.com/singletable/singletable"
)

// Note is one note.
type Note struct {
	ID   string `dynamodbav:"id"`
	Text string `dynamodbav:"text"`
}

// Table is the notes' table; Notes their entity on it.
var (
	Table = singletable.MustTable("Notes")
	Notes = singletable.MustDefine[Note](Table, "Note", singletable.Key("NOTE#{ID}", "NOTE"))
)

// Import writes many notes in batches, retrying what DynamoDB leaves
// unprocessed.
func Import(ctx context.Context, db *singletable.DB, ns []Note) error {
	return db.BatchWrite(ctx, []singletable.BatchOp{singletable.BatchPut(Notes, ns...)})
}
