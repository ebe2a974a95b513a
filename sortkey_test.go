package singletable_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/singletable/singletable"
)

type rangeReading struct {
	Device string `dynamodbav:"device"`
	Temp   int    `dynamodbav:"temp"`
	Level  uint8  `dynamodbav:"level"`
	Seq    int    `dynamodbav:"seq"`
	ID     string `dynamodbav:"id"`
}

// A range condition compares rendered keys as text: over an integer
// without zero padding, QueryBetween(Temp -5..5) returned -6 and 10 and
// missed -1, and SortGreaterThan(5) missed 10 (checked on DynamoDB Local),
// with no warning. Declaring such a pattern is an ErrInvalidModel; padded
// integers, prefixes and a field's own (numeric) attribute are fine.
func TestRangeOverUnpaddedIntegerIsRefused(t *testing.T) {
	tbl := singletable.MustTable("RangeInts", singletable.WithGSI("ByTemp"), singletable.WithGSI("BySeq", singletable.IndexKeys("device", "seq")))
	readings := singletable.MustDefine[rangeReading](tbl, "Reading",
		singletable.Key("DEV#{Device}", "R#{Seq:6}#{ID}"),
		singletable.Index("ByTemp", "TEMP#{Device}", "{Temp}#{Level}#{ID}"))
	for i, p := range []*singletable.Pattern[rangeReading]{
		readings.Pattern("Between").On("ByTemp").Partition("TEMP#{Device}").SortBetween(),
		readings.Pattern("Less").On("ByTemp").Partition("TEMP#{Device}").SortLessThan(),
		readings.Pattern("LessEq").On("ByTemp").Partition("TEMP#{Device}").SortLessOrEqual(),
		readings.Pattern("Greater").On("ByTemp").Partition("TEMP#{Device}").SortGreaterThan(),
		readings.Pattern("GreaterEq").On("ByTemp").Partition("TEMP#{Device}").SortGreaterOrEqual(),
	} {
		err := p.Err()
		require.ErrorIs(t, err, singletable.ErrInvalidModel, "pattern %d", i)
		assert.Contains(t, err.Error(), "{Temp} is an integer without zero padding")
	}
	require.NoError(t, readings.Pattern("Prefix").On("ByTemp").Partition("TEMP#{Device}").SortPrefix().Err())
	require.NoError(t, readings.Pattern("Padded").SortBetween().Err())
	require.NoError(t, readings.Pattern("Numeric").On("BySeq").Partition("{Device}").SortBetween().Err())
}

type rangeEvent struct {
	Stream string
	At     time.Time
	ID     string
}

// The same for a time layout whose text is not in time order: a range
// over "02-01-2006" read 05-01-2026 as before 06-12-2025.
func TestRangeOverUnorderedTimeLayoutIsRefused(t *testing.T) {
	tbl := singletable.MustTable("RangeTimes")
	for i, layout := range []string{"02-01-2006", "Jan 2 2006", "15:04 2006-01-02", "03:04PM 2006-01-02"} {
		name := string(rune('A' + i))
		events := singletable.MustDefine[rangeEvent](tbl, "Bad"+name, singletable.Key("S#{Stream}", name+"#{At:"+layout+"}#{ID}"))
		err := events.Pattern("Bad" + name).SortBetween().Err()
		require.ErrorIs(t, err, singletable.ErrInvalidModel, layout)
		assert.Contains(t, err.Error(), "does not sort in time order", layout)
		require.NoError(t, events.Pattern("Prefix"+name).SortPrefix().Err(), layout)
	}
	for i, layout := range []string{"2006-01-02", "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05.999", "060102", singletable.DefaultTimeLayout} {
		name := string(rune('a' + i))
		events := singletable.MustDefine[rangeEvent](tbl, "Good"+name, singletable.Key("S#{Stream}", name+"#{At:"+layout+"}#{ID}"))
		require.NoError(t, events.Pattern("Good"+name).SortGreaterThan().Err(), layout)
	}
}
