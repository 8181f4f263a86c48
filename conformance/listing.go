package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// A walk through a paginated list is bounded by mcp-eval's bounds on one
// listing (mcp.MaxListItems, mcp.MaxListPages, mcp.MaxListTime), the same
// the client's own listings keep. They are mcp-eval's, not the server's:
// reaching one is reported as mcp-eval stopping, naming the bound, and
// what was read is judged (measured before the fix: a correct server of 1 503 tools at 10
// per page failed 6 hard checks against a 100-page limit; before the fix, a list
// without end was walked for 300 s).

// A run of the checks reads each list once: every check of run r that
// needs tools/list (the caching, result-type, schema, lint and ordering
// checks) shares run r's walk through every page, so a big server is
// listed --runs times, not once per check per run; the setup reuses the
// run's description (Options.Listed) instead of listing again. Identical
// listings share one toolSet, whose parsed tools, compiled schemas and lint
// verdicts are computed once. The first walk of each method goes alone:
// when a bound stopped it (a list without end), the other runs judge that
// walk rather than walk into the same bound again.

// listing is one walk through every page of a list method (or the one
// answer of a single result such as resources/read).
type listing struct {
	pages []listPage
	// items are the array members of every page, in order (shared with an
	// identical earlier listing's).
	items []json.RawMessage
	// fail, when set, is why the walk stopped before the end: a request
	// failed or a page was not a list result.
	fail *Outcome
	// bounded says the walk stopped at mcp-eval's bound, not the end.
	bounded string
	// tools is set for tools/list.
	tools *toolSet
}

// listPage keeps what the checks judge of one page: its members other
// than the item array, and the evidence of its exchange (rendered now, so
// that the page's body is not kept).
type listPage struct {
	m  map[string]json.RawMessage
	ev map[string]any
	// first is m as a reader that keeps a duplicated member's first value
	// sees it, when that differs (shadowed.go); nil otherwise.
	first map[string]json.RawMessage
}

// pageEvidence is the evidence of a listing page's exchange, quoting the
// answer with its item array counted rather than shown: what the checks
// judge of a page is its other members, and a walk keeps the evidence of
// every page (at 50 tools a page, 4 KB of quoted items each, tens of MB
// for a big server's runs).
func pageEvidence(x *mcp.Exchange, m map[string]json.RawMessage, member string, items int, present bool) map[string]any {
	if x == nil || x.Response == nil || member == "" {
		return check.Protocol.Of(x)
	}
	shown := make(map[string]json.RawMessage, len(m)+1)
	for k, v := range m {
		shown[k] = v
	}
	if present {
		shown[member] = json.RawMessage(fmt.Sprintf(`"(%d items, not shown)"`, items))
	}
	result, err := json.Marshal(shown)
	if err != nil {
		return check.Protocol.Of(x)
	}
	msg := map[string]json.RawMessage{"result": result}
	if x.Response.JSONRPC != nil {
		msg["jsonrpc"] = x.Response.JSONRPC
	}
	if x.Response.ID != nil {
		msg["id"] = x.Response.ID
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return check.Protocol.Of(x)
	}
	c := *x
	r := *x.Response
	r.Raw, c.Response, c.Body = raw, &r, nil
	return check.Protocol.Of(&c)
}

type listingSlot struct {
	once sync.Once
	l    *listing
}

// firstWalk is the first walk of one method in the whole run, which the
// others wait for.
type firstWalk struct {
	done chan struct{} // closed once l is set
	l    *listing
}

// listingOf returns run's walk of lm, fetching it on first use.
func (e *Env) listingOf(ctx context.Context, lm listMethod) *listing {
	key := fmt.Sprintf("%s#%d", lm.method, check.RunIndex(ctx))
	e.listMu.Lock()
	slot := e.listings[key]
	if slot == nil {
		slot = &listingSlot{}
		e.listings[key] = slot
	}
	first, pioneer := e.firstWalks[lm.method]
	if !pioneer {
		first = &firstWalk{done: make(chan struct{})}
		e.firstWalks[lm.method] = first
	}
	e.listMu.Unlock()
	slot.once.Do(func() {
		if !pioneer {
			slot.l = e.walk(ctx, e.client, lm, true)
			first.l = slot.l
			close(first.done)
			return
		}
		select {
		case <-first.done:
		case <-ctx.Done():
			o := check.Errored(fmt.Errorf("%s: %w", lm.method, ctx.Err()), nil)
			slot.l = &listing{fail: &o}
			return
		}
		if first.l.bounded != "" {
			slot.l = first.l
			return
		}
		slot.l = e.walk(ctx, e.client, lm, true)
	})
	return slot.l
}

// unavailable is the outcome of a check that judges what lm's listing
// holds when the walk failed: an error (the check could not judge; the
// walk's own failure is pagination's business), with the walk's message
// after the method.
func (l *listing) unavailable(method string) Outcome {
	return Outcome{Status: report.StatusError, Message: method + ": " + l.fail.Message, Evidence: l.fail.Evidence}
}

// failure is the walk's failure as it is, the method before its message,
// for the checks that judge the walk itself.
func (l *listing) failure(method string) Outcome {
	o := *l.fail
	o.Message = method + ": " + o.Message
	return o
}

// listTools walks tools/list once more on c, for the checks that compare
// listings (ordering); the result is not shared.
func (e *Env) listTools(ctx context.Context, c *mcp.Client) ([]mcp.Tool, *Outcome) {
	l := e.walk(ctx, c, toolsList, false)
	if l.fail != nil {
		return nil, l.fail
	}
	return l.tools.tools, nil
}

// walk fetches every page of lm on c. keepPages keeps each page's other
// members and the evidence of its exchange, for the checks that visit the
// pages of a run's shared walk (e.pages); a walk that only compares the
// items (ordering) need not build them.
func (e *Env) walk(ctx context.Context, c *mcp.Client, lm listMethod, keepPages bool) *listing {
	// Few walks at once: each holds pages of a possibly huge list, and
	// they are sequential requests anyway.
	select {
	case e.walkSem <- struct{}{}:
		defer func() { <-e.walkSem }()
	case <-ctx.Done():
		o := check.Errored(fmt.Errorf("%s: %w", lm.method, ctx.Err()), nil)
		return &listing{fail: &o}
	}
	l := &listing{}
	in := e.newInterner(lm.method == "tools/list")
	// A tools/list the setup found without end within mcp-eval's bound is
	// walked a little way only: the time was spent once already.
	short := lm.method == "tools/list" && isBound(e.toolsErr)
	seen := map[string]int{}
	var prev []json.RawMessage
	var cursor *string
	start := time.Now()
	for page := 0; ; page++ {
		if short && page == shortWalk {
			l.bounded = shortWalkNote(e.toolsErr)
			break
		}
		if b := c.ListBound(page, in.count(), start); b != "" {
			l.bounded = fmt.Sprintf("mcp-eval stopped %s after %d pages and %d items in %v, at %s; what was read is judged, the rest was not",
				lm.method, page, in.count(), time.Since(start).Round(time.Millisecond), c.BoundText(b))
			break
		}
		params := lm.params(e)
		if cursor != nil {
			if params == nil {
				params = map[string]any{}
			}
			params["cursor"] = *cursor
		}
		call := c.NewCall(lm.method, params)
		x, orphans, err := e.do(ctx, c, call)
		if len(orphans) > 0 && err != nil {
			err = fmt.Errorf("%w; meanwhile the server wrote answers whose ids match no request (%v)", err, orphans)
		}
		m, o := resultMembers(call, x, err)
		if o != nil {
			if page > 0 {
				o.Message = fmt.Sprintf("page %d: %s", page+1, o.Message)
			}
			l.fail = o
			break
		}
		_, present := m[lm.member]
		if lm.member != "" {
			var items []json.RawMessage
			if raw, ok := m[lm.member]; ok && string(raw) != "null" {
				var same bool
				if items, same = in.match(raw); same {
					// The list's next items, byte for byte: nothing to split.
				} else if items, err = mcp.ParsedElements(raw); err != nil {
					o := check.Failf(check.Protocol.Of(x), "%s page %d: %s is not an array", lm.method, page+1, lm.member)
					l.fail = &o
					break
				}
			}
			if len(items) > 0 && sameRaws(items, prev) {
				o := check.Failf(check.Protocol.Of(x), "%s page %d repeats page %d item for item under a new cursor, so the list never ends (server/utilities/pagination: a cursor leads on)", lm.method, page+1, page)
				l.fail = &o
				break
			}
			prev = items
			in.add(items)
			delete(m, lm.member)
		}
		next, ok := m["nextCursor"]
		if keepPages {
			// The page keeps its other members, copied: they are small,
			// and the page's bytes (its items) are then free.
			for k, v := range m {
				m[k] = bytes.Clone(v)
			}
			l.pages = append(l.pages, listPage{m: m, ev: pageEvidence(x, m, lm.member, len(prev), present), first: firstValues(x, m)})
		}
		if lm.member == "" || !ok || string(next) == "null" {
			break
		}
		var s string
		if json.Unmarshal(next, &s) != nil {
			o := check.Fail(fmt.Sprintf("%s page %d: nextCursor is not a string", lm.method, page+1), check.Protocol.Of(x))
			l.fail = &o
			break
		}
		if p, dup := seen[s]; dup {
			o := check.Failf(check.Protocol.Of(x), "%s page %d: nextCursor %q was already returned by page %d, so the list never ends (server/utilities/pagination: a cursor leads on)", lm.method, page+1, clip.Bytes(s, 60), p+1)
			l.fail = &o
			break
		}
		seen[s] = page
		cursor = &s
	}
	l.items = in.items()
	if lm.method == "tools/list" {
		l.tools = in.toolSet()
		l.items = l.tools.raws
	}
	return l
}

// shortWalk is how many pages the runs walk of a list the setup found
// without end (within mcp-eval's bound): enough to judge how its pages are
// built, while the setup's walk spent the listing's time once already.
const shortWalk = 10

func shortWalkNote(setup error) string {
	return fmt.Sprintf("the first %d pages were judged: the setup's listing did not end within mcp-eval's bound (%v)", shortWalk, setup)
}

// interner collects a walk's items without keeping a second copy of a list
// already seen: while the items match the first toolSet's byte for byte it
// only counts them (the common case: a stable server lists the same tools
// every time).
type interner struct {
	e     *Env
	canon *toolSet // the list being matched, nil once it differs
	n     int      // items matched so far
	own   []json.RawMessage
}

func (e *Env) newInterner(tools bool) *interner {
	in := &interner{e: e}
	if tools {
		e.listMu.Lock()
		if len(e.toolSets) > 0 {
			in.canon = e.toolSets[0]
		}
		e.listMu.Unlock()
	}
	return in
}

func (in *interner) add(items []json.RawMessage) {
	for _, it := range items {
		if in.canon != nil && in.n < len(in.canon.raws) && bytes.Equal(in.canon.raws[in.n], it) {
			in.n++
			continue
		}
		if in.canon != nil {
			in.own = append(append([]json.RawMessage(nil), in.canon.raws[:in.n]...), in.own...)
			in.canon = nil
		}
		in.own = append(in.own, it)
	}
}

// match returns the items of raw, a JSON array of a parsed answer, when
// they are the next items of the list being matched, byte for byte and in
// order: found by comparing each with the bytes expected where it starts
// rather than by scanning the page (a big server's runs list the same pages
// again and again; splitting them was a tenth of the run). Each
// expected item is one whole JSON value, so when it is followed by a comma
// or the closing bracket it is the element there. false, and no items,
// when any of it differs: the caller splits the page.
func (in *interner) match(raw []byte) ([]json.RawMessage, bool) {
	if in.canon == nil {
		return nil, false
	}
	raw = jsonscan.TrimSpace(raw)
	rest := in.canon.raws[in.n:]
	if len(raw) < 2 || raw[0] != '[' {
		return nil, false
	}
	for i, k := 1, 0; k < len(rest); k++ {
		i = jsonscan.SkipSpace(raw, i)
		if !bytes.HasPrefix(raw[i:], rest[k]) {
			return nil, false
		}
		if i = jsonscan.SkipSpace(raw, i+len(rest[k])); i >= len(raw) {
			return nil, false
		}
		switch {
		case raw[i] == ',':
			i++
		case raw[i] == ']' && i == len(raw)-1:
			return rest[:k+1], true
		default:
			return nil, false
		}
	}
	return nil, false
}

// count is how many items were added.
func (in *interner) count() int {
	if in.canon != nil {
		return in.n
	}
	return len(in.own)
}

func (in *interner) items() []json.RawMessage {
	if in.canon != nil {
		return in.canon.raws[:in.n]
	}
	return in.own
}

func (in *interner) toolSet() *toolSet {
	if in.canon != nil && in.n == len(in.canon.raws) {
		return in.canon
	}
	return in.e.internTools(in.items(), nil)
}

// toolSet is one tools/list content with what the checks derive from it,
// each computed once however many runs and checks read it.
type toolSet struct {
	raws  []json.RawMessage
	tools []mcp.Tool

	mu      sync.Mutex
	verdict map[string]Outcome // a judge's outcome, by check id

	compileOnce sync.Once
	compiled    schemaProblems
}

// schemaProblems are what compiling every schema of a list found.
type schemaProblems struct{ invalidIn, refsIn, invalidOut, refsOut problems }

// schemaProblems compiles every input and output schema of the list once
// (the three schema checks share it) and keeps only the findings: a
// compiled schema is far bigger than its text, and a big server has
// thousands.
func (ts *toolSet) schemaProblems() schemaProblems {
	ts.compileOnce.Do(func() {
		c := &ts.compiled
		c.invalidIn, c.refsIn = compileAll(ts.tools, false)
		c.invalidOut, c.refsOut = compileAll(ts.tools, true)
	})
	return ts.compiled
}

// internTools returns the toolSet for raws, the one already made for an
// identical listing if there is one. tools, when set, are raws decoded
// already (mcp.Client.ListTools: every entry that decodes, with its Raw),
// so that they are not decoded again.
func (e *Env) internTools(raws []json.RawMessage, tools []mcp.Tool) *toolSet {
	e.listMu.Lock()
	defer e.listMu.Unlock()
	for _, ts := range e.toolSets {
		if sameRaws(ts.raws, raws) {
			return ts
		}
	}
	ts := &toolSet{raws: raws, tools: tools, verdict: map[string]Outcome{}}
	if tools == nil {
		for _, r := range raws {
			if t, ok := mcp.DecodeTool(r); ok {
				ts.tools = append(ts.tools, t)
			}
		}
	}
	e.toolSets = append(e.toolSets, ts)
	return ts
}

func sameRaws(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// once returns the outcome of judge on this tool list, computed the first
// time a check asks: the data is the same in every run that listed it.
func (ts *toolSet) once(id string, judge func() Outcome) Outcome {
	ts.mu.Lock()
	o, ok := ts.verdict[id]
	ts.mu.Unlock()
	if ok {
		return o
	}
	o = judge()
	ts.mu.Lock()
	ts.verdict[id] = o
	ts.mu.Unlock()
	return o
}

// compiled is a schema compiled once per run of mcp-eval, by its bytes
// (for the few schemas a probe validates against).
type compiled struct {
	s   *schema.Schema
	err error
}

// compile compiles raw once, whatever check or run asks.
func (e *Env) compile(raw json.RawMessage) (*schema.Schema, error) {
	key := string(raw)
	if c, ok := e.schemas.Load(key); ok {
		return c.(*compiled).s, c.(*compiled).err
	}
	s, err := schema.Compile(raw)
	c, _ := e.schemas.LoadOrStore(key, &compiled{s, err})
	return c.(*compiled).s, c.(*compiled).err
}
