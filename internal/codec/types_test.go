package codec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Types shared by the differential table tests, the fuzz test and the
// benchmarks.

type fzStatus string
type fzLevel uint16
type fzBlob []byte
type fzTime time.Time
type fzStrings []string
type fzFloat float32

// fzCustom marshals itself (value receiver) as S "c<X>", except X == 0,
// where it returns no value and attributevalue falls back to the struct.
type fzCustom struct{ X int }

func (c fzCustom) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	if c.X == 0 {
		return nil, nil
	}
	if c.X == 13 {
		return nil, fmt.Errorf("unlucky %d", c.X)
	}
	return &types.AttributeValueMemberS{Value: "c" + strconv.Itoa(c.X)}, nil
}

func (c *fzCustom) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch v := av.(type) {
	case nil, *types.AttributeValueMemberNULL:
		c.X = -1
	case *types.AttributeValueMemberS:
		x, err := strconv.Atoi(strings.TrimPrefix(v.Value, "c"))
		if err != nil {
			return err
		}
		c.X = x
	case *types.AttributeValueMemberSS:
		c.X = 1000 + len(v.Value)
	case *types.AttributeValueMemberM:
		c.X = 2000 + len(v.Value)
	default:
		return fmt.Errorf("fzCustom: unexpected %T", av)
	}
	return nil
}

// fzPtrCustom marshals itself only through a pointer (so only when
// addressable) as N.
type fzPtrCustom struct{ X int }

func (c *fzPtrCustom) MarshalDynamoDBAttributeValue() (types.AttributeValue, error) {
	return &types.AttributeValueMemberN{Value: strconv.Itoa(c.X * 10)}, nil
}

func (c *fzPtrCustom) UnmarshalDynamoDBAttributeValue(av types.AttributeValue) error {
	switch v := av.(type) {
	case nil, *types.AttributeValueMemberNULL:
		c.X = -7
	case *types.AttributeValueMemberN:
		x, err := strconv.Atoi(v.Value)
		if err != nil {
			return err
		}
		c.X = x / 10
	case *types.AttributeValueMemberM:
		c.X = 3000 + len(v.Value)
	case *types.AttributeValueMemberNS:
		c.X = 4000 + len(v.Value)
	default:
		return fmt.Errorf("fzPtrCustom: unexpected %T", av)
	}
	return nil
}

// fzTextKey is a TextMarshaler: attributevalue uses it for map keys only.
type fzTextKey string

func (k fzTextKey) MarshalText() ([]byte, error) { return []byte("t-" + string(k)), nil }
func (k *fzTextKey) UnmarshalText(b []byte) error {
	*k = fzTextKey(strings.TrimPrefix(string(b), "t-"))
	return nil
}

// fzTextVal is a TextMarshaler value: attributevalue ignores that by
// default and stores its fields.
type fzTextVal struct{ V string }

func (t fzTextVal) MarshalText() ([]byte, error) { return []byte("text:" + t.V), nil }
func (t *fzTextVal) UnmarshalText(b []byte) error {
	t.V = "unmarshaled:" + string(b)
	return nil
}

// fzStringer is a map key kind whose String method fmt.Sprint uses.
type fzStringer string

func (s fzStringer) String() string { return "str-" + string(s) }

type fzLeaf struct {
	A    string
	B    int `dynamodbav:"b,omitempty"`
	C    *float64
	T    time.Time `dynamodbav:",unixtime"`
	Next *fzLeaf
}

type fzEmbedded struct {
	EmbS   string
	EmbN   int32 `dynamodbav:"emb_n"`
	Shadow string
	Conf   string // conflicts with FzEmbPtr.Conf at the same depth: dropped
	Win    string `dynamodbav:"Tagged"`
}

type FzEmbPtr struct {
	EPS    *string
	Shadow int
	Conf   int
	Tagged string // loses to fzEmbedded.Win, tagged "Tagged"
	Deep   fzLeaf
}

type fzHidden struct{ H string }

type fzAll struct {
	fzEmbedded
	*FzEmbPtr
	fzHidden `dynamodbav:"hidden"`
	Shadow   bool

	S    string
	SO   string   `dynamodbav:",omitempty"`
	SN   string   `dynamodbav:",nullempty"`
	St   fzStatus `dynamodbav:"status"`
	Num  attributevalue.Number
	JN   json.Number `dynamodbav:",omitempty"`
	I    int
	I8   int8
	I16  int16 `dynamodbav:",string"`
	I32  int32
	I64  int64 `dynamodbav:",omitempty"`
	U    uint
	U8   uint8
	U16  fzLevel
	U32  uint32 `dynamodbav:",nullempty"`
	U64  uint64 `dynamodbav:",string"`
	F32  float32
	F64  float64
	F64S float64 `dynamodbav:",string,omitempty"`
	FN   fzFloat `dynamodbav:",nullempty"`
	B    bool
	BO   bool `dynamodbav:",omitempty"`
	BS   bool `dynamodbav:",string"`

	T   time.Time
	TU  time.Time  `dynamodbav:",unixtime"`
	TP  *time.Time `dynamodbav:",omitempty"`
	TPU *time.Time `dynamodbav:",unixtime"`
	MT  fzTime
	TO  time.Time `dynamodbav:",omitempty"`
	UT  attributevalue.UnixTime
	UTP *attributevalue.UnixTime `dynamodbav:",omitempty"`

	Bytes  []byte
	BytesO []byte `dynamodbav:",omitempty"`
	Blob   fzBlob `dynamodbav:",nullempty"`
	Arr    [3]byte
	Arr0   [0]int
	BSet   [][]byte
	BSetO  [][]byte `dynamodbav:",omitemptyelem"`

	SS    []string   `dynamodbav:",stringset"`
	SSO   []string   `dynamodbav:",stringset,omitempty"`
	SSE   []string   `dynamodbav:",stringset,omitemptyelem"`
	SSSt  []fzStatus `dynamodbav:",stringset"`
	SSP   []*string  `dynamodbav:",stringset,omitemptyelem"`
	NS    []int      `dynamodbav:",numberset"`
	NSF   []float64  `dynamodbav:",numberset,omitemptyelem"`
	NSU   []uint8    `dynamodbav:",numberset"`
	BSTag []fzBlob   `dynamodbav:",binaryset"`

	Strs   []string
	StrsE  []string `dynamodbav:",omitemptyelem"`
	StrsN  []string `dynamodbav:",nullemptyelem"`
	Named  fzStrings
	Ints   []int64
	PtrLst []*string `dynamodbav:",omitemptyelem"`
	Arr2   [2]string
	Times  []time.Time
	Nested [][]int

	PS     *string
	PSO    *string `dynamodbav:",omitempty"`
	PSN    *string `dynamodbav:",nullempty"`
	PI     *int
	PPS    **string `dynamodbav:",omitempty,omitemptyelem"`
	PPI    **int    `dynamodbav:",omitempty"`
	PB     *bool
	PSlice *[]string
	PMap   *map[string]int
	PSt    *fzStatus

	M       map[string]string
	MO      map[string]int     `dynamodbav:",omitempty,omitemptyelem"`
	MN      map[string]*string `dynamodbav:",nullemptyelem"`
	MStatus map[fzStatus]fzLeaf
	MNested map[string][]string
	MTime   map[string]time.Time

	Leaf   fzLeaf
	LeafP  *fzLeaf `dynamodbav:"leaf_p"`
	Leaves []fzLeaf

	Any     any
	AnyO    any `dynamodbav:",omitempty"`
	MapAny  map[string]any
	IntKey  map[int]string
	TextKey map[fzTextKey]int
	StrKey  map[fzStringer]bool
	Cplx    complex64
	TextVal fzTextVal

	Cust    fzCustom
	CustP   *fzCustom
	CustSet []fzCustom `dynamodbav:",stringset"`
	PCust   fzPtrCustom
	PCustP  *fzPtrCustom
	PCustL  []fzPtrCustom
	PCustM  map[string]fzPtrCustom

	Skip       string `dynamodbav:"-"`
	unexported int
}

// fzSmall covers combinations that make attributevalue fail.
type fzSmall struct {
	OmitNull  string    `dynamodbav:",omitempty,nullempty"`
	IntStrSet []int     `dynamodbav:",stringset"`
	StrNumSet []string  `dynamodbav:",numberset"`
	PtrSet    []*string `dynamodbav:",stringset"`
	BinSet    [][]byte  `dynamodbav:",omitempty"`
	EmptyKey  map[string]int
	Cust      fzCustom
	TimeStr   time.Time `dynamodbav:",string"`
	I8        int8
	U8        uint8
	F32       float32
}

// benchItem is a realistic 9-field item for the benchmarks.
type benchItem struct {
	ID        string    `dynamodbav:"id"`
	Name      string    `dynamodbav:"name"`
	Count     int64     `dynamodbav:"count"`
	Price     float64   `dynamodbav:"price"`
	CreatedAt time.Time `dynamodbav:"created_at"`
	Active    bool      `dynamodbav:"active"`
	Tags      []string  `dynamodbav:"tags"`
	ParentID  *string   `dynamodbav:"parent_id,omitempty"`
	Status    fzStatus  `dynamodbav:"status"`
}

func newBenchItem() benchItem {
	parent := "order#2024-0001"
	return benchItem{
		ID:        "order#2024-0042",
		Name:      "Blue widget, large",
		Count:     12345,
		Price:     199.95,
		CreatedAt: time.Date(2024, 3, 14, 15, 9, 26, 535897932, time.UTC),
		Active:    true,
		Tags:      []string{"blue", "widget", "sale"},
		ParentID:  &parent,
		Status:    "shipped",
	}
}
