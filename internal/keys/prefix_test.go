package keys

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A time prefix is the leading text every time of the period shares and no
// other time has; a layout without one for the precision is refused.
func TestTimePrefix(t *testing.T) {
	feb := time.Date(2026, 2, 14, 9, 30, 0, 0, time.UTC)
	jan1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		at     time.Time
		layout string
		prec   Precision
		want   string // "" for an error
	}{
		{feb, DefaultTimeLayout, Year, "2026-"},
		{feb, DefaultTimeLayout, Month, "2026-02-"},
		{feb, DefaultTimeLayout, Day, "2026-02-14T"},
		{feb, DefaultTimeLayout, Hour, "2026-02-14T09:"},
		{feb, "2006-01-02", Day, "2026-02-14"},
		{feb, "2006-01-02", Hour, ""},
		{feb, "02-01-2006", Month, ""},
		{feb, "20060102", Month, "202602"},
		{jan1, "2006-1-2", Day, ""},          // would match Jan 10 to 19
		{jan1, "2006-1-2", Month, "2026-1-"}, // the separator keeps October out
	} {
		got, err := timePrefix(c.at, c.layout, c.prec)
		if c.want == "" {
			assert.Error(t, err, "%s %s", c.layout, c.prec)
			continue
		}
		require.NoError(t, err, "%s %s", c.layout, c.prec)
		assert.Equal(t, c.want, got, "%s %s", c.layout, c.prec)
	}
}
