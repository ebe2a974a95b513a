// Package cli is a command over a singletable model, run from a tiny main
// in the user's repository (standard library flag only):
//
//	package main
//
//	import (
//		"github.com/singletable/singletable/cli"
//		"github.com/singletable/singletable/export"
//
//		"example.com/shop/model"
//	)
//
//	func main() {
//		cli.Main(cli.Config{
//			Table:      model.Shop,
//			Export:     export.Options{Samples: model.Samples},
//			Migrations: []cli.Migration{cli.Migrate("lowercase-emails", model.Users, lowercaseEmail)},
//			Backfills:  []cli.Backfill{cli.Backfills(model.Orders)},
//		})
//	}
//
// Its subcommands:
//
//	sheet                       the access-pattern sheet (Markdown)
//	lint [-fail-on LEVEL]       the model's lint findings; exit 1 at or above LEVEL (error, warning, info, never)
//	doc                         the model document (Markdown: entities, indexes, patterns, sample items, diagram, lint)
//	export cloudformation|terraform|workbench
//	                            the table as CloudFormation (-format json|yaml), Terraform JSON or a NoSQL Workbench model
//	items                       the sample items as stored (DynamoDB JSON)
//	ensure-table                create the table, or check it (-add-missing-indexes adds the indexes it lacks)
//	diff                        the live table against the model; exit 1 on any difference
//	migrate NAME                run a registered migration
//	backfill ENTITY INDEX       write an index's keys into the items stored before it
//
// The commands that write output take -o FILE (default standard output).
// The ones that reach DynamoDB take -table NAME (the physical table name)
// and connect with Config.Client, by default the AWS SDK's default
// configuration (environment, shared files, AWS_ENDPOINT_URL_DYNAMODB).
// migrate and backfill take -dry-run, -segments N (at least 1; left out,
// migrate's default), -rate N (items per second; 0 is no limit) and
// -checkpoint FILE (a run resumed from it retries the items that failed
// before: running until exit 0 migrates every item). Wrong arguments (a table name DynamoDB refuses, an
// index the entity writes no key into, -format on an export other than
// cloudformation) are found before connecting: exit 2, nothing sent.
//
// Exit codes fit CI: 0 success, 1 a check failed (lint findings at or above
// the chosen severity, differences from the live table or a table
// ensure-table cannot make as the model declares, failed migration items),
// 2 a usage error, 3 an error running the command.
package cli
