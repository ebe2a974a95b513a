package singletable

import (
	"reflect"
	"testing"
	"unsafe"
)

// setPage fills a Page through reflect, by field index: the indexes must
// name the fields they claim.
func TestSetPageFillsPageFields(t *testing.T) {
	var page Page[int]
	setPage(reflect.ValueOf(&page).Elem(), pageInfo{cursor: "c", scanned: 7, requests: 2})
	if page.Cursor != "c" || page.Scanned != 7 || page.Requests != 2 || page.Items != nil {
		t.Fatalf("setPage filled %+v", page)
	}
	pt := reflect.TypeFor[Page[int]]()
	for i, name := range map[int]string{pageItems: "Items", pageCursor: "Cursor", pageScanned: "Scanned", pageRequests: "Requests"} {
		if got := pt.Field(i).Name; got != name {
			t.Errorf("Page field %d is %s, not %s", i, got, name)
		}
	}
}

// seqOf's closure holds its readIter by value only while the compiler
// captures it so, up to 128 bytes: a bigger readIter would cost every
// iterator an allocation more.
func TestReadIterIsCapturedByValue(t *testing.T) {
	if n := unsafe.Sizeof(readIter{}); n > 128 {
		t.Fatalf("readIter is %d bytes: over 128, closures capture it by reference (an allocation); move fields into iterArgs", n)
	}
}
