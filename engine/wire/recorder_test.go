package wire

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/mcp"
)

func modernCall(method string) *mcp.Outgoing {
	return &mcp.Outgoing{Method: method, Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)}
}

func msg(t *testing.T, raw string) *mcp.Message {
	t.Helper()
	m, err := mcp.ParseMessage([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecorderDeduplicates: the same defect in many answers is one finding
// with a count, per method and pointer (array indices generalised), and
// the first message is its evidence.
func TestRecorderDeduplicates(t *testing.T) {
	r := NewRecorder()
	r.SetRevision("2026-07-28")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r.MessageReceived(modernCall("tools/list"), msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","tools":[],"nextCursor":%d,"ttlMs":1,"cacheScope":"public"}}`, i, i%2)))
			r.MessageReceived(modernCall("tools/call"), msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","content":[{"type":"text","text":"a"},{"type":"x"},{"type":"y"}]}}`, i)))
		}(i)
	}
	wg.Wait()
	s := r.Summary()
	if s.Received != 40 || s.Validated != 40 || s.Unavailable != "" {
		t.Fatalf("summary %+v", s)
	}
	if len(s.Findings) != 2 {
		t.Fatalf("findings %+v, want 2", s.Findings)
	}
	byMethod := map[string]Finding{}
	for _, f := range s.Findings {
		byMethod[f.Method] = f
	}
	if f := byMethod["tools/list"]; f.Pointer != "/result/nextCursor" || f.Keyword != "type" || f.Count != 20 || !strings.Contains(f.Example, `"nextCursor"`) {
		t.Errorf("tools/list finding %+v", f)
	}
	if f := byMethod["tools/call"]; f.Keyword != "anyOf" || f.Count != 40 || f.Value == "" {
		t.Errorf("tools/call finding %+v (two bad blocks in each of 20 answers)", f)
	}
}

// TestRecorderHoldsUntilRevision: what arrives before the revision is
// known (the era probe's answers) is judged once it is.
func TestRecorderHoldsUntilRevision(t *testing.T) {
	r := NewRecorder()
	r.MessageReceived(modernCall("server/discover"), msg(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":1,"cacheScope":"public"}}`))
	if s := r.Summary(); s.Validated != 0 || s.Unavailable == "" {
		t.Fatalf("before SetRevision: %+v", s)
	}
	r.SetRevision("2026-07-28")
	s := r.Summary()
	if s.Validated != 1 || len(s.Findings) != 1 || s.Findings[0].Keyword != "required" || !strings.Contains(s.Findings[0].Message, "capabilities") {
		t.Errorf("after SetRevision: %+v", s)
	}
}

// TestRecorderOtherRevisions: answers to requests that did not declare
// 2026-07-28 are counted, not judged (a dual-era server may serve them as
// legacy requests); a run on another revision says it has no schema.
func TestRecorderOtherRevisions(t *testing.T) {
	r := NewRecorder()
	r.SetRevision("2026-07-28")
	legacy := &mcp.Outgoing{Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)}
	r.MessageReceived(legacy, msg(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`))
	r.MessageReceived(modernCall("initialize"), msg(t, `{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"2025-11-25"}}`))
	r.MessageReceived(nil, msg(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1}}`))
	s := r.Summary()
	if s.OtherRevision != 1 || s.Validated != 2 || len(s.Findings) != 1 || s.Findings[0].Method != "notifications/progress" {
		t.Errorf("summary %+v", s)
	}
	old := NewRecorder()
	old.SetRevision("2025-11-25")
	old.MessageReceived(legacy, msg(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`))
	if s := old.Summary(); s.Unavailable == "" || s.Validated != 0 {
		t.Errorf("legacy run: %+v", s)
	}
}

// TestRecorderCache: an answer seen again under another id is not
// validated again, and a different answer is.
func TestRecorderCache(t *testing.T) {
	r := NewRecorder()
	r.SetRevision("2026-07-28")
	for i := 0; i < 50; i++ {
		r.MessageReceived(modernCall("tools/list"), msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","tools":[],"ttlMs":1,"cacheScope":"public"}}`, i)))
	}
	r.Summary() // drains the queue
	if n := len(r.cache); n != 1 {
		t.Errorf("%d cache entries for one answer under 50 ids", n)
	}
	r.MessageReceived(modernCall("tools/list"), msg(t, `{"jsonrpc":"2.0","id":"x","result":{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"public"}}`))
	if s := r.Summary(); len(s.Findings) != 1 || s.Findings[0].Keyword != "minimum" {
		t.Errorf("a different answer: %+v", s.Findings)
	}
}

// TestRecorderHoldsARepeatedAnswerOnce: copies of an answer queued behind
// its first (a big tools/list page answering every probe that lists tools,
// while the first is validated) are held without their bytes, and count
// as the first does: the same findings, duplicate names included.
func TestRecorderHoldsARepeatedAnswerOnce(t *testing.T) {
	r := NewRecorder()
	// Before the revision is known nothing is judged, so the queue shows
	// what is held.
	for i := 0; i < 30; i++ {
		r.MessageReceived(modernCall("tools/list"), msg(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"resultType":"complete","tools":[],"tools":[],"nextCursor":1,"ttlMs":1,"cacheScope":"public"}}`, i)))
	}
	r.MessageReceived(modernCall("tools/list"), msg(t, `{"jsonrpc":"2.0","id":99,"result":{"resultType":"complete","tools":[],"ttlMs":-1,"cacheScope":"public"}}`))
	r.mu.Lock()
	withBytes := 0
	for _, h := range r.queue {
		if h.raw != nil {
			withBytes++
		}
	}
	queued := len(r.queue)
	r.mu.Unlock()
	if queued != 31 || withBytes != 2 {
		t.Fatalf("%d queued, %d with their bytes; want 31 and 2", queued, withBytes)
	}
	r.SetRevision("2026-07-28")
	s := r.Summary()
	if s.Received != 31 || s.Validated != 31 {
		t.Fatalf("summary %+v", s)
	}
	counts := map[string]int{}
	for _, f := range s.Findings {
		counts[f.Pointer+" "+f.Keyword] = f.Count
		if f.Example == "" {
			t.Errorf("finding %+v has no example", f)
		}
	}
	if counts["/result/nextCursor type"] != 30 || counts["/result/ttlMs minimum"] != 1 {
		t.Errorf("findings %+v", s.Findings)
	}
	d := r.Duplicates()
	if d.Scanned != 31 || d.Messages != 30 || len(d.Findings) != 1 || d.Findings[0].Count != 30 {
		t.Errorf("duplicate names %+v", d)
	}
	// The next copy, after the first was judged, is held without its bytes too.
	r.MessageReceived(modernCall("tools/list"), msg(t, `{"jsonrpc":"2.0","id":100,"result":{"resultType":"complete","tools":[],"tools":[],"nextCursor":1,"ttlMs":1,"cacheScope":"public"}}`))
	if s := r.Summary(); s.Validated != 32 || len(r.pending) != 0 {
		t.Errorf("after one more copy: %+v, pending %v", s, r.pending)
	}
}

func TestIDSpan(t *testing.T) {
	for raw, want := range map[string]string{
		`{"jsonrpc":"2.0","id":12,"result":{}}`: "12",
		`{"jsonrpc":"2.0","id":"a,}\"b","x":1}`: `"a,}\"b"`,
		`{"result":{},"id":7}`:                  "7",
		`{"jsonrpc":"2.0","method":"n"}`:        "",
	} {
		sp := idSpan([]byte(raw))
		if got := raw[sp[0]:sp[1]]; got != want {
			t.Errorf("%s: got %q, want %q", raw, got, want)
		}
	}
}
