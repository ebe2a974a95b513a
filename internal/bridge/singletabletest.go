package bridge

// What package singletabletest needs of the root: a DB option that the
// root's DBOption cannot be built from outside (the batch backoff is
// unexported). Filled in by the root's bridge_singletabletest.go.

// NoRetryDelay returns a singletable.DBOption (as any) that makes the DB's
// batch retries immediate: the backoff before each retry is zero.
var NoRetryDelay func() any
