package singletable

// readSettings is what the read-side options add up to; settings holds one.
type readSettings struct {
	cursor    string
	filter    Cond
	project   []string
	hasCursor bool
	fetchFull bool
	ascending bool
	partial   bool
	// sortFields is SortFields' n, when hasSortFields; timePrec is
	// PartialTime's precision (0: PartialMatch).
	hasSortFields bool
	sortFields    int
	timePrec      TimePrecision
}

// After resumes a query after the page that returned cursor (Page.Cursor).
// The cursor must come from the same pattern, partition, sort bounds and
// sort direction, read through a DB that has its cursor key (see
// WithCursorKey); any other, or a tampered one, is a *CursorError
// (ErrInvalidCursor) and no request is sent. An empty cursor starts from
// the beginning.
func After(cursor string) QueryOption {
	return queryOpt{func(s *settings) { s.read.cursor, s.read.hasCursor = cursor, true }}
}

// Filter keeps only the items for which c holds, on fields that are not
// keys of the index read. DynamoDB applies filters after reading: filtered
// items still cost read capacity (and count toward the 1 MB page), so a
// pattern that filters most of what it reads is a sign that it needs its own
// key or index. Limit still counts matching items: the query reads further
// pages until it has them. Several Filter options must all hold.
func Filter(c Cond) QueryOption {
	return queryOpt{func(s *settings) { s.read.filter = And(s.read.filter, c) }}
}

// Project asks only for the named fields (Go names), to save bandwidth.
// DynamoDB still charges for the whole item read. The keys and the entity
// type are always fetched too, so results decode and paginate as usual;
// fields written in the item's key templates are recovered from the keys;
// the other fields are left at their zero values.
func Project(fields ...string) QueryOption {
	fs := append([]string(nil), fields...)
	return queryOpt{func(s *settings) { s.read.project = append(s.read.project, fs...) }}
}

// FetchFull makes a query on a KEYS_ONLY or INCLUDE index return complete
// items: after each page, one BatchGetItem (per 100 items) reads them from
// the table. Without it, such a query returns what the index holds: the
// fields recoverable from the keys, plus the included attributes. An item
// deleted between the query and the batch read is left out.
func FetchFull() QueryOption { return queryOpt{setFetchFull} }

func setFetchFull(s *settings) {
	s.read.fetchFull = true
}

// Ascending returns query results in ascending sort-key order, overriding a
// pattern declared Descending.
func Ascending() QueryOption { return queryOpt{setAscending} }

func setAscending(s *settings) {
	s.read.ascending = true
}

// PartialMatch lets the last sort field given in params match as a prefix
// of the stored value, for SortPrefix patterns: Date "2024-01" matches every
// date of January 2024. Without it, a sort prefix always ends after a whole
// value ("ORDER#1#"), so that ID 1 never matches ID 10. The last given field
// must be a string; for a time.Time, see PartialTime.
func PartialMatch() QueryOption { return queryOpt{setPartialMatch} }

func setPartialMatch(s *settings) {
	s.read.partial, s.read.timePrec = true, 0
}

// PartialTime lets the last sort field given in params, a time.Time, match
// every time of the same year, month, day or hour, for SortPrefix
// patterns: with precision Month, At 2026-02-14 (any day of it) matches
// every key whose At is in February 2026: begins_with "TRANSACTION#2026-02"
// for "TRANSACTION#{At}". The field's layout must render that precision as
// its leading characters (DefaultTimeLayout and "2006-01-02" do, down to
// the hour and the day); a layout that does not is an ErrInvalidInput.
func PartialTime(precision TimePrecision) QueryOption {
	return queryOpt{func(s *settings) { s.read.partial, s.read.timePrec = true, precision }}
}

// SortFields says how far the sort prefix of the params goes: the first n
// fields of the sort template are given, the others are not (0: none).
// Sort conditions otherwise stop at the first absent value (a nil pointer,
// an empty string, a zero time), and an integer is never absent: 0 is a
// value. So with "DOC#{ID}#{Seq:3}", Doc{ID: "d1"} asks for Seq 0 ("DOC#d1#000"),
// and Doc{ID: "d1"} with SortFields(1) for every Seq of d1 ("DOC#d1#"). A
// field within the first n without a value, or one after them with a
// value other than its zero, is an ErrInvalidInput. It applies to the sort
// conditions taken from params (SortPrefix, SortBetween's bounds, the
// comparisons).
func SortFields(n int) QueryOption {
	return queryOpt{func(s *settings) { s.read.sortFields, s.read.hasSortFields = n, true }}
}
