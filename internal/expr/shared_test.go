package expr

import (
	"reflect"
	"strconv"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSharedIntern(t *testing.T) {
	var s Shared
	a := s.Intern([]byte("SET #n0 = :v0"))
	b := s.Intern([]byte("SET #n0 = :v0"))
	assert.Equal(t, "SET #n0 = :v0", a)
	assert.Same(t, unsafeData(a), unsafeData(b), "the second is the first")
	assert.Equal(t, 0.0, testing.AllocsPerRun(100, func() { s.Intern([]byte("SET #n0 = :v0")) }))
	for i := range 2 * MaxShared {
		require.Equal(t, "x"+strconv.Itoa(i), s.Intern([]byte("x"+strconv.Itoa(i))))
	}
	assert.Equal(t, MaxShared, s.Len(), "bounded")
}

func unsafeData(s string) *byte { return unsafe.StringData(s) }

// A Builder given ShareNames builds its names map at the end: each
// request's own, never another's (a Client may modify it).
func TestSharedNames(t *testing.T) {
	var s Shared
	build := func(names ...string) map[string]string {
		var b Builder
		b.ShareNames(&s)
		for _, n := range names {
			b.Name(n)
		}
		assert.Nil(t, b.Names)
		return b.NameMap()
	}
	m1, m2 := build("status", "PK", "status"), build("status", "PK")
	assert.Equal(t, map[string]string{"#n0": "status", "#n1": "PK"}, m1)
	assert.Equal(t, m1, m2)
	assert.NotEqual(t, ptr(m1), ptr(m2), "each request's own map")
	assert.Equal(t, map[string]string{"#n0": "a", "#n1": "bc"}, build("a", "bc"))
	assert.Equal(t, map[string]string{"#n0": "ab", "#n1": "c"}, build("ab", "c"))
	assert.Equal(t, map[string]string{"#n0": "PK", "#n1": "status"}, build("PK", "status"))
	var many []string
	want := map[string]string{}
	for i := range 12 { // past the names a Builder holds in itself
		many = append(many, "f"+strconv.Itoa(i))
		want["#n"+strconv.Itoa(i)] = "f" + strconv.Itoa(i)
	}
	assert.Equal(t, want, build(many...))
	assert.Nil(t, build())
}

// ptr is where map m is, to tell one map from an equal other.
func ptr(m map[string]string) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

func TestSharedConcurrent(t *testing.T) {
	var s Shared
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				text := "SET #n" + strconv.Itoa((g+i)%20)
				assert.Equal(t, text, s.Intern([]byte(text)))
				var b Builder
				b.ShareNames(&s)
				b.Name("a" + strconv.Itoa(i%10))
				assert.Equal(t, map[string]string{"#n0": "a" + strconv.Itoa(i%10)}, b.NameMap())
			}
		}()
	}
	wg.Wait()
}
