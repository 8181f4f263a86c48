package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// Bounds on one listing (every walk of a list, here and in conformance).
// They are mcp-eval's, not the spec's: the spec puts no limit on a list
// (server/utilities/pagination.mdx), so reaching one is reported as
// mcp-eval stopping, not as the server failing. The time bound stops a
// list without end whose every page comes within --timeout (new items and
// a new cursor on every page, which no repeated cursor or page betrays).
// One listing gets twice the time of one request, the client's Timeout
// (--timeout), at most MaxListTime: a list is one answer sent in pages, and
// a run against a server that never stops paging then ends within a few
// timeouts, as one against a hung server does. A big list served at the
// pace of a local server is read in far less (100 000 tools over 1 000
// pages: bench/README.md), and a slow one is given more by --timeout.
const (
	// MaxListItems bounds the items of one listing over all its pages.
	MaxListItems = 100_000
	// MaxListPages bounds the pages (a server may send empty pages).
	MaxListPages = 10_000
	// MaxListTime caps the time one listing may take, which is the
	// client's Timeout unless Options.MaxListTime says otherwise.
	MaxListTime = time.Minute
)

// listTimeouts is how many request timeouts one listing may take: one was
// too few for a correct 32-page local server walked beside 24 CPU-bound
// processes (30 pages in 4.2 s against a 4 s --timeout), and two keep a
// server that pages for ever within the hostile bound of 3 × --timeout +
// 2 s (the walk to the bound, then one 10-page walk for the checks).
const listTimeouts = 2

// defaultTimeout is a request's timeout when Options.Timeout is 0.
const defaultTimeout = 10 * time.Second

// The bounds, by name, as ListStopError.Bound and ListBound say them.
const (
	BoundItems = "items"
	BoundPages = "pages"
	BoundTime  = "time"
)

// ListBound returns the bound a listing on c that has read pages and
// items since start has reached ("" when none): BoundPages, BoundItems or
// BoundTime.
func (c *Client) ListBound(pages, items int, start time.Time) string {
	switch {
	case pages >= MaxListPages:
		return BoundPages
	case items >= MaxListItems:
		return BoundItems
	case time.Since(start) >= c.ListTime():
		return BoundTime
	}
	return ""
}

// ListTime is the time one listing on c may take: Options.MaxListTime
// when set, else listTimeouts per-request Timeouts, at most MaxListTime.
func (c *Client) ListTime() time.Duration {
	if c.opts.MaxListTime > 0 {
		return c.opts.MaxListTime
	}
	if c.opts.Timeout > 0 {
		return min(listTimeouts*c.opts.Timeout, MaxListTime)
	}
	return min(listTimeouts*defaultTimeout, MaxListTime)
}

// BoundText says which of mcp-eval's bounds on one listing on c ended it.
func (c *Client) BoundText(bound string) string {
	switch bound {
	case BoundPages:
		return fmt.Sprintf("its bound of %d pages", MaxListPages)
	case BoundItems:
		return fmt.Sprintf("its bound of %d items", MaxListItems)
	case BoundTime:
		if c.opts.MaxListTime > 0 {
			return fmt.Sprintf("its bound of %v", c.ListTime())
		}
		return fmt.Sprintf("its bound of %v, twice the request timeout (2 × --timeout, at most %v)", c.ListTime(), MaxListTime)
	}
	return "its bound"
}

// ListStopError says why a listing stopped before its last page: the server
// sent a cursor it had sent before (Loop: following it would never end), or
// the listing reached one of mcp-eval's bounds (Bound). The pages before are
// kept.
type ListStopError struct {
	Method string
	// Loop is set when Cursor was already followed, at page Again.
	Loop   bool
	Cursor string
	Again  int
	// Bound is BoundItems, BoundPages or BoundTime when a bound stopped it.
	Bound string
	// Pages and Items are what was read before stopping, in Elapsed.
	Pages, Items int
	Elapsed      time.Duration
	// Limit says the bound reached ("its bound of 30s").
	Limit string
}

func (e *ListStopError) Error() string {
	if e.Loop {
		return fmt.Sprintf("%s: page %d returned nextCursor %q, already followed after page %d: a pagination loop; stopped after %d items",
			e.Method, e.Pages, clip.Bytes(e.Cursor, 80), e.Again, e.Items)
	}
	return fmt.Sprintf("%s: stopped after %d pages and %d items in %v, at mcp-eval's bound on one listing (%s); not a fault of the server",
		e.Method, e.Pages, e.Items, e.Elapsed.Round(time.Millisecond), e.Limit)
}

// Page is one page of a paginated list, for checks that judge every page.
type Page struct {
	// Cursor is the cursor sent for this page; nil for the first.
	Cursor *string
	// Result is the page's result member, raw.
	Result json.RawMessage
	// Items are the raw entries of the list member.
	Items []json.RawMessage
	// Status and Header are the HTTP status and headers (0 and nil on stdio).
	Status int
	Header http.Header
}

// ListPages calls a paginated list method from the first page until
// nextCursor is absent (an empty string is a cursor, not the end:
// server/utilities/pagination.mdx), and returns every page read; on an
// error the pages before it come with it (see ListStopError).
func (c *Client) ListPages(ctx context.Context, method, member string) ([]Page, error) {
	return c.listPages(ctx, method, member, true)
}

func (c *Client) listPages(ctx context.Context, method, member string, keepResult bool) ([]Page, error) {
	var pages []Page
	var cursor *string
	seen := map[string]int{} // cursor → the page after which it came
	items := 0
	start := time.Now()
	for {
		if b := c.ListBound(len(pages), items, start); b != "" {
			return pages, &ListStopError{Method: method, Bound: b, Pages: len(pages), Items: items, Elapsed: time.Since(start), Limit: c.BoundText(b)}
		}
		params := map[string]any{}
		if cursor != nil {
			params["cursor"] = *cursor
		}
		call := c.NewCall(method, params)
		x, err := c.Do(ctx, call)
		if err != nil {
			return pages, err
		}
		res, err := Result(call, x)
		if err != nil {
			return pages, err
		}
		members, err := x.Response.ResultMembers()
		if err != nil {
			return pages, fmt.Errorf("%s: result is not an object", method)
		}
		p := Page{Cursor: cursor, Status: x.Status, Header: x.Header}
		if keepResult {
			p.Result = res
		}
		if raw, ok := members[member]; ok && string(bytes.TrimSpace(raw)) != "null" {
			// Items alias the member's bytes rather than copy them.
			if p.Items, err = ParsedElements(raw); err != nil {
				return pages, fmt.Errorf("%s: %s is not an array", method, member)
			}
		}
		items += len(p.Items)
		pages = append(pages, p)
		next, ok := members["nextCursor"]
		if !ok || string(next) == "null" {
			return pages, nil
		}
		var s string
		if err := json.Unmarshal(next, &s); err != nil {
			return pages, fmt.Errorf("%s: nextCursor is not a string", method)
		}
		if at, dup := seen[s]; dup {
			return pages, &ListStopError{Method: method, Loop: true, Cursor: s, Again: at, Pages: len(pages), Items: items}
		}
		seen[s] = len(pages)
		cursor = &s
	}
}

// ListAll is ListPages reduced to the items of every page, in order.
func (c *Client) ListAll(ctx context.Context, method, member string) ([]json.RawMessage, error) {
	pages, err := c.listPages(ctx, method, member, false)
	var all []json.RawMessage
	for _, p := range pages {
		all = append(all, p.Items...)
	}
	return all, err
}
