package export_test

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
	"github.com/singletable/singletable/internal/testmodel"
)

// TestYAMLReadsAsJSON reads every YAML template back with a YAML parser:
// it must be the JSON template, value for value.
func TestYAMLReadsAsJSON(t *testing.T) {
	for _, m := range models() {
		t.Run(m.name, func(t *testing.T) {
			j, err := export.CloudFormationJSON(m.table, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			y, err := export.CloudFormationYAML(m.table, m.opts)
			if err != nil {
				t.Fatal(err)
			}
			var fromJSON, fromYAML any
			if err := json.Unmarshal(j, &fromJSON); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(y, &fromYAML); err != nil {
				t.Fatal(err)
			}
			// YAML reads integers as int, JSON as float64: compare through JSON.
			b, err := json.Marshal(fromYAML)
			if err != nil {
				t.Fatal(err)
			}
			var yamlAsJSON any
			_ = json.Unmarshal(b, &yamlAsJSON)
			if !reflect.DeepEqual(fromJSON, yamlAsJSON) {
				t.Errorf("the YAML template reads as\n%s\nnot as the JSON one\n%s", b, j)
			}
		})
	}
}

// TestYAMLQuotesAmbiguousStrings: strings YAML would read as something else
// are quoted, and read back as the same strings.
func TestYAMLQuotesAmbiguousStrings(t *testing.T) {
	tbl := st.MustTable("yes", st.WithTypeAttribute("true"), st.WithGSI("0123", st.IndexKeys("null", "1e3")))
	y, err := export.CloudFormationYAML(tbl, export.Options{TableName: "off"})
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.Unmarshal(y, &v); err != nil {
		t.Fatal(err)
	}
	props := v["Resources"].(map[string]any)["yesTable"].(map[string]any)["Properties"].(map[string]any)
	if props["TableName"] != "off" {
		t.Errorf("TableName reads as %#v", props["TableName"])
	}
	g := props["GlobalSecondaryIndexes"].([]any)[0].(map[string]any)
	if g["IndexName"] != "0123" {
		t.Errorf("IndexName reads as %#v", g["IndexName"])
	}
	ks := g["KeySchema"].([]any)
	if ks[0].(map[string]any)["AttributeName"] != "null" || ks[1].(map[string]any)["AttributeName"] != "1e3" {
		t.Errorf("index keys read as %#v", ks)
	}
}

// TestOptionsRefused: wrong options are an *st.InputError naming the
// option, and no export is made.
func TestOptionsRefused(t *testing.T) {
	onDemand := testmodel.NewSeed().Table
	provisioned := st.MustTable("Prov", st.WithProvisioned(1, 1))
	streamed := st.MustTable("Streamed", st.WithStream(st.StreamNewAndOldImages), st.WithProvisioned(1, 1))
	cases := []struct {
		name  string
		table *st.Table
		opts  export.Options
		want  string
	}{
		{"autoscaling on demand", onDemand, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 70}}, "Options.AutoScaling"},
		{"autoscaling min 0", provisioned, export.Options{AutoScaling: &export.AutoScaling{MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 70}}, "MinRead"},
		{"autoscaling max < min", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: 3, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 70}}, "MaxRead"},
		{"autoscaling target", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 95}}, "TargetUtilization"},
		{"replicas without stream", onDemand, export.Options{Replicas: []string{"eu-west-1"}}, "WithStream"},
		{"replicas provisioned without autoscaling", streamed, export.Options{Replicas: []string{"eu-west-1"}}, "Options.AutoScaling"},
		{"replica twice", streamed, export.Options{Replicas: []string{"eu-west-1", "eu-west-1"}, AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 70}}, "Options.Replicas[1]"},
		{"sample of no entity", onDemand, export.Options{Samples: []any{42}}, "Options.Samples[0]"},
		{"relation of no entity", onDemand, export.Options{Relations: []export.Relation{{Name: "R", From: "User", Edge: "Nope", To: "User"}}}, "Nope"},
		{"relation incomplete", onDemand, export.Options{Relations: []export.Relation{{Name: "R"}}}, "Options.Relations[0]"},
		{"autoscaling target NaN", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: math.NaN()}}, "TargetUtilization"},
		{"autoscaling target +Inf", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: math.Inf(1)}}, "TargetUtilization"},
		{"autoscaling target negative", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: -50}}, "TargetUtilization"},
		{"autoscaling negative capacity", provisioned, export.Options{AutoScaling: &export.AutoScaling{MinRead: -1, MaxRead: 2, MinWrite: 1, MaxWrite: 2, TargetUtilization: 50}}, "MinRead"},
		{"table name with a space", onDemand, export.Options{TableName: "a b"}, "Options.TableName"},
		{"table name too short", onDemand, export.Options{TableName: "ab"}, "Options.TableName"},
		{"table name too long", onDemand, export.Options{TableName: strings.Repeat("x", 256)}, "Options.TableName"},
		{"nil table", nil, export.Options{}, "table is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, f := range formats {
				out, err := f.make(c.table, c.opts)
				var ie *st.InputError
				if !errors.As(err, &ie) || !errors.Is(err, st.ErrInvalidInput) || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%s: err = %v, want an *InputError naming %q", f.file, err, c.want)
				}
				if out != nil {
					t.Errorf("%s: an export came with the error", f.file)
				}
			}
		})
	}
}

// TestSampleOfSharedType: a Go type two entities store needs Sample's
// entity name; with it, the item is that entity's.
func TestSampleOfSharedType(t *testing.T) {
	type Edge struct {
		A string `dynamodbav:"a"`
		B string `dynamodbav:"b"`
	}
	tbl := st.MustTable("Edges")
	st.MustDefine[Edge](tbl, "Edge", st.Key("A#{A}", "B#{B}"))
	st.MustDefine[Edge](tbl, "Mirror", st.Key("B#{B}", "A#{A}"))
	if _, err := export.Items(tbl, Edge{A: "1", B: "2"}); !errors.Is(err, st.ErrInvalidInput) || !strings.Contains(err.Error(), "export.Sample") {
		t.Fatalf("err = %v, want one saying to name the entity", err)
	}
	items, err := export.Items(tbl, export.Sample{Entity: "Mirror", Value: Edge{A: "1", B: "2"}})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := export.ItemsJSON(items)
	if !strings.Contains(string(j), `"PK": {`) || !strings.Contains(string(j), `"S": "B#2"`) || items[0].Entity != "Mirror" {
		t.Errorf("items = %s", j)
	}
}

// A multi-attribute index key: CloudFormation writes the API's KeySchema
// (several HASH, then several RANGE elements, in order), Terraform its
// key_schema block, the document every attribute; the NoSQL Workbench
// data model, whose KeyAttributes hold one partition and one sort key,
// refuses it with an *InputError naming the index, rather than a model
// keyed on its first attributes.
func TestMultiAttributeIndex(t *testing.T) {
	tbl := st.MustTable("Native",
		st.WithGSI("ByStatus", st.IndexKeys("tenant", "status,priority")),
		st.WithGSI("ByQueue", st.IndexKeys("tenant,queue", "priority")),
		st.WithGSI("ByEmail", st.IndexKeys("email", "")))
	type ticket struct {
		Tenant   string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Queue    string `dynamodbav:"queue"`
		Status   string `dynamodbav:"status"`
		Priority int    `dynamodbav:"priority"`
	}
	type task struct {
		Tenant   string `dynamodbav:"tenant"`
		ID       string `dynamodbav:"id"`
		Status   string `dynamodbav:"status"`
		Priority int    `dynamodbav:"priority"`
		Email    string `dynamodbav:"email"`
	}
	st.MustDefine[ticket](tbl, "Ticket", st.Key("T#{Tenant}", "TICKET#{ID}"))
	st.MustDefine[task](tbl, "Task", st.Key("T#{Tenant}", "TASK#{ID}"))
	opts := export.Options{Samples: []any{ticket{Tenant: "t1", ID: "a", Queue: "q1", Status: "OPEN", Priority: 2}}}
	for _, f := range formats {
		got, err := f.make(tbl, opts)
		if f.file == "workbench.json" {
			var ie *st.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "index ByStatus has a multi-attribute key") {
				t.Errorf("%s: got %v, want an *InputError naming index ByStatus", f.file, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		golden(t, "native/"+f.file, got)
	}
}
