package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/describe"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// TestNearDuplicatesMatchesPairwise: the indexed lint finds exactly the
// pairs the pairwise comparison finds, on lists built to have many near
// pairs (small vocabularies, copied descriptions with one word changed).
func TestNearDuplicatesMatchesPairwise(t *testing.T) {
	pairs := 0
	for seed := range 30 {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		vocab := 8 + rng.IntN(40)
		var ts []mcp.Tool
		for i := range 60 {
			var desc string
			if i > 0 && rng.IntN(3) == 0 {
				w := strings.Fields(ts[rng.IntN(i)].Description)
				if len(w) > 0 {
					w[rng.IntN(len(w))] = fmt.Sprintf("w%d", rng.IntN(vocab))
				}
				desc = strings.Join(w, " ")
			} else {
				n := 3 + rng.IntN(25)
				w := make([]string, n)
				for k := range w {
					w[k] = fmt.Sprintf("w%d", rng.IntN(vocab))
				}
				desc = strings.Join(w, " ")
			}
			ts = append(ts, mcp.Tool{Name: fmt.Sprintf("t%02d", i), Description: desc})
		}
		var want []string
		for i := range ts {
			for j := i + 1; j < len(ts); j++ {
				if sim := similarity(ts[i].Description, ts[j].Description); sim >= nearDuplicateRatio {
					want = append(want, fmt.Sprintf("%s ~ %s (%.0f%% alike)", ts[i].Name, ts[j].Name, 100*sim))
				}
			}
		}
		pairs += len(want)
		got := []string(nearDuplicates(ts))
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d: indexed lint found\n%s\npairwise found\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if pairs < 30 {
		t.Fatalf("only %d near pairs in all lists: the test compares nothing", pairs)
	}
}

// TestNearDuplicatesIsBounded: a list of identical descriptions stops at
// maxNearDuplicates pairs instead of comparing every pair.
func TestNearDuplicatesIsBounded(t *testing.T) {
	ts := make([]mcp.Tool, 3000)
	for i := range ts {
		ts[i] = mcp.Tool{Name: fmt.Sprintf("t%d", i), Description: "Search the catalogue for matching records and return them."}
	}
	p := nearDuplicates(ts)
	if len(p) != maxNearDuplicates+1 || !strings.Contains(p[len(p)-1], "stopped") {
		t.Fatalf("%d problems, last %q", len(p), p[len(p)-1])
	}
}

// TestListWithoutEnd: a tools/list that never ends (new tools and a new
// cursor on every page, each page in time) is stopped by mcp-eval's time
// bound, twice the time of one request (2 × --timeout), which the checks name; what
// was read is judged, and pagination/cursor-round-trip passes naming the
// bound. Once
// the setup's listing has found no end, the runs share one short walk
// rather than walk into the bound again: the list is walked to the bound
// once (measured before the fix: 6 770 pages in 300 s, then a 60 s walk
// and a 100-page one, 64.5 s against bench/hostile pages-endless).
func TestListWithoutEnd(t *testing.T) {
	var mu sync.Mutex
	var walks []int // pages requested by each walk of tools/list, in order
	fx := mcptest.NewHandler(mcptest.Options{Defects: mcptest.ParseDefects(mcptest.DefectEndlessPages), PageSize: 5})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Mcp-Method") == "tools/list" && !strings.Contains(string(b), "mcp-eval-probe") {
			mu.Lock()
			if !strings.Contains(string(b), `"cursor"`) {
				walks = append(walks, 0)
			}
			if len(walks) > 0 {
				walks[len(walks)-1]++
			}
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	// No MaxListTime: the bound is the request timeout's.
	const timeout = 3 * time.Second
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: srv.URL + "/mcp"}, mcp.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := Run(ctx, c, Options{Runs: 5, Only: []string{"caching/tools-list", "pagination/cursor-round-trip", "ordering", "schema/input-schema-valid"}})
	if err != nil {
		t.Fatal(err)
	}
	// The time bound, or on a fast machine the page bound, which a 3 s
	// walk of 5-item pages can reach first: either is mcp-eval's own.
	names := func(s string) bool {
		return strings.Contains(s, "its bound of 6s, twice the request timeout (2 × --timeout") || strings.Contains(s, "its bound of 10000 pages")
	}
	for _, ch := range res.Checks {
		switch ch.ID {
		case "ordering/tools-list-fresh-connection":
			if ch.Status != report.StatusSkip || !strings.Contains(ch.Message, "did not end within mcp-eval's bound") {
				t.Errorf("%s: %s %q", ch.ID, ch.Status, ch.Message)
			}
		case "pagination/cursor-round-trip":
			// What was read round-tripped: a pass, naming what was read
			// and mcp-eval's bound (the spec sets none).
			if ch.Status != report.StatusPass || !names(ch.Info) || !strings.Contains(ch.Info, "not paged to its end") || !strings.Contains(ch.Info, "pages and") {
				t.Errorf("%s: %s %q, want a pass naming the bound", ch.ID, ch.Status, ch.Info)
			}
		default:
			if ch.Status != report.StatusPass {
				t.Errorf("%s: %s %q, want pass: what was read is correct", ch.ID, ch.Status, ch.Message)
			}
			if ch.ID != "ordering/tools-list" && !names(ch.Info) {
				t.Errorf("%s: info %q names neither bound", ch.ID, ch.Info)
			}
		}
	}
	// The setup's walk to the bound, then one short walk for all five runs.
	mu.Lock()
	defer mu.Unlock()
	if len(walks) != 2 || walks[0] <= shortWalk || walks[1] != shortWalk {
		t.Errorf("tools/list walks of %v pages; want two: the setup's to the bound, then one of %d pages shared by the runs", walks, shortWalk)
	}
}

// TestOneWalkPerRun: each run of the checks walks tools/list once, every
// check that reads the list (ordering's comparison included) sharing it,
// and the setup takes the run's description instead of listing again
// (measured before the fix: the list was walked about three times as often).
func TestOneWalkPerRun(t *testing.T) {
	var mu sync.Mutex
	walks := 0 // tools/list requests with a cursor: one per walk of the two-page list
	fx := mcptest.NewHandler(mcptest.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Header.Get("Mcp-Method") == "tools/list" && strings.Contains(string(b), `"cursor"`) && !strings.Contains(string(b), "mcp-eval-probe") {
			mu.Lock()
			walks++
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: srv.URL + "/mcp"}, mcp.Options{Timeout: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	desc := describe.Describe(ctx, c)
	res, err := Run(ctx, c, Options{Runs: 3, Listed: desc,
		Only: []string{"caching/tools-list", "result-type/tools-list", "schema", "lint", "ordering/tools-list", "pagination/cursor-round-trip"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range res.Checks {
		if ch.Status != report.StatusPass {
			t.Errorf("%s: %s %q", ch.ID, ch.Status, ch.Message)
		}
	}
	if walks != 4 {
		t.Errorf("tools/list walked %d times, want 4: the description's and one per run", walks)
	}
}

// similarity is the Jaccard index of the word sets of two descriptions;
// descriptions under five words are not compared (short ones are the
// tool-description lint's business).
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) < 5 || len(wb) < 5 {
		return 0
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	return float64(inter) / float64(union)
}

// TestInternerMatch: a page is taken as the list's next items without
// splitting exactly when splitting it would give those items; otherwise
// match declines and the page is split. The items are one whole JSON value
// each, so a prefix of a longer value is no match.
func TestInternerMatch(t *testing.T) {
	canon := &toolSet{raws: raws(`{"name":"a"}`, `{"name":"b"}`, `1`, `"c"`)}
	cases := []struct {
		page string
		at   int // items matched before this page
		want int // items taken, 0 when match declines
	}{
		{`[{"name":"a"},{"name":"b"}]`, 0, 2},
		{` [ {"name":"a"} ,
		{"name":"b"} ] `, 0, 2},
		{`[1,"c"]`, 2, 2},
		{`[{"name":"a"}]`, 0, 1},
		{`[{"name":"b"}]`, 0, 0},              // another item where a is expected
		{`[{"name":"a"},{"name":"x"}]`, 0, 0}, // the second differs
		{`[12,"c"]`, 2, 0},                    // 1 is a prefix of 12, not the item
		{`[1,"c",5]`, 2, 0},                   // more items than the list holds
		{`[{"name":"a"} {"name":"b"}]`, 0, 0},
		{`[]`, 0, 0},
		{`{"name":"a"}`, 0, 0},
		{`[{"name":"a","x":1}]`, 0, 0},
	}
	for _, c := range cases {
		in := &interner{canon: canon, n: c.at}
		items, ok := in.match([]byte(c.page))
		if ok != (c.want > 0) || len(items) != c.want {
			t.Errorf("match(%q) at %d = %d items, %v; want %d", c.page, c.at, len(items), ok, c.want)
			continue
		}
		if !ok {
			continue
		}
		split, err := mcp.ParsedElements([]byte(c.page))
		if err != nil || !sameRaws(split, items) {
			t.Errorf("match(%q) = %q, but the page splits into %q (%v)", c.page, items, split, err)
		}
	}
	if _, ok := (&interner{}).match([]byte(`[{"name":"a"}]`)); ok {
		t.Error("match without a list to match took the page")
	}
}

func raws(ss ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ss))
	for i, s := range ss {
		out[i] = json.RawMessage(s)
	}
	return out
}

// TestNoRelistAfterTimeout: a setup listing that got no answer at all (a
// timeout) is not walked again before the checks start, which would only
// wait --timeout once more; one that got an unusable answer still is (the
// checks' walk is more lenient). Counted in requests, not time.
func TestNoRelistAfterTimeout(t *testing.T) {
	var mu sync.Mutex
	lists := 0
	fx := mcptest.NewHandler(mcptest.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/list" {
			mu.Lock()
			lists++
			mu.Unlock()
			select { // no answer within the client's timeout
			case <-r.Context().Done():
			case <-time.After(3 * time.Second):
			}
			return
		}
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	c, err := mcp.Connect(ctx, &mcp.HTTPTarget{URL: srv.URL + "/mcp"}, mcp.Options{Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := Run(ctx, c, Options{Runs: 1, Only: []string{"pagination/cursor-round-trip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 1 || res.Checks[0].Status != report.StatusError || !strings.Contains(res.Checks[0].Message, "no answer within") {
		t.Errorf("checks %+v, want pagination/cursor-round-trip errored on the timeout", res.Checks)
	}
	mu.Lock()
	defer mu.Unlock()
	if lists != 2 {
		t.Errorf("tools/list sent %d times, want 2: the setup's and the run's walk, no second setup walk", lists)
	}
}

func TestDuplicateNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  problems
	}{
		{nil, nil},
		{[]string{"a", "b", "c"}, nil},
		{[]string{"b", "a", "b", "c", "a", "a"}, problems{`"a" ×3`, `"b" ×2`}},
		{[]string{"", ""}, problems{`"" ×2`}},
	} {
		var ts []mcp.Tool
		for _, n := range tc.names {
			ts = append(ts, mcp.Tool{Name: n})
		}
		if got := duplicateNames(ts); !slices.Equal(got, tc.want) {
			t.Errorf("duplicateNames(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}
