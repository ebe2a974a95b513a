// Package golden renders SDK requests as stable, readable JSON and compares
// them with files under testdata/, so that request building is tested
// without a network. Run tests with -update to rewrite the files.
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

// Assert compares JSON(v) with testdata/golden/<name>.json, or writes the
// file when the test runs with -update.
func Assert(t testing.TB, name string, v any) {
	t.Helper()
	got := JSON(v)
	path := filepath.Join("testdata", "golden", name+".json")
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
		t.Errorf("request differs from %s (run with -update if the change is intended)\n--- got\n%s--- want\n%s", path, got, want)
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
