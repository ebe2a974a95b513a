package singletable

import (
	"reflect"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/bridge"
)

// Package revision's way in (see internal/bridge/revision.go): the entity
// options of shape revisions (managed_revision.go).
func init() {
	bridge.RevisionCurrent = func(current, base int, attr string) any {
		return writeOption(func(s *writeSpec) {
			rs := revisionSettingsOf(s)
			rs.current, rs.base, rs.attr, rs.given = current, base, attr, true
		})
	}
	bridge.RevisionUpgrade = func(from int, typ reflect.Type, typed func(any) error, raw func(map[string]types.AttributeValue) error) any {
		return writeOption(func(s *writeSpec) {
			rs := revisionSettingsOf(s)
			rs.steps = append(rs.steps, revisionStep{from: from, typ: typ, typed: typed, raw: raw})
		})
	}
	bridge.RevisionReadNewer = func() any {
		return writeOption(func(s *writeSpec) { revisionSettingsOf(s).readNewer = true })
	}
	bridge.RevisionWriteBack = func() any {
		return writeOption(func(s *writeSpec) { revisionSettingsOf(s).writeBack = true })
	}
}
