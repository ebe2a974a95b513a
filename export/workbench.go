package export

import (
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// NoSQL Workbench: the model in the data model format Workbench imports
// (File > Import data model; format version 3.0): the table's keys, its
// non-key attributes, its indexes, a facet for every named access pattern
// and every entity, and the sample items as table data in DynamoDB JSON.
// Documented at
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Modeler.ImportExisting.html
// (ModelName, ModelMetadata, DataModel: TableName, KeyAttributes
// {PartitionKey, SortKey: AttributeName, AttributeType}, NonKeyAttributes,
// TableFacets {FacetName, KeyAttributeAlias {PartitionKeyAlias,
// SortKeyAlias}, TableData, NonKeyAttributes}, GlobalSecondaryIndexes
// {IndexName, KeyAttributes, Projection}, TableData, DataAccess,
// BillingMode, ProvisionedCapacitySettings). A table's local secondary
// indexes are listed as LocalSecondaryIndexes, each shaped as a GSI is
// (the format's documentation names only GSIs; the key follows the
// DynamoDB API's name), and only when the table has any.

// Workbench is the model as a NoSQL Workbench data model (JSON).
func Workbench(t *st.Table, o Options) ([]byte, error) {
	md, err := load("export.Workbench", t, o)
	if err != nil {
		return nil, err
	}
	for _, g := range md.create.GlobalSecondaryIndexes {
		if multiAttribute(g.KeySchema) {
			// The data model's KeyAttributes hold one PartitionKey and one
			// SortKey: an index keyed on its first attributes would be a
			// different index, silently.
			return nil, &st.InputError{Op: "export.Workbench", Reason: fmt.Sprintf("index %s has a multi-attribute key, which a NoSQL Workbench data model cannot express (its KeyAttributes hold one PartitionKey and one SortKey); export CloudFormation, Terraform or the model document instead", aws.ToString(g.IndexName))}
		}
	}
	return toJSON(md.workbench())
}

func (md *model) workbench() obj {
	pk, sk := md.keyAttrs("")
	keys := func(pk, sk keyAttr) obj {
		o := obj{{"PartitionKey", obj{{"AttributeName", pk.name}, {"AttributeType", pk.typ}}}}
		if sk.name != "" {
			o = o.set("SortKey", obj{{"AttributeName", sk.name}, {"AttributeType", sk.typ}})
		}
		return o
	}
	table := obj{{"TableName", md.name}, {"KeyAttributes", keys(pk, sk)}}

	// Non-key attributes: the type and TTL attributes, index keys, then
	// every entity's fields, each once (the first entity's type wins).
	var nonKey []any
	seen := map[string]bool{pk.name: true, sk.name: true}
	addAttr := func(name, typ string) {
		if name != "" && !seen[name] {
			seen[name] = true
			nonKey = append(nonKey, obj{{"AttributeName", name}, {"AttributeType", typ}})
		}
	}
	addAttr(md.t.TypeAttribute(), "S")
	addAttr(md.t.TTLAttribute(), "N")
	for _, ix := range md.indexes() {
		ipk, isk := md.keyAttrs(ix.Name())
		addAttr(ipk.name, ipk.typ)
		addAttr(isk.name, isk.typ)
	}
	for _, e := range md.m.Entities {
		for _, f := range e.Fields {
			addAttr(f.Attr, f.Type)
		}
	}
	table = table.set("NonKeyAttributes", nonKey)

	var facets []any
	// facet is a facet of entities read from index ("" for the table): its
	// sample data are the samples the index holds (a sparse index leaves
	// out the items without its keys).
	facet := func(name, index string, entities []string, pkAlias, skAlias string) {
		ipk, isk := md.keyAttrs(index)
		alias := obj{{"PartitionKeyAlias", pkAlias}}
		if sk.name != "" {
			alias = alias.set("SortKeyAlias", skAlias)
		}
		attrs := []any{md.t.TypeAttribute()}
		var data []any
		for _, name := range entities {
			e := md.entity(name)
			for _, k := range e.Indexes {
				ipk, isk := md.keyAttrs(k.Index)
				for _, a := range []string{ipk.name, isk.name} {
					if a != "" && a != pk.name && a != sk.name && !slices.Contains(attrs, any(a)) {
						attrs = append(attrs, a)
					}
				}
			}
			for _, f := range e.Fields {
				if !slices.Contains(attrs, any(f.Attr)) {
					attrs = append(attrs, f.Attr)
				}
			}
			for _, it := range md.items {
				_, hasPK := it.Attrs[ipk.name]
				_, hasSK := it.Attrs[isk.name]
				if it.Entity == name && hasPK && (isk.name == "" || hasSK) {
					data = append(data, dynamoJSON(it.Attrs))
				}
			}
		}
		facets = append(facets, obj{
			{"FacetName", name}, {"KeyAttributeAlias", alias},
			{"TableData", orEmpty(data)}, {"NonKeyAttributes", attrs},
			{"DataAccess", obj{{"MySql", obj{}}}},
		})
	}
	for _, r := range md.m.Reads {
		if r.Err != "" {
			continue
		}
		first := md.entity(r.Entities[0])
		facet(r.Name, r.Index, r.Entities, first.PK, first.SK)
	}
	for _, e := range md.m.Entities {
		facet(e.Name, "", []string{e.Name}, e.PK, e.SK)
	}
	table = table.set("TableFacets", orEmpty(facets))

	index := func(ix *st.GSI) obj {
		ipk, isk := md.keyAttrs(ix.Name())
		proj := obj{{"ProjectionType", string(ix.Projection())}}
		if inc := ix.Included(); len(inc) > 0 {
			proj = proj.set("NonKeyAttributes", anys(inc))
		}
		return obj{{"IndexName", ix.Name()}, {"KeyAttributes", keys(ipk, isk)}, {"Projection", proj}}
	}
	var gsis, lsis []any
	for _, ix := range md.t.GSIs() {
		gsis = append(gsis, index(ix))
	}
	for _, ix := range md.t.LSIs() {
		lsis = append(lsis, index(ix))
	}
	table = table.set("GlobalSecondaryIndexes", orEmpty(gsis))
	if len(lsis) > 0 {
		// Shaped as the GSIs are; left out without LSIs, as before.
		table = table.set("LocalSecondaryIndexes", lsis)
	}
	var data []any
	for _, it := range md.items {
		data = append(data, dynamoJSON(it.Attrs))
	}
	table = table.set("TableData", orEmpty(data))
	table = table.set("DataAccess", obj{{"MySql", obj{}}})
	table = table.set("BillingMode", string(md.create.BillingMode))
	if p := md.create.ProvisionedThroughput; p != nil {
		table = table.set("ProvisionedCapacitySettings", obj{{"ProvisionedThroughput", cfnThroughput(p)}})
	}
	return obj{
		{"ModelName", md.t.Name()},
		{"ModelMetadata", obj{
			{"Author", "singletable"},
			{"Description", "Generated by singletable from the Go model of table " + md.t.Name() + ": a facet per access pattern and per entity."},
			{"AWSService", "Amazon DynamoDB"},
			{"Version", "3.0"},
		}},
		{"DataModel", []any{table}},
	}
}

// orEmpty is s, or an empty list where s is nil (JSON [] rather than null).
func orEmpty(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

// dynamoJSON is an item in DynamoDB JSON ({"S": "..."}), its attributes
// sorted by name.
func dynamoJSON(item map[string]types.AttributeValue) obj {
	names := make([]string, 0, len(item))
	for k := range item {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make(obj, 0, len(names))
	for _, k := range names {
		out = append(out, field{k, avJSON(item[k])})
	}
	return out
}

func avJSON(av types.AttributeValue) obj {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return obj{{"S", v.Value}}
	case *types.AttributeValueMemberN:
		return obj{{"N", v.Value}}
	case *types.AttributeValueMemberB:
		return obj{{"B", base64.StdEncoding.EncodeToString(v.Value)}}
	case *types.AttributeValueMemberBOOL:
		return obj{{"BOOL", v.Value}}
	case *types.AttributeValueMemberNULL:
		return obj{{"NULL", true}}
	case *types.AttributeValueMemberSS:
		return obj{{"SS", anys(v.Value)}}
	case *types.AttributeValueMemberNS:
		return obj{{"NS", anys(v.Value)}}
	case *types.AttributeValueMemberBS:
		var out []any
		for _, b := range v.Value {
			out = append(out, base64.StdEncoding.EncodeToString(b))
		}
		return obj{{"BS", out}}
	case *types.AttributeValueMemberL:
		out := []any{}
		for _, e := range v.Value {
			out = append(out, avJSON(e))
		}
		return obj{{"L", out}}
	case *types.AttributeValueMemberM:
		return obj{{"M", dynamoJSON(v.Value)}}
	}
	return obj{{"NULL", true}}
}

// ItemsJSON is items in DynamoDB JSON, one object per item with its
// entity: [{"entity": "User", "item": {...}}].
func ItemsJSON(items []Item) ([]byte, error) {
	out := []any{}
	for _, it := range items {
		out = append(out, obj{{"entity", it.Entity}, {"item", dynamoJSON(it.Attrs)}})
	}
	return toJSON(out)
}
