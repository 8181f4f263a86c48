package wire

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/mcp"
)

// Bounds on what a Recorder keeps.
const (
	// maxFindings is how many distinct (method, pointer, keyword) findings
	// are kept; the rest are counted.
	maxFindings = 200
	// maxHeld is how many messages are held before the revision is known
	// (the era probe's answers).
	maxHeld = 64
	// maxCached is how many distinct messages' verdicts are remembered, so
	// that the same answer (a tools/list fetched by every run of every
	// check) is validated once.
	maxCached = 8192
	// excerptBytes bounds the message and the value kept as evidence.
	excerptBytes = 2048
	valueBytes   = 300
)

// Finding is one violation, deduplicated per method, pointer (array
// indices generalised) and keyword, with the first message that showed it.
type Finding struct {
	// Method is the message's method, or for a response the method of the
	// request it answers ("(unknown request)" for an orphan).
	Method string `json:"method"`
	Violation
	// Value is the offending value (JSON, clipped), absent for a missing
	// member.
	Value string `json:"value,omitempty"`
	// Count is how many messages showed this finding.
	Count int `json:"count"`
	// Example is the first such message (clipped to 2 KiB).
	Example string `json:"example"`
}

// Summary is what a Recorder saw.
type Summary struct {
	// Revision is the revision the messages were validated against, and
	// Unavailable why none could be ("" when they were).
	Revision, Unavailable string
	// Received counts every message; Validated those judged (a cached
	// verdict counts); OtherRevision the results and notifications that
	// came back on a request that did not declare the revision (a probe
	// without _meta protocolVersion, or with an unsupported one), which a
	// dual-era server may serve in another. Errors are always judged.
	Received, Validated, OtherRevision int
	// Findings are the distinct violations in the order first seen;
	// Overflow counts the violations of findings beyond the first 200.
	Findings []Finding
	Overflow int
	// Time is the time spent validating.
	Time time.Duration
	// IDs is what the answers' ids were, against the requests' (ids.go).
	IDs IDEcho
}

// Recorder validates every message the transports it observes receive. It
// implements mcp.Observer and mcp.MessageObserver; it is safe for
// concurrent use. Validation runs on a goroutine of its own, off the
// transports' path (the message bytes are the transport's and never
// change); messages that arrive before SetRevision wait for it. Summary
// waits for what is queued.
type Recorder struct {
	seed maphash.Seed

	mu       sync.Mutex
	idle     *sync.Cond // signalled when the queue is drained
	running  bool       // a pump goroutine is working the queue
	schema   *Schema
	revision string
	unavail  string
	set      bool // SetRevision was called
	queue    []held
	pending  map[uint64]int // queued messages that carry their bytes, by key
	cache    map[uint64][]Violation
	findings map[string]*Finding
	order    []string
	sum      Summary
	ids      idTally
	dups     dupTally // dupnames.go
}

type held struct {
	answering, method string
	raw, id           []byte
	modern            bool
	// key is the message's verdict key; a message whose key is already
	// queued or judged is held without its bytes (raw nil, same set):
	// its verdict is the cached one. A big answer repeated by many
	// requests (a 9 MB tools/list page answering every probe that lists
	// tools) was otherwise held once per request until the pump reached
	// it, several at once while the first was validated.
	key  uint64
	same bool
}

var (
	_ mcp.Observer        = (*Recorder)(nil)
	_ mcp.MessageObserver = (*Recorder)(nil)
)

// NewRecorder returns a Recorder that waits for SetRevision. It starts
// compiling the latest revision's schema at once, so that the compile
// overlaps the connection.
func NewRecorder() *Recorder {
	r := &Recorder{seed: maphash.MakeSeed(), cache: map[uint64][]Violation{}, findings: map[string]*Finding{}}
	r.idle = sync.NewCond(&r.mu)
	go func() { _, _ = For(mcp.LatestVersion) }()
	return r
}

// SetRevision says which revision the run negotiated; the messages queued
// so far are validated now. A revision without a schema here makes
// Summary say so.
func (r *Recorder) SetRevision(revision string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.revision, r.set = revision, true
	r.kick()
}

// RequestDone implements mcp.Observer; the Recorder wants only messages.
func (r *Recorder) RequestDone(string, string, time.Duration, int, error) {}

// modernMarker is how mcp's requests declare the revision in _meta.
var modernMarker = []byte(`"` + mcp.MetaProtocolVersion + `":"` + mcp.LatestVersion + `"`)

// MessageReceived implements mcp.MessageObserver: it queues the message.
func (r *Recorder) MessageReceived(sent *mcp.Outgoing, m *mcp.Message) {
	h := held{method: m.Method, raw: m.Raw, id: m.ID, modern: true}
	if m.IsResponse() {
		h.method = "(unknown request)"
		if sent != nil && sent.Method != "" {
			h.answering, h.method = sent.Method, sent.Method
		}
	}
	if sent != nil && m.Error == nil {
		// Errors have one shape in every revision (and -32022 answers a
		// version the server does not serve): only results and
		// notifications may belong to another revision.
		h.modern = bytes.Contains(sent.Body, modernMarker)
	}
	h.key = r.key(h)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ids.note(sent, m)
	r.sum.Received++
	if !r.set && len(r.queue) >= maxHeld {
		return // before the revision is known, only the first messages wait
	}
	if r.pending == nil {
		r.pending = map[uint64]int{}
	}
	_, judged := r.dups.cache[h.key]
	switch {
	case r.pending[h.key] > 0 || judged:
		// Its verdict is cached, or will be by the time the pump reaches
		// it: the queue is worked in order, and the caches take every
		// key while they have room (maxCached, checked here).
		h.raw, h.same = nil, true
	case len(r.dups.cache)+len(r.pending) < maxCached:
		r.pending[h.key]++
	}
	r.queue = append(r.queue, h)
	r.kick()
}

// kick starts the pump when there is work it can do. Called with r.mu held.
func (r *Recorder) kick() {
	if r.set && !r.running && len(r.queue) > 0 {
		r.running = true
		go r.pump()
	}
}

// pump validates the queue until it is empty.
func (r *Recorder) pump() {
	r.mu.Lock()
	if r.schema == nil && r.unavail == "" {
		rev := r.revision
		r.mu.Unlock()
		s, err := For(rev)
		r.mu.Lock()
		r.schema = s
		if err != nil {
			r.unavail = "mcp-eval's wire schema covers " + strings.Join(Revisions, ", ") + "; this run speaks " + rev
		}
	}
	for len(r.queue) > 0 {
		h := r.queue[0]
		r.queue[0] = held{}
		r.queue = r.queue[1:]
		r.mu.Unlock()
		r.judge(h)
		r.mu.Lock()
	}
	r.queue = nil
	r.running = false
	r.idle.Broadcast()
	r.mu.Unlock()
}

// judge validates one message and records its findings. Only the pump
// calls it.
func (r *Recorder) judge(h held) {
	key := h.key
	if !h.same {
		defer func() {
			r.mu.Lock()
			if r.pending[key]--; r.pending[key] <= 0 {
				delete(r.pending, key)
			}
			r.mu.Unlock()
		}()
	}
	ds := r.scanDups(h, key)
	r.mu.Lock()
	s := r.schema
	if s == nil || !h.modern {
		if !h.modern && s != nil {
			r.sum.OtherRevision++
		}
		r.mu.Unlock()
		return
	}
	vs, hit := r.cache[key]
	r.mu.Unlock()
	if h.same && !hit {
		return // not reached: its first copy's verdict was cached
	}
	var took time.Duration
	if !hit {
		start := time.Now()
		vs, _ = s.Validate(h.answering, h.raw)
		vs = append(vs, shadowed(s, h.answering, h.raw, ds, vs)...)
		took = time.Since(start)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sum.Validated++
	r.sum.Time += took
	if !hit && len(r.cache) < maxCached {
		r.cache[key] = vs
	}
	for _, v := range vs {
		fk := h.method + "\x00" + indices.ReplaceAllString(v.Pointer, "/*") + "\x00" + v.Keyword
		if f := r.findings[fk]; f != nil {
			f.Count++
			continue
		}
		if len(r.order) >= maxFindings {
			r.sum.Overflow++
			continue
		}
		r.findings[fk] = &Finding{Method: h.method, Violation: v, Count: 1,
			Value: valueOf(h.raw, v), Example: clip(h.raw, excerptBytes)}
		r.order = append(r.order, fk)
	}
}

var indices = regexp.MustCompile(`/[0-9]+(/|$)`)

// key identifies a message's verdict: the method it answers, whether it is
// judged at all (modern), and its bytes without its id, so that the same
// answer to another request hits.
func (r *Recorder) key(h held) uint64 {
	var mh maphash.Hash
	mh.SetSeed(r.seed)
	mh.WriteString(h.answering)
	mh.WriteByte(0)
	if h.modern {
		mh.WriteByte(1)
	}
	raw := h.raw
	if id := idSpan(raw); id[1] > id[0] && bytes.Equal(bytes.TrimSpace(raw[id[0]:id[1]]), h.id) {
		mh.Write(raw[:id[0]])
		mh.Write(raw[id[1]:])
	} else {
		mh.Write(raw)
	}
	return mh.Sum64()
}

// idSpan finds the first "id" member's value in a compact message; the
// caller uses it only when it holds the message's own id. [0 0] when there
// is none.
func idSpan(raw []byte) [2]int {
	i := bytes.Index(raw, []byte(`"id":`))
	if i < 0 {
		return [2]int{}
	}
	start := i + len(`"id":`)
	j := start
	for j < len(raw) && raw[j] != ',' && raw[j] != '}' {
		if raw[j] == '"' {
			// A string id: to its closing quote.
			k := j + 1
			for k < len(raw) && raw[k] != '"' {
				if raw[k] == '\\' {
					k++
				}
				k++
			}
			j = k + 1
			continue
		}
		j++
	}
	return [2]int{start, j}
}

// Summary returns what the Recorder saw so far, once the messages queued
// are validated.
func (r *Recorder) Summary() Summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.running {
		r.idle.Wait()
	}
	s := r.sum
	s.Revision, s.Unavailable = r.revision, r.unavail
	s.IDs = r.ids.summary()
	if !r.set {
		s.Unavailable = "the run's revision was never set"
	}
	for _, k := range r.order {
		s.Findings = append(s.Findings, *r.findings[k])
	}
	return s
}

// valueAt returns the value at pointer in raw, clipped; "" when absent.
func valueAt(raw []byte, ptr string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	for _, p := range strings.Split(ptr, "/")[1:] {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return ""
			}
		case []any:
			i := 0
			for _, c := range p {
				if c < '0' || c > '9' {
					return ""
				}
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return ""
			}
			v = x[i]
		default:
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return clip(b, valueBytes)
}

func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return strings.ToValidUTF8(string(b[:n]), "") + "…"
}

// Sorted returns findings ordered by method and pointer (for stable
// evidence).
func Sorted(fs []Finding) []Finding {
	out := append([]Finding(nil), fs...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Method != out[j].Method {
			return out[i].Method < out[j].Method
		}
		return out[i].Pointer < out[j].Pointer
	})
	return out
}
