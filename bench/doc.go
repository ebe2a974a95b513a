// Package bench holds singletable's benchmarks: the library against
// hand-written aws-sdk-go-v2 code and against github.com/guregu/dynamo/v2,
// in process (BenchmarkOverhead, BenchmarkOverheadHTTP) and end to end
// against DynamoDB Local (BenchmarkEndToEnd).
//
// It is a separate module so that the peer libraries it compares with stay
// out of the library's go.mod. Run everything, and write BENCHMARKS.md at
// the repository root, with `make bench` (scripts/bench.sh).
package bench
