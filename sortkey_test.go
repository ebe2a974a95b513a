package singletable_test

import (
	"testing"

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
