// Package golden renders SDK requests as stable, readable JSON and compares
// them with golden files, so that request building is tested without a
// network.
//
// Golden files are grouped by operation: a case is named
// "<operation>/<case>" (for example "update/status" or "txn/place_order")
// and lives in testdata/golden/<operation>/<case>.json, or .md for the
// sheet. Every test calls [Request] (SDK inputs) or [Markdown] (rendered
// text); both derive the path the same way.
//
// Run the tests with -update to rewrite the files after an intended change:
//
//	go test -run TestX . -update
package golden

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var update = flag.Bool("update", false, "rewrite golden files")

// JSON renders v (an SDK input or output) as indented JSON: nil fields are
// left out, attribute values are in DynamoDB JSON ({"S": "x"}), map keys are
// sorted.
func JSON(v any) []byte {
	b, err := json.MarshalIndent(plain(reflect.ValueOf(v)), "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// Request compares JSON(v) with testdata/golden/<operation>/<case>.json,
// where name is "<operation>/<case>", or writes the file under -update.
func Request(t testing.TB, name string, v any) {
	t.Helper()
	compare(t, path(t, name, ".json"), JSON(v))
}

// Markdown compares text with testdata/golden/<operation>/<case>.md, where
// name is "<operation>/<case>", or writes the file under -update.
func Markdown(t testing.TB, name, text string) {
	t.Helper()
	compare(t, path(t, name, ".md"), []byte(text))
}

// File compares got with the file at path (a package's own layout of
// golden files, e.g. export's testdata/<model>/<format>), or writes it
// under -update.
func File(t testing.TB, path string, got []byte) {
	t.Helper()
	compare(t, path, got)
}

// path is the file of the golden case name ("<operation>/<case>") with the
// extension ext; it fails the test when name is not of that form, so that
// every file sits in its operation's folder.
func path(t testing.TB, name, ext string) string {
	t.Helper()
	op, c, ok := strings.Cut(name, "/")
	if !ok || op == "" || c == "" || strings.Contains(c, "/") {
		t.Fatalf("golden case %q: want \"<operation>/<case>\"", name)
	}
	return filepath.Join("testdata", "golden", op, c+ext)
}

func compare(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run the test with -update to create it)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("differs from %s (run with -update if the change is intended)\n--- got\n%s--- want\n%s", path, got, want)
	}
}

var avType = reflect.TypeOf((*types.AttributeValue)(nil)).Elem()

// plain converts a value to maps, slices and scalars for encoding/json.
func plain(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(avType) && v.Kind() != reflect.Interface {
		return attributeValue(v.Interface().(types.AttributeValue))
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return plain(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			fv := v.Field(i)
			if fv.IsZero() {
				continue
			}
			out[f.Name] = plain(fv)
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			out[k.String()] = plain(v.MapIndex(k))
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes())
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plain(v.Index(i))
		}
		return out
	default:
		return v.Interface()
	}
}

func attributeValue(av types.AttributeValue) any {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return map[string]any{"S": v.Value}
	case *types.AttributeValueMemberN:
		return map[string]any{"N": v.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(v.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": v.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": v.Value}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": v.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": v.Value}
	case *types.AttributeValueMemberBS:
		bs := make([]string, len(v.Value))
		for i, b := range v.Value {
			bs[i] = base64.StdEncoding.EncodeToString(b)
		}
		return map[string]any{"BS": bs}
	case *types.AttributeValueMemberL:
		l := make([]any, len(v.Value))
		for i, e := range v.Value {
			l[i] = attributeValue(e)
		}
		return map[string]any{"L": l}
	case *types.AttributeValueMemberM:
		m := map[string]any{}
		for k, e := range v.Value {
			m[k] = attributeValue(e)
		}
		return map[string]any{"M": m}
	}
	return nil
}
