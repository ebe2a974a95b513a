package expr

import (
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/codec"
)

// Encoder encodes a value a condition gives for path, as Resolver.Value
// would send it.
type Encoder func(path string, v any) (types.AttributeValue, error)

// Lookup is an item as an evaluated condition reads it: the value at path,
// ok false when the item has no such attribute.
type Lookup func(path string) (av types.AttributeValue, ok bool)

// Pred is a condition compiled for evaluation in process (see Compile).
type Pred struct {
	root  evalNode
	paths []string
}

// Paths lists the paths the condition reads, each once, in the order
// they first appear.
func (p *Pred) Paths() []string { return p.paths }

// Eval reports whether the condition holds on the item get reads, as
// DynamoDB would evaluate it as a condition or a filter.
func (p *Pred) Eval(get Lookup) bool { return p.root.eval(get) }

// UnsupportedError is a condition Compile cannot evaluate in process:
// Operator names the condition builder ("Contains", "Size", "FieldRef").
type UnsupportedError struct{ Operator string }

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s cannot be evaluated in process", e.Operator)
}

// Compile turns condition n into a Pred. It takes comparisons (=, <>, <,
// <=, >, >=), BETWEEN, IN, begins_with, attribute_exists,
// attribute_not_exists, AND, OR and NOT; anything else is an
// *UnsupportedError. Values are encoded once, here, by enc.
func Compile(n Node, enc Encoder) (*Pred, error) {
	p := &Pred{}
	root, err := p.compile(n, enc)
	if err != nil {
		return nil, err
	}
	p.root = root
	return p, nil
}

func (p *Pred) use(path string) {
	for _, q := range p.paths {
		if q == path {
			return
		}
	}
	p.paths = append(p.paths, path)
}

func (p *Pred) compile(n Node, enc Encoder) (evalNode, error) {
	switch n := n.(type) {
	case cmpNode:
		av, err := enc(n.path, n.v)
		if err != nil {
			return nil, err
		}
		p.use(n.path)
		return evalCmp{n.path, n.op, av}, nil
	case betweenNode:
		lo, err := enc(n.path, n.lo)
		if err != nil {
			return nil, err
		}
		hi, err := enc(n.path, n.hi)
		if err != nil {
			return nil, err
		}
		if err := checkBetween(n.path, lo, hi); err != nil {
			return nil, err
		}
		p.use(n.path)
		return evalBetween{n.path, lo, hi}, nil
	case inNode:
		if len(n.vs) == 0 || len(n.vs) > 100 {
			return nil, fmt.Errorf("In(%q) takes 1 to 100 values, got %d", n.path, len(n.vs))
		}
		e := evalIn{path: n.path}
		for _, v := range n.vs {
			av, err := enc(n.path, v)
			if err != nil {
				return nil, err
			}
			e.vs = append(e.vs, av)
		}
		p.use(n.path)
		return e, nil
	case funcNode:
		switch {
		case n.rawAttr:
			return nil, &UnsupportedError{Operator: n.fn + " of a stored attribute"}
		case n.unary && (n.fn == "attribute_exists" || n.fn == "attribute_not_exists"):
			p.use(n.path)
			return evalExists{n.path, n.fn == "attribute_exists"}, nil
		case n.fn == "begins_with" && n.rawString:
			p.use(n.path)
			return evalBegins{n.path, n.arg.(string)}, nil
		case n.fn == "attribute_type":
			return nil, &UnsupportedError{Operator: "IsType"}
		case n.fn == "contains":
			return nil, &UnsupportedError{Operator: "Contains"}
		}
		return nil, &UnsupportedError{Operator: n.fn}
	case sizeNode:
		return nil, &UnsupportedError{Operator: "Size"}
	case *Junction:
		e := evalJunction{or: n.op == "OR"}
		for _, c := range n.nodes {
			ce, err := p.compile(c, enc)
			if err != nil {
				return nil, err
			}
			e.nodes = append(e.nodes, ce)
		}
		return e, nil
	case notNode:
		ce, err := p.compile(n.n, enc)
		if err != nil {
			return nil, err
		}
		return evalNot{ce}, nil
	}
	return nil, &UnsupportedError{Operator: fmt.Sprintf("%T", n)}
}

type evalNode interface{ eval(get Lookup) bool }

type evalCmp struct {
	path, op string
	v        types.AttributeValue
}

// eval compares as DynamoDB does: an absent attribute equals nothing (so
// <> holds on it) and orders with nothing; values of two types are unequal
// and unordered; numbers compare by value.
func (e evalCmp) eval(get Lookup) bool {
	a, ok := get(e.path)
	if !ok {
		return e.op == "<>"
	}
	switch e.op {
	case "=":
		return equal(a, e.v)
	case "<>":
		return !equal(a, e.v)
	}
	c, ok := codec.Compare(a, e.v)
	if !ok {
		return false
	}
	switch e.op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

// equal is DynamoDB's =: numbers by value, anything else as stored.
func equal(a, b types.AttributeValue) bool {
	if c, ok := codec.Compare(a, b); ok {
		return c == 0
	}
	return codec.Equal(a, b)
}

type evalBetween struct {
	path   string
	lo, hi types.AttributeValue
}

func (e evalBetween) eval(get Lookup) bool {
	a, ok := get(e.path)
	if !ok {
		return false
	}
	lo, ok1 := codec.Compare(a, e.lo)
	hi, ok2 := codec.Compare(a, e.hi)
	return ok1 && ok2 && lo >= 0 && hi <= 0
}

type evalIn struct {
	path string
	vs   []types.AttributeValue
}

func (e evalIn) eval(get Lookup) bool {
	a, ok := get(e.path)
	if !ok {
		return false
	}
	for _, v := range e.vs {
		if equal(a, v) {
			return true
		}
	}
	return false
}

type evalExists struct {
	path   string
	exists bool
}

func (e evalExists) eval(get Lookup) bool {
	_, ok := get(e.path)
	return ok == e.exists
}

type evalBegins struct{ path, prefix string }

// eval holds for a string attribute that starts with the prefix (a
// binary one would need a binary prefix, which BeginsWith does not give).
func (e evalBegins) eval(get Lookup) bool {
	a, ok := get(e.path)
	s, isS := a.(*types.AttributeValueMemberS)
	return ok && isS && strings.HasPrefix(s.Value, e.prefix)
}

type evalJunction struct {
	or    bool
	nodes []evalNode
}

func (e evalJunction) eval(get Lookup) bool {
	for _, n := range e.nodes {
		if n.eval(get) == e.or {
			return e.or
		}
	}
	return !e.or
}

type evalNot struct{ n evalNode }

func (e evalNot) eval(get Lookup) bool { return !e.n.eval(get) }
