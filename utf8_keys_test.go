package singletable_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/singletabletest"
)

// 18.12: invalid UTF-8 in a key field (the table's or an index's) is one
// error on every path: a *KeyError naming the field (ErrInvalidKey), not an
// ErrInvalidInput from encoding the item first; nothing is sent.
func TestInvalidUTF8KeyFieldIsKeyErrorOnEveryPath(t *testing.T) {
	type u struct {
		ID   string
		Mail string
		N    int
	}
	tbl := st.MustTable("UTF8Keys", st.WithGSI("GSI1"))
	us := st.MustDefine[u](tbl, "U", st.Key("U#{ID}", "U"), st.Index("GSI1", "M#{Mail}", "U#{ID}"))
	p := us.Pattern("ByMail").On("GSI1").Partition("M#{Mail}").Must()
	ctx := context.Background()
	bad := "a\xffb"
	mock := &singletabletest.Client{}
	db := st.New(mock, tbl)
	show := func(name string, err error) {
		t.Helper()
		field := "ID"
		if name == "PutIdx" || name == "UpdateIdx" || name == "Query" {
			field = "Mail"
		}
		var ke *st.KeyError
		require.ErrorAs(t, err, &ke, name)
		assert.ErrorIs(t, err, st.ErrInvalidKey, name)
		assert.False(t, errors.Is(err, st.ErrInvalidInput), name)
		assert.Equal(t, field, ke.Field, name)
	}
	show("Put", us.Put(ctx, db, u{ID: bad}))
	show("PutIdx", us.Put(ctx, db, u{ID: "x", Mail: bad}))
	show("Create", us.Create(ctx, db, u{ID: bad}))
	_, err := us.Get(ctx, db, u{ID: bad})
	show("Get", err)
	show("Delete", us.Delete(ctx, db, u{ID: bad}))
	_, err = us.Update(ctx, db, u{ID: bad}, st.Set("N", 1))
	show("Update", err)
	_, err = us.Update(ctx, db, u{ID: "x"}, st.Set("Mail", bad))
	show("UpdateIdx", err)
	_, err = us.BatchGet(ctx, db, []u{{ID: bad}})
	show("BatchGet", err)
	show("BatchPut", db.BatchWrite(ctx, []st.BatchOp{st.BatchPut(us, u{ID: bad})}))
	show("BatchDel", db.BatchWrite(ctx, []st.BatchOp{st.BatchDelete(us, u{ID: bad})}))
	show("TxPut", db.Transact(ctx, func(tx *st.Tx) error { us.TxPut(tx, u{ID: bad}); return nil }))
	show("TxUpdate", db.Transact(ctx, func(tx *st.Tx) error { us.TxUpdate(tx, u{ID: bad}, st.Set("N", 1)); return nil }))
	show("TxDelete", db.Transact(ctx, func(tx *st.Tx) error { us.TxDelete(tx, u{ID: bad}); return nil }))
	show("TxCheck", db.Transact(ctx, func(tx *st.Tx) error { us.TxCheck(tx, u{ID: bad}, st.Exists("N")); return nil }))
	tg := db.TransactGet()
	us.TxGet(tg, u{ID: bad})
	show("TxGet", tg.Run(ctx))
	_, err = p.Query(ctx, db, u{Mail: bad})
	show("Query", err)
	assert.Empty(t, mock.Calls())
}
