package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// pagedServer serves tools/list of total tools, per to a page; next maps
// the index of a page's first tool to the cursor it sends (nil: the index
// of the next page).
func pagedServer(t *testing.T, total, per int, next func(start int) string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(modernHandler(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				Cursor *string `json:"cursor"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		start := 0
		if req.Params.Cursor != nil {
			start, _ = strconv.Atoi(strings.TrimPrefix(*req.Params.Cursor, "c"))
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`, req.ID)
		end := min(start+per, total)
		for i := start; i < end; i++ {
			if i > start {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"t%d","inputSchema":{"type":"object"}}`, i)
		}
		b.WriteString("]")
		if end < total {
			c := "c" + strconv.Itoa(end)
			if next != nil {
				c = next(start)
			}
			fmt.Fprintf(&b, `,"nextCursor":%q`, c)
		}
		b.WriteString("}}")
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPagination(t *testing.T) {
	connect := func(t *testing.T, srv *httptest.Server) *Client {
		c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("a big server is followed to the end", func(t *testing.T) {
		// More than the 100 pages the client used to give up at.
		c := connect(t, pagedServer(t, 1503, 10, nil))
		pages, err := c.ListPages(context.Background(), "tools/list", "tools")
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) != 151 {
			t.Errorf("%d pages, want 151", len(pages))
		}
		if pages[0].Cursor != nil || pages[1].Cursor == nil || *pages[1].Cursor != "c10" {
			t.Errorf("cursors sent: %v, %v", pages[0].Cursor, pages[1].Cursor)
		}
		if !strings.Contains(string(pages[150].Result), `"ttlMs":0`) || pages[150].Status != 200 {
			t.Errorf("last page %s, status %d", pages[150].Result, pages[150].Status)
		}
		tools, err := c.ListTools(context.Background())
		if err != nil || len(tools) != 1503 || tools[1502].Name != "t1502" {
			t.Fatalf("ListTools = %d tools, %v", len(tools), err)
		}
	})
	t.Run("a repeated cursor is a pagination loop", func(t *testing.T) {
		c := connect(t, pagedServer(t, 100, 10, func(start int) string {
			if start >= 30 {
				return "c20" // back to page 3
			}
			return "c" + strconv.Itoa(start+10)
		}))
		pages, err := c.ListPages(context.Background(), "tools/list", "tools")
		var se *ListStopError
		if !errors.As(err, &se) || !se.Loop {
			t.Fatalf("err = %v, want a loop ListStopError", err)
		}
		if len(pages) != 4 || se.Cursor != "c20" || se.Again != 2 {
			t.Errorf("%d pages, stop %+v", len(pages), se)
		}
		if !strings.Contains(err.Error(), "a pagination loop") {
			t.Errorf("message %q", err)
		}
	})
	t.Run("the item bound is mcp-eval's, not the server's fault", func(t *testing.T) {
		c := connect(t, pagedServer(t, MaxListItems+5000, 10000, nil))
		items, err := c.ListAll(context.Background(), "tools/list", "tools")
		var se *ListStopError
		if !errors.As(err, &se) || se.Loop {
			t.Fatalf("err = %v, want a bound ListStopError", err)
		}
		if len(items) != MaxListItems || !strings.Contains(err.Error(), "not a fault of the server") {
			t.Errorf("%d items; %v", len(items), err)
		}
	})
}

func TestSplitArray(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{`[]`, nil, false},
		{` [ ] `, nil, false},
		{`[1]`, []string{`1`}, false},
		{`[{"a":[1,2]}, "x,]", [3] ,null]`, []string{`{"a":[1,2]}`, `"x,]"`, `[3]`, `null`}, false},
		{`["a\"],b", {"k":"}"}]`, []string{`"a\"],b"`, `{"k":"}"}`}, false},
		{`{"a":1}`, nil, true},
		{`[1,`, nil, true},
	}
	for _, tt := range tests {
		got, err := splitArray([]byte(tt.in))
		if (err != nil) != tt.err {
			t.Errorf("%s: err %v", tt.in, err)
			continue
		}
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if diff := cmp.Diff(tt.want, gs); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.in, diff)
		}
	}
}

// FuzzSplitArray: on any valid array, splitArray agrees with encoding/json.
func FuzzSplitArray(f *testing.F) {
	f.Add([]byte(`[{"a":"b,]"},[1,[2]],"\\\""]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		got, err := splitArray(b)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, want %d", b, len(got), len(want))
		}
		for i := range got {
			var a, c any
			if json.Unmarshal(got[i], &a) != nil || json.Unmarshal(want[i], &c) != nil || !cmp.Equal(a, c) {
				t.Fatalf("%q: element %d %s, want %s", b, i, got[i], want[i])
			}
		}
	})
}

// A list without end whose every page comes in time (new items and a new
// cursor on each) is stopped by the time bound, which the error names
// (measured before the fix: 6 770 pages in 300 s, and nothing stopped it).
func TestPaginationWithoutEnd(t *testing.T) {
	srv := pagedServer(t, 1<<40, 10, nil)
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: 5 * time.Second, MaxListTime: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	pages, err := c.ListPages(context.Background(), "tools/list", "tools")
	var se *ListStopError
	if !errors.As(err, &se) || se.Bound != BoundTime || len(pages) == 0 || se.Pages != len(pages) {
		t.Fatalf("%d pages, err = %v; want the time bound", len(pages), err)
	}
	if d := time.Since(start); d > 30*time.Second { // a hang guard: the list has no end
		t.Errorf("stopped after %v", d)
	}
	if !strings.Contains(err.Error(), "its bound of 300ms") {
		t.Errorf("message %q does not name the bound", err)
	}
}

// One listing gets twice the time of one request (2 × --timeout), at most
// MaxListTime, unless Options.MaxListTime sets it: a run against a list
// without end then ends within a few timeouts.
func TestListTimeFollowsTimeout(t *testing.T) {
	for _, tc := range []struct {
		opts Options
		want time.Duration
	}{
		{Options{Timeout: 2 * time.Second}, 4 * time.Second},
		{Options{Timeout: 10 * time.Second}, 20 * time.Second},
		{Options{Timeout: 45 * time.Second}, MaxListTime},
		{Options{Timeout: 5 * time.Minute}, MaxListTime},
		{Options{}, 2 * defaultTimeout},
		{Options{Timeout: 2 * time.Second, MaxListTime: 300 * time.Millisecond}, 300 * time.Millisecond},
	} {
		c := &Client{opts: tc.opts}
		if got := c.ListTime(); got != tc.want {
			t.Errorf("%+v: ListTime %v, want %v", tc.opts, got, tc.want)
		}
	}
	c := &Client{opts: Options{Timeout: 2 * time.Second}}
	if got := c.BoundText(BoundTime); !strings.Contains(got, "4s") || !strings.Contains(got, "--timeout") {
		t.Errorf("BoundText %q names neither the bound nor --timeout", got)
	}
}

// A list without end under a short --timeout and no MaxListTime: the walk
// stops at twice the time of one request, naming it.
func TestPaginationWithoutEndTimeout(t *testing.T) {
	srv := pagedServer(t, 1<<40, 10, nil)
	c, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL}, Options{Timeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pages, err := c.ListPages(context.Background(), "tools/list", "tools")
	var se *ListStopError
	if !errors.As(err, &se) || len(pages) == 0 || se.Pages != len(pages) || se.Items != 10*len(pages) {
		t.Fatalf("%d pages, err = %v; want a bound", len(pages), err)
	}
	// The time bound; on a machine fast enough to serve 10 000 pages in
	// 3 s, the page bound, which is mcp-eval's too.
	switch se.Bound {
	case BoundTime:
		if !strings.Contains(err.Error(), "its bound of 3s, twice the request timeout (2 × --timeout") {
			t.Errorf("message %q does not name the bound", err)
		}
	case BoundPages:
	default:
		t.Fatalf("bound %q: %v", se.Bound, err)
	}
}
