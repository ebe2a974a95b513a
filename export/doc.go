// Package export takes a singletable model out of Go: the table as
// infrastructure (CloudFormation's AWS::DynamoDB::Table, JSON or YAML, and
// Terraform's aws_dynamodb_table, JSON), the model as a NoSQL Workbench data
// model, and a Markdown document for reviewers who do not read Go.
//
// Every export is a pure function of the model and the Options: the same
// model gives the same bytes, so a pull request's diff of a committed
// export shows a design change. The tables the infrastructure exports
// declare are the ones EnsureTable creates (the same keys, attribute
// definitions, indexes and projections, TTL, stream and billing), as the
// package's tests check against DynamoDB Local.
//
// Sample items come from Go values of the entities' types (Options.Samples):
// each is stored as its entity renders it, keys and index keys included.
// Relations between entities (package graph's) are an input of the
// document's diagram: Options.Relations.
//
// Package cli runs these exports, and the model's sheet, lint, a live
// table's differences, EnsureTable and migrations, as a command.
package export
