package singletable

import (
	"context"
	"reflect"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/singletable/singletable/internal/expr"
)

// QueryInput is the first Query request Query sends: the partition given by
// the partition-key fields of params, and the sort keys that begin with the
// entity's sort template rendered as far as params give its fields. With
// "ORDER#{Date}#{ID}", params with no Date query begins_with "ORDER#", and
// params with Date "2024-01-15" query begins_with "ORDER#2024-01-15#" (which
// cannot match 2024-01-150). A filter on the entity type keeps other
// entities of the partition out. Options: Limit, Descending, ConsistentRead.
func (e *Entity[T]) QueryInput(db *DB, params T, opts ...Option) (*dynamodb.QueryInput, error) {
	in, _, err := e.queryInput(db, params, opts)
	return in, err
}

func (e *Entity[T]) queryInput(db *DB, params T, opts []Option) (*dynamodb.QueryInput, *settings, error) {
	m := e.m
	op := m.name + ".Query"
	s, err := collect(op, optLimit|optDescending|optConsistent, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := db.checkTable(op, m); err != nil {
		return nil, nil, err
	}
	if s.limit < 0 {
		return nil, nil, &InputError{Op: op, Reason: "Limit must not be negative"}
	}
	v := reflect.ValueOf(&params).Elem()
	pk, err := m.renderTableKey(m.pk, m.table.pk, maxPartitionKeyBytes, v)
	if err != nil {
		return nil, nil, err
	}
	var b expr.Builder
	keyCond := b.Name(m.table.pk) + " = " + b.Value(expr.S(pk))
	if m.sk != nil {
		prefix, complete, err := m.sk.renderPrefix(v)
		if err != nil {
			return nil, nil, m.keyError(m.sk, m.table.sk, err)
		}
		switch {
		case complete:
			keyCond += " AND " + b.Name(m.table.sk) + " = " + b.Value(expr.S(prefix))
		case prefix != "":
			keyCond += " AND begins_with(" + b.Name(m.table.sk) + ", " + b.Value(expr.S(prefix)) + ")"
		}
	}
	filter := b.Name(m.table.typeAttr) + " = " + b.Value(expr.S(m.name))
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(db.name),
		KeyConditionExpression:    aws.String(keyCond),
		FilterExpression:          aws.String(filter),
		ExpressionAttributeNames:  b.Names,
		ExpressionAttributeValues: b.Values,
	}
	if s.descending {
		in.ScanIndexForward = aws.Bool(false)
	}
	if s.consistent {
		in.ConsistentRead = aws.Bool(true)
	}
	if s.limit > 0 {
		in.Limit = aws.Int32(int32(min(s.limit, 1<<30)))
	}
	return in, s, nil
}

// Query returns the entity's items in the partition given by params (see
// QueryInput), following DynamoDB's pages until Limit items are found or
// the partition is exhausted.
func (e *Entity[T]) Query(ctx context.Context, db *DB, params T, opts ...Option) ([]T, error) {
	in, s, err := e.queryInput(db, params, opts)
	if err != nil {
		return nil, err
	}
	var out []T
	err = queryPages(ctx, db, e.m.name+".Query", in, s.limit, func(item map[string]types.AttributeValue) error {
		var v T
		if err := e.m.decode(item, reflect.ValueOf(&v).Elem()); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// queryPages sends in and its following pages, handing each item to yield,
// until limit items were yielded (0: no limit) or the results end. Each
// page asks only for the items still wanted.
func queryPages(ctx context.Context, db *DB, op string, in *dynamodb.QueryInput, limit int, yield func(map[string]types.AttributeValue) error) error {
	page := *in
	n := 0
	for {
		if limit > 0 {
			page.Limit = aws.Int32(int32(min(limit-n, 1<<30)))
		}
		res, err := db.client.Query(ctx, &page)
		if err != nil {
			return opError(op, err)
		}
		for _, item := range res.Items {
			if err := yield(item); err != nil {
				return err
			}
			n++
		}
		if len(res.LastEvaluatedKey) == 0 || (limit > 0 && n >= limit) {
			return nil
		}
		page.ExclusiveStartKey = res.LastEvaluatedKey
	}
}
