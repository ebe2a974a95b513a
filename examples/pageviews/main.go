// Command pageviews runs the seed's page-view counter (dynamodb-data-
// modeling.txt, "Write Sharding for Hot Partitions"; dynamodb-single-table-
// adjacency.txt, hot partitions) against DynamoDB Local: a counter too hot
// for one partition is spread over 10 shards, each increment an
// `ADD view_count :inc` on a random shard, and the total is read by one
// call that fans out over every shard in parallel. Many concurrent writers
// increment it; the example checks that the sum is exactly right, that the
// writes spread over the shards, and that pages with a cursor add up too,
// and exits non-zero otherwise.
//
// The seed keeps its shards in the sort key (one partition); here the shard
// is in the partition key, as the adjacency seed advises, so that the
// writes reach different partitions.
//
//	make examples   # starts DynamoDB Local and runs every example
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	st "github.com/singletable/singletable"
	"github.com/singletable/singletable/internal/examplekit"
	"github.com/singletable/singletable/singletabletest/local"
)

// PageView is one shard of a page's view counter.
type PageView struct {
	PageID string `dynamodbav:"pageId"`
	Shard  int    `dynamodbav:"shard"`
	Views  int64  `dynamodbav:"view_count"`
}

// ShardCount is the seed's SHARD_COUNT.
const ShardCount = 10

var (
	Site      = st.MustTable("PageViews")
	PageViews = st.MustDefine[PageView](Site, "PageView",
		st.Key("PAGEVIEW#{PageID}#{Shard}", "COUNTER"),
		st.Shards("Shard", ShardCount)) // chosen at random by each increment (RandomShard)
	// PageViewShards reads every shard of a page: the seed's scatter-gather.
	PageViewShards = PageViews.Pattern("PageViewShards").Must()
)

// incrementPageView is the seed's increment_page_view.
func incrementPageView(ctx context.Context, db *st.DB, pageID string) error {
	_, err := PageViews.Update(ctx, db, PageView{PageID: pageID}, st.Increment("Views", 1), st.Upsert(), st.RandomShard())
	return err
}

// pageViews is the seed's get_page_views.
func pageViews(ctx context.Context, db *st.DB, pageID string) (int64, error) {
	return st.Sum(ctx, db, PageViewShards, PageView{PageID: pageID}, func(v PageView) int64 { return v.Views })
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("\nEvery increment was counted once, across every shard.")
}

func run(ctx context.Context) error {
	client, err := local.Client(ctx)
	if err != nil {
		return err
	}
	db := st.New(client, Site)
	if err := examplekit.FreshTable(ctx, db); err != nil {
		return err
	}
	fmt.Printf("Created table %s.\n\n%s\n", db.TableName(), Site.Sheet())
	var c examplekit.Checker

	const writers, each = 20, 50
	pages := map[string]int{"home": writers * each, "about": 7}
	fmt.Printf("1. %d writers increment page home %d times each; page about gets 7 views\n", writers, each)
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if err := incrementPageView(ctx, db, "home"); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range pages["about"] {
		if err := incrementPageView(ctx, db, "about"); err != nil {
			return err
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		return err
	}

	fmt.Println("\n2. The totals, each one call over every shard")
	for page, want := range pages {
		got, err := pageViews(ctx, db, page)
		if err != nil {
			return err
		}
		fmt.Printf("  %s: %d views\n", page, got)
		c.Equal("total of "+page, int64(want), got)
	}
	c.Equal("a page never viewed", int64(0), must(pageViews(ctx, db, "never")))

	fmt.Println("\n3. How the increments spread over the shards of home")
	used := 0
	for v, err := range PageViewShards.All(ctx, db, PageView{PageID: "home"}) {
		if err != nil {
			return err
		}
		fmt.Printf("  shard %d: %d\n", v.Shard, v.Views)
		used++
	}
	c.That("the writes reached at least 8 of the 10 shards", used >= 8)

	fmt.Println("\n4. Paging: three shards a page, resumed with the cursor")
	var sum int64
	cursor := ""
	for {
		page, err := PageViewShards.Query(ctx, db, PageView{PageID: "home"}, st.Limit(3), st.After(cursor))
		if err != nil {
			return err
		}
		for _, v := range page.Items {
			sum += v.Views
		}
		fmt.Printf("  %d shards, %d requests\n", len(page.Items), page.Requests)
		if cursor = page.Cursor; cursor == "" {
			break
		}
	}
	c.Equal("the pages add up to the total", int64(pages["home"]), sum)

	fmt.Println("\n5. A shard out of range is refused before sending")
	err = PageViews.Put(ctx, db, PageView{PageID: "home", Shard: ShardCount})
	fmt.Printf("  %v\n", err)
	c.That("shard 10 of 10 is an ErrInvalidKey", err != nil && errors.Is(err, st.ErrInvalidKey))
	return c.Err()
}

func must(n int64, err error) int64 {
	if err != nil {
		panic(err)
	}
	return n
}
