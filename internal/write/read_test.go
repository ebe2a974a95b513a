package write

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/keys"
	"github.com/singletable/singletable/internal/model"
)

func TestReadNeededListsFieldsAndExplains(t *testing.T) {
	byStatus := &model.EntityIndex{Index: &model.Index{Name: "GSI1", PK: "GSI1PK"}, PK: &keys.Template{Raw: "S#{Note}#{Total}"}}
	other := &model.EntityIndex{Index: &model.Index{Name: "GSI2", PK: "GSI2PK"}, PK: &keys.Template{Raw: "C#{Count}"}}
	var r *ReadNeeded
	r = r.add(byStatus, []string{"Total", "Note"}).add(other, []string{"Count", "Note"})
	r.Op = "Order.Update"
	if want := []string{"Count", "Note", "Total"}; !reflect.DeepEqual(r.Fields, want) {
		t.Errorf("Fields = %v, want %v (every index's, sorted, once)", r.Fields, want)
	}
	e := r.Explain("advice")
	if e.Op != "Order.Update" || e.Index != "GSI1" || !reflect.DeepEqual(e.Fields, r.Fields) ||
		!strings.Contains(e.Reason, `index GSI1's key (GSI1PK "S#{Note}#{Total}") also needs Total, Note: advice`) {
		t.Errorf("Explain: %+v", e)
	}
	if !errors.Is(e, ErrReadNeeded) || !errors.Is(e, ErrInvalidInput) {
		t.Error("the error matches neither ErrReadNeeded nor ErrInvalidInput")
	}

	m := entity(t)
	x := (*ReadNeeded)(nil).NeedExists(field(t, m, "Total"))
	if e := x.Explain(""); e.Index != "" || e.Fields != nil || !strings.Contains(e.Reason, "Set Total, or SetIfNotExists(\"Total\"") {
		t.Errorf("an upsert's expiry read: %+v", e)
	}
}

func TestStoredRecordsWhatWasReadAndTellsStaleFields(t *testing.T) {
	m := entity(t)
	item := map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ORDER#1"}, "note": &types.AttributeValueMemberS{Value: "n"},
		"total": &types.AttributeValueMemberN{Value: "5"}, "count": &types.AttributeValueMemberN{Value: "2"},
	}
	r := NewStored(m, true, []string{"Note", "Total"})
	r.Record(m, item, false, nil, nil)
	if len(r.Attrs) != 2 || r.Attrs["note"] != item["note"] || r.Check["note"] == item["note"] {
		t.Errorf("Record: attrs %v check %v (check holds copies, attrs the values read)", r.Attrs, r.Check)
	}
	if !r.Has("Note") || r.Has("Count") || !NewStored(m, false, nil).Has("Count") || (*Stored)(nil).Has("Note") {
		t.Error("Has: a found item tells its fields read; a missing one every field; no read none")
	}
	again := NewStored(m, true, r.Fields)
	again.Record(m, item, false, nil, nil)
	if !r.Same(again) {
		t.Error("two reads of the same item are not Same")
	}
	item["total"] = &types.AttributeValueMemberN{Value: "6"}
	if name, given, stored := r.StaleField(m, item); name != "Total" || given.(*types.AttributeValueMemberN).Value != "5" || stored.(*types.AttributeValueMemberN).Value != "6" {
		t.Errorf("StaleField = %s %v %v, want Total 5 6", name, given, stored)
	}
	again = NewStored(m, true, r.Fields)
	again.Record(m, item, false, nil, nil)
	if r.Same(again) {
		t.Error("reads of a changed field are Same")
	}

	proj, names := ReadProjection(m, []string{"Note"})
	if got := strings.Count(*proj, ", "); got != 2 || len(names) != 3 || names["#n0"] != "PK" || names["#n2"] != "note" {
		t.Errorf("ReadProjection = %s %v, want the partition key, the type and the field's attribute", *proj, names)
	}
}

func TestGivenReadTakesFieldsFromTheValue(t *testing.T) {
	m := entity(t)
	cur := order{ID: "1", Note: "n", Total: 7}
	key := order{ID: "1"}
	r, err := GivenRead(m, reflect.ValueOf(cur), reflect.ValueOf(key), []string{"Total"})
	if err != nil {
		t.Fatal(err)
	}
	got := r.Value.Interface().(order)
	if !r.Found || !r.Given || got.ID != "1" || got.Total != 7 || got.Note != "" {
		t.Errorf("GivenRead = %+v: the key fields and the fields given, nothing else", got)
	}
	if r.Attrs["total"].(*types.AttributeValueMemberN).Value != "7" {
		t.Errorf("GivenRead's attrs: %v", r.Attrs)
	}
}
