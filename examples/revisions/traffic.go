package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/revision"
)

// A request is a customer's reply to a ticket: one more reply and, when
// customer is set, the ticket moved to that customer.
type request struct {
	ticket   string
	customer string
}

// A service is one deployed version of the helpdesk code.
type service[T any] struct {
	name    string
	db      *st.DB
	tickets *st.Entity[T]
	key     func(id string) T
	// customer is the Go name of the customer field in this version.
	customer string
	// apply applies a request to a ticket read.
	apply func(t *T, r request)

	// upgraded counts tickets this code read at an older revision and Put
	// in its shape; handedOff, requests it left to newer code.
	upgraded, handedOff atomic.Int64
}

// handle serves a request as a real service would: an Update, which the
// library refuses when the stored ticket is at another revision than this
// code's (a *revision.ConflictError). A newer ticket's refusal is returned:
// this code must not write what it does not understand. An older one is
// read, which upgrades it, and Put in this code's shape (conditioned on the
// version read, so that a concurrent reply is never lost).
func (s *service[T]) handle(ctx context.Context, r request) error {
	for {
		ch := st.Increment("Replies", 1)
		if r.customer != "" {
			ch = ch.Set(s.customer, r.customer)
		}
		_, err := s.tickets.Update(ctx, s.db, s.key(r.ticket), ch)
		if errors.Is(err, revision.ErrNewer) || !errors.Is(err, st.ErrConditionFailed) {
			return err // done, or a newer ticket this code must not write
		}
		t, err := s.tickets.Get(ctx, s.db, s.key(r.ticket))
		if err != nil {
			return err
		}
		s.apply(&t, r)
		err = s.tickets.Put(ctx, s.db, t)
		if err == nil {
			s.upgraded.Add(1)
			return nil
		}
		if !errors.Is(err, st.ErrConditionFailed) {
			return err
		}
		// Another writer changed it in between: start again.
	}
}

// route sends a request to an old instance, still running while the new
// version deploys; what the old code refuses (a ticket at a newer
// revision) is retried on a new instance, as a client retries another
// instance.
func route[O, N any](ctx context.Context, old *service[O], cur *service[N], r request) error {
	err := old.handle(ctx, r)
	if errors.Is(err, revision.ErrNewer) {
		old.handedOff.Add(1)
		return cur.handle(ctx, r)
	}
	return err
}

// A deploy is live traffic while new code rolls out over old: writers of
// both versions, and readers of the new one, at the same time.
type deploy[O, N any] struct {
	old *service[O]
	cur *service[N]
	// read reads one ticket or one customer's tickets with the new code,
	// and says what is wrong with what it saw ("" if nothing).
	read func(ctx context.Context, r *rand.Rand) (string, error)
}

// run sends each writer's requests (old writers through route, new ones
// to the new code) while two readers read, until the writers are done.
// It returns the number of reads and what the readers saw wrong.
func (d *deploy[O, N]) run(ctx context.Context, oldWriters, newWriters [][]request) (int64, []string, error) {
	var (
		writers, readers sync.WaitGroup
		mu               sync.Mutex
		wrong            []string
		errs             []error
		reads            atomic.Int64
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for _, reqs := range oldWriters {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for _, r := range reqs {
				if err := route(ctx, d.old, d.cur, r); err != nil {
					fail(fmt.Errorf("%s writer: %w", d.old.name, err))
					return
				}
			}
		}()
	}
	for _, reqs := range newWriters {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for _, r := range reqs {
				if err := d.cur.handle(ctx, r); err != nil {
					fail(fmt.Errorf("%s writer: %w", d.cur.name, err))
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	for i := range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			r := rand.New(rand.NewPCG(uint64(i), 99))
			for {
				what, err := d.read(ctx, r)
				reads.Add(1)
				if err != nil {
					fail(fmt.Errorf("%s reader: %w", d.cur.name, err))
					return
				}
				if what != "" {
					mu.Lock()
					wrong = append(wrong, what)
					mu.Unlock()
				}
				select {
				case <-done:
					return
				default:
				}
			}
		}()
	}
	writers.Wait()
	close(done)
	readers.Wait()
	return reads.Load(), wrong, errors.Join(errs...)
}

// requests makes n writers' requests (seeded: the same on every run), each
// writer's first one for ticket first, and adds them to tally, the
// replies each ticket gets.
func requests(r *rand.Rand, writers, each int, first string, tally map[string]int) [][]request {
	out := make([][]request, writers)
	for w := range out {
		for i := range each {
			req := request{ticket: first}
			if i > 0 {
				req.ticket = ticketID(1 + r.IntN(activeTickets))
			}
			if r.IntN(4) == 0 {
				req.customer = customers[r.IntN(len(customers))]
			}
			out[w] = append(out[w], req)
			tally[req.ticket]++
		}
	}
	return out
}
