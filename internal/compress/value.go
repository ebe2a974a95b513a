package compress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The payload of a value that is neither a string nor a binary (a map, a
// list, a number, a set ...): its attribute value, as a tag byte and its
// contents, lengths and counts as uvarints.

const (
	tagS, tagN, tagB          = 's', 'n', 'b'
	tagTrue, tagFalse, tagNul = 't', 'f', '0'
	tagL, tagM                = 'L', 'M'
	tagSS, tagNS, tagBS       = 'S', 'N', 'B'
)

func appendValue(dst []byte, av types.AttributeValue) []byte {
	str := func(dst []byte, s string) []byte {
		return append(binary.AppendUvarint(dst, uint64(len(s))), s...)
	}
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return str(append(dst, tagS), v.Value)
	case *types.AttributeValueMemberN:
		return str(append(dst, tagN), v.Value)
	case *types.AttributeValueMemberB:
		return append(binary.AppendUvarint(append(dst, tagB), uint64(len(v.Value))), v.Value...)
	case *types.AttributeValueMemberBOOL:
		if v.Value {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case *types.AttributeValueMemberNULL:
		return append(dst, tagNul)
	case *types.AttributeValueMemberL:
		dst = binary.AppendUvarint(append(dst, tagL), uint64(len(v.Value)))
		for _, e := range v.Value {
			dst = appendValue(dst, e)
		}
		return dst
	case *types.AttributeValueMemberM:
		dst = binary.AppendUvarint(append(dst, tagM), uint64(len(v.Value)))
		for k, e := range v.Value {
			dst = appendValue(str(dst, k), e)
		}
		return dst
	case *types.AttributeValueMemberSS:
		dst = binary.AppendUvarint(append(dst, tagSS), uint64(len(v.Value)))
		for _, s := range v.Value {
			dst = str(dst, s)
		}
		return dst
	case *types.AttributeValueMemberNS:
		dst = binary.AppendUvarint(append(dst, tagNS), uint64(len(v.Value)))
		for _, s := range v.Value {
			dst = str(dst, s)
		}
		return dst
	case *types.AttributeValueMemberBS:
		dst = binary.AppendUvarint(append(dst, tagBS), uint64(len(v.Value)))
		for _, b := range v.Value {
			dst = append(binary.AppendUvarint(dst, uint64(len(b))), b...)
		}
		return dst
	}
	panic(fmt.Sprintf("compress: unknown attribute value %T", av))
}

var errShort = errors.New("the value is cut short")

// valueReader reads the encoding of appendValue.
type valueReader struct{ b []byte }

func readValue(b []byte) (types.AttributeValue, error) {
	r := valueReader{b}
	v, err := r.value(0)
	if err == nil && len(r.b) > 0 {
		err = errors.New("bytes after the value")
	}
	return v, err
}

func (r *valueReader) uvarint() (int, error) {
	n, w := binary.Uvarint(r.b)
	if w <= 0 || n > uint64(len(r.b)) { // a count or length never passes the bytes left
		return 0, errShort
	}
	r.b = r.b[w:]
	return int(n), nil
}

func (r *valueReader) bytes() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil || n > len(r.b) {
		return nil, errShort
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out, nil
}

// str reads a string, which DynamoDB holds as UTF-8 only: anything else
// is damage, not a value any write could have stored.
func (r *valueReader) str() (string, error) {
	b, err := r.bytes()
	if err == nil && !utf8.Valid(b) {
		return "", errNotUTF8
	}
	return string(b), err
}

func (r *valueReader) value(depth int) (types.AttributeValue, error) {
	if len(r.b) == 0 {
		return nil, errShort
	}
	if depth > 64 {
		return nil, errors.New("nested too deep")
	}
	tag := r.b[0]
	r.b = r.b[1:]
	switch tag {
	case tagS:
		s, err := r.str()
		return &types.AttributeValueMemberS{Value: s}, err
	case tagN:
		s, err := r.str()
		return &types.AttributeValueMemberN{Value: s}, err
	case tagB:
		b, err := r.bytes()
		return &types.AttributeValueMemberB{Value: b}, err
	case tagTrue, tagFalse:
		return &types.AttributeValueMemberBOOL{Value: tag == tagTrue}, nil
	case tagNul:
		return &types.AttributeValueMemberNULL{Value: true}, nil
	case tagL:
		n, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		l := make([]types.AttributeValue, n)
		for i := range l {
			if l[i], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case tagM:
		n, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		m := make(map[string]types.AttributeValue, n)
		for range n {
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			if m[k], err = r.value(depth + 1); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberM{Value: m}, nil
	case tagSS, tagNS:
		n, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		l := make([]string, n)
		for i := range l {
			if l[i], err = r.str(); err != nil {
				return nil, err
			}
		}
		if tag == tagSS {
			return &types.AttributeValueMemberSS{Value: l}, nil
		}
		return &types.AttributeValueMemberNS{Value: l}, nil
	case tagBS:
		n, err := r.uvarint()
		if err != nil {
			return nil, err
		}
		l := make([][]byte, n)
		for i := range l {
			if l[i], err = r.bytes(); err != nil {
				return nil, err
			}
		}
		return &types.AttributeValueMemberBS{Value: l}, nil
	}
	return nil, fmt.Errorf("unknown value tag %q", tag)
}
