package singletable

import (
	"fmt"
	"slices"
	"strings"

	"github.com/singletable/singletable/internal/codec"
	"github.com/singletable/singletable/internal/model"
)

// Native multi-attribute index keys
//
// IndexKeys("TenantID,Zone", "Status,Priority") declares a GSI whose
// partition key is the attributes TenantID and Zone and whose sort key is
// Status then Priority, in order: DynamoDB's multi-attribute keys (up to
// four each). Each is an entity field's own attribute, so nothing is
// written for the index and adding it to a live table needs no backfill.
// The key's attributes are parsed here, at NewTable; internal/model
// resolves each entity's part in it, and nativeread.go reads it.

// splitKeys parses the index's key attribute lists (IndexKeys' comma
// forms) into PKAttrs and SKAttrs, refusing what DynamoDB would.
func (ix *GSI) splitKeys() error {
	in := &ix.index
	split := func(raw, what string) ([]string, error) {
		if raw == "" {
			return nil, nil
		}
		parts := strings.Split(raw, ",")
		for i, p := range parts {
			parts[i] = strings.TrimSpace(p)
			if parts[i] == "" {
				return nil, fmt.Errorf("index %s: its %s key %q names an empty attribute (IndexKeys takes attribute names separated by commas)", in.Name, what, raw)
			}
		}
		if len(parts) > model.MaxKeyAttrs {
			return nil, fmt.Errorf("index %s: its %s key has %d attributes (%s); DynamoDB allows %d", in.Name, what, len(parts), raw, model.MaxKeyAttrs)
		}
		return parts, nil
	}
	pks, err := split(in.PK, "partition")
	if err != nil {
		return err
	}
	sks, err := split(in.SK, "sort")
	if err != nil {
		return err
	}
	if len(pks) <= 1 && len(sks) <= 1 {
		in.PKAttrs, in.SKAttrs = nil, nil // one attribute each: the classic key, as written
		if len(pks) == 1 {
			in.PK = pks[0]
		}
		if len(sks) == 1 {
			in.SK = sks[0]
		}
		return nil
	}
	if in.IsLocal() {
		return fmt.Errorf("index %s: a local secondary index has one sort key attribute; multi-attribute keys are for global secondary indexes (WithGSI)", in.Name)
	}
	all := append(slices.Clone(pks), sks...)
	for i, a := range all {
		if slices.Contains(all[:i], a) {
			return fmt.Errorf("index %s: attribute %q is given twice in its key", in.Name, a)
		}
	}
	in.PKAttrs, in.SKAttrs = pks, sks
	in.PK, in.SK = "", ""
	if len(pks) > 0 {
		in.PK = pks[0]
	}
	if len(sks) > 0 {
		in.SK = sks[0]
	}
	return nil
}

// nativeFieldsText is an entity's part of a multi-attribute key as the
// sheet and the exports show it: each field's own attribute, in order
// ("{TenantID}, {Queue}").
func nativeFieldsText(fs []*codec.Field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = "{" + f.GoName + "}"
	}
	return strings.Join(parts, ", ")
}

// nativeKeyText is a multi-attribute key's attributes as IndexKeys takes
// them, for messages and the sheet: "TenantID,Zone".
func nativeKeyText(attrs []string) string { return strings.Join(attrs, ",") }
