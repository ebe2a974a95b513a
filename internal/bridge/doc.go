// Package bridge hands the library's own packages (stream, migrate, graph)
// what the root package keeps unexported, without exporting it to users.
//
// The root package fills in the variables of this package in its init
// functions (one root file bridge_<package>.go per consumer, beside one
// file here); a consumer imports both the root package, whose init has
// then run, and this one. Go's internal rule keeps it out of users' reach.
// internal/ never imports the root package, so the values passed through
// here are the root's exported types (as any) or types of internal
// packages.
package bridge
