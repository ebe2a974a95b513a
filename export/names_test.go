package export_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/export"
)

var (
	cfnLogicalID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,254}$`)
	tfName       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
)

// resourceNames are the names of a template's (or configuration's)
// resources, counted.
func resourceNames(t *testing.T, b []byte, terraform bool) map[string]int {
	t.Helper()
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// CloudFormation: Resources{ID: ...}; Terraform: resource{kind: {name: ...}}.
	var groups map[string]map[string]json.RawMessage
	if terraform {
		if err := json.Unmarshal(doc["resource"], &groups); err != nil {
			t.Fatal(err)
		}
	} else {
		var ids map[string]json.RawMessage
		if err := json.Unmarshal(doc["Resources"], &ids); err != nil {
			t.Fatal(err)
		}
		groups = map[string]map[string]json.RawMessage{"": ids}
	}
	names := map[string]int{}
	for kind, g := range groups {
		for n := range g {
			if kind != "" {
				n = kind + "." + n // Terraform's names are per resource type
			}
			names[n]++
		}
	}
	return names
}

// TestResourceNamesValidAndUnique: CloudFormation's logical IDs are
// alphanumeric, Terraform's names letters, digits, '_' and '-' from a
// letter or '_', whatever the table's and indexes' names; index names that
// would make one name (or the table's) keep a resource each.
func TestResourceNamesValidAndUnique(t *testing.T) {
	cases := []struct {
		table string
		gsis  []string
	}{
		{"game-scores", []string{"by-player"}},
		{"1e3", []string{"off"}},
		{"-on", []string{"GSI1"}},
		{"a.b_c-d", []string{"by-tag.v1_x", "by_tag-v1.x", "table", "Table", "gsi1", "GSI1"}},
		{"...", []string{"___"}},
	}
	as := &export.AutoScaling{MinRead: 1, MaxRead: 5, MinWrite: 1, MaxWrite: 5, TargetUtilization: 50}
	for _, c := range cases {
		opts := []st.TableOption{st.WithProvisioned(1, 1)}
		for _, g := range c.gsis {
			opts = append(opts, st.WithGSI(g))
		}
		tbl := st.MustTable(c.table, opts...)
		// The table, and a target and a policy for reads and writes of the
		// table and of each index.
		want := 1 + 4*(1+len(c.gsis))
		for _, f := range []struct {
			terraform bool
			make      func(*st.Table, export.Options) ([]byte, error)
			valid     *regexp.Regexp
		}{{false, export.CloudFormationJSON, cfnLogicalID}, {true, export.TerraformJSON, tfName}} {
			b, err := f.make(tbl, export.Options{AutoScaling: as})
			if err != nil {
				t.Fatal(err)
			}
			names := resourceNames(t, b, f.terraform)
			if len(names) != want {
				t.Errorf("table %q, terraform %v: %d resources, want %d: %v", c.table, f.terraform, len(names), want, names)
			}
			for n := range names {
				if i := strings.IndexByte(n, '.'); i >= 0 {
					n = n[i+1:]
				}
				if !f.valid.MatchString(n) {
					t.Errorf("table %q, terraform %v: resource name %q is not valid", c.table, f.terraform, n)
				}
			}
			// Every reference names a resource of the export.
			for _, ref := range regexp.MustCompile(`"Ref": "([^"]*)"|\$\{(aws_[a-z_]+\.[^.]*)\.`).FindAllStringSubmatch(string(b), -1) {
				n := ref[1] + ref[2]
				if n != "AWS::Region" && names[n] == 0 {
					t.Errorf("table %q: reference to %q, which is not a resource", c.table, n)
				}
			}
		}
	}
}

// TestLogicalIDsCamelCase: a name's alphanumeric runs, capitalized.
func TestLogicalIDsCamelCase(t *testing.T) {
	tbl := st.MustTable("game-scores", st.WithGSI("by-player.v2"), st.WithProvisioned(1, 1))
	b, err := export.CloudFormationJSON(tbl, export.Options{AutoScaling: &export.AutoScaling{MinRead: 1, MaxRead: 5, MinWrite: 1, MaxWrite: 5, TargetUtilization: 50}})
	if err != nil {
		t.Fatal(err)
	}
	names := resourceNames(t, b, false)
	for _, n := range []string{"gameScoresTable", "gameScoresByPlayerV2ReadScalableTarget", "gameScoresTableWriteScalingPolicy"} {
		if names[n] != 1 {
			t.Errorf("no resource %s: %v", n, names)
		}
	}
	if !strings.Contains(string(b), `"PolicyName": "game-scores-by-player.v2Read"`) {
		t.Errorf("policy names keep the index's own name:\n%s", b)
	}
}
