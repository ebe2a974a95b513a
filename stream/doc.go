// Package stream consumes the DynamoDB stream of a singletable table: it
// turns stream records into typed changes of the table's entities and
// dispatches them, in a Lambda function or in any program that reads the
// stream.
//
// A table declared with singletable.WithStream has a stream, which
// EnsureTable enables (that, and DB.StreamARN, stay in package
// singletable). Its records come to a Lambda function as an
// events.DynamoDBEvent, or to any program through the DynamoDB Streams API
// (Read); both convert into one Record (FromLambda, FromStreams). Decode
// turns a record of an entity into a typed Change, with the value before
// and after and the fields that changed; a Handler dispatches each record
// to the functions registered for its entity and event (On), and reports
// the first failing record of a Lambda batch in BatchItemFailures
// (HandleLambda).
//
// The package is separate so that only the programs that consume a stream
// compile aws-lambda-go and the Streams client: package singletable
// imports neither. See docs/streams.md.
package stream
