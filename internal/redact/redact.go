// Package redact removes the run's secrets from text before it is written.
//
// Masking the finished files with a byte replace misses every other
// spelling of a secret: a server that escapes "/" as "\/" (PHP's default),
// a JSON encoder that writes "<" as "\u003c", a URL-encoded query value, a
// base64 credential, an HTML report. A Redactor knows each secret in every
// spelling a writer of this program or an echoing server may produce, and is
// applied where text is produced (renderers, the cache, logs, errors), not
// after.
package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Mask is what every spelling of a secret becomes.
const Mask = "***"

// MinLen is the shortest secret that can be masked safely: a shorter value
// ("eu", "prod", "abc123") is likely to occur in ordinary text, so masking it
// would turn reports into noise while still leaking it by elimination.
const MinLen = 8

// Secret is one value to keep out of every output, with where it came from
// so an error can name it ("--header Authorization", "OPENAI_API_KEY").
type Secret struct {
	Source string
	Value  string
}

// WeakError says a secret is too short to mask safely.
type WeakError struct {
	Source string
	Len    int
}

func (e *WeakError) Error() string {
	return fmt.Sprintf("%s: the secret is %d characters long; secrets shorter than %d characters are refused because they cannot be masked safely in the outputs", e.Source, e.Len, MinLen)
}

// Redactor replaces every spelling of every secret with Mask. The zero value
// and nil redact nothing. It is safe for concurrent use.
//
// Secrets that arrive during the run (an OAuth access token) are added with
// Add; every method reads the set current at its call, so a token is masked
// from the moment it is known, by every sink that already holds r.
type Redactor struct {
	mu      sync.Mutex // serialises Add
	set     atomic.Pointer[spellingSet]
	secrets []Secret // every secret given so far, for Add's rebuild
	// follow are told each secret Add adds (MaskLogs: the log sink).
	follow []*Redactor
}

// spellingSet is an immutable compiled set of spellings.
type spellingSet struct {
	m        *matcher
	patterns [][]byte
	maxLen   int // the longest generated spelling
	// hold is the longest text a match may be written as that a stream
	// still masks when it is split across writes (see Writer).
	hold int
}

// New returns a Redactor for secrets. Empty values are ignored; a value
// shorter than MinLen is a *WeakError naming its source.
func New(secrets ...Secret) (*Redactor, error) {
	r := &Redactor{}
	for _, s := range secrets {
		if err := checkSecret(s); err != nil {
			return nil, err
		}
	}
	r.secrets = slices.Clone(secrets)
	r.set.Store(compile(r.secrets))
	return r, nil
}

// Add makes r mask s from now on, in every spelling, in every sink that
// holds r (a Writer holds back what may be the start of the new, longer
// spelling from its next write on). An empty value is ignored; a value
// shorter than MinLen is a *WeakError and changes nothing.
func (r *Redactor) Add(s Secret) error {
	if r == nil {
		return errors.New("redact: Add on a nil Redactor")
	}
	if err := checkSecret(s); err != nil || s.Value == "" {
		return err
	}
	r.mu.Lock()
	for _, have := range r.secrets {
		if have.Value == s.Value {
			r.mu.Unlock()
			return nil
		}
	}
	r.secrets = append(r.secrets, s)
	r.set.Store(compile(r.secrets))
	follow := slices.Clone(r.follow)
	r.mu.Unlock()
	for _, f := range follow {
		_ = f.Add(s) // s is long enough: r took it
	}
	return nil
}

func checkSecret(s Secret) error {
	if s.Value != "" && len(s.Value) < MinLen {
		return &WeakError{Source: s.Source, Len: len(s.Value)}
	}
	return nil
}

// compile builds the spelling set of secrets; nil when there is nothing to
// mask.
func compile(secrets []Secret) *spellingSet {
	seen := map[string]bool{}
	var patterns [][]byte
	set := &spellingSet{}
	for _, s := range secrets {
		if s.Value == "" {
			continue
		}
		for _, sp := range Spellings(s.Value) {
			// A secret that holds an escape of its own (a backslash, a
			// %41) loses it when the text around it is decoded: the
			// decoded text is searched for it so decoded too.
			for k := 0; sp != "" && k <= maxDepth; k++ {
				if !seen[sp] && (k == 0 || len(sp) >= MinLen) {
					seen[sp] = true
					patterns = append(patterns, []byte(sp))
					set.maxLen = max(set.maxLen, len(sp))
				}
				d := decode([]byte(sp))
				if d == nil {
					break
				}
				sp = string(d.text)
			}
		}
	}
	if len(patterns) == 0 {
		return nil
	}
	set.m, set.patterns = newMatcher(patterns), patterns
	set.hold = holdFactor * set.maxLen
	return set
}

// holdFactor is how many bytes a stream holds back per byte of the longest
// generated spelling: an escape takes at most 12 bytes per byte it stands
// for (&#x0010FFFF; for four bytes, \u0074 for one).
const holdFactor = 12

// current returns the spelling set in force, nil when there is none.
func (r *Redactor) current() *spellingSet {
	if r == nil {
		return nil
	}
	return r.set.Load()
}

// span is a stretch [start, end) of a text to mask.
type span struct{ start, end int }

// spans returns where b holds a spelling of a secret, sorted and merged:
// each generated spelling as it is, and, in b decoded up to maxDepth
// times, each generated spelling however it was escaped, mapped back to
// the escapes it was written with.
func (set *spellingSet) spans(b []byte) []span {
	var out []span
	add := func(s, e int) { out = append(out, span{s, e}) }
	set.m.find(b, add)
	set.clipped(b, add)
	var levels []*decoding
	text := b
	for range maxDepth {
		d := decode(text)
		if d == nil {
			break
		}
		levels = append(levels, d)
		mapped := func(s, e int) {
			for k := len(levels) - 1; k >= 0; k-- {
				s, e = levels[k].srcSpan(s, e)
			}
			add(s, e)
		}
		set.m.find(d.text, mapped)
		set.clipped(d.text, mapped)
		text = d.text
	}
	return merge(out)
}

// ellipsis marks where text was shortened (internal/clip.Ellipsis).
var ellipsis = []byte("…")

// minClipped is the shortest start of a spelling masked before an
// ellipsis: fewer bytes say nothing of the secret.
const minClipped = 4

// clipped finds the start of a spelling cut short by an ellipsis: a
// message or a stderr line is shortened where it is made, before it
// reaches a sink, and the cut may fall inside a secret. Every ellipsis is
// looked at, and the longest start of a spelling right before it masked.
func (set *spellingSet) clipped(b []byte, add func(s, e int)) {
	for from := 0; ; {
		i := bytes.Index(b[from:], ellipsis)
		if i < 0 {
			return
		}
		at := from + i
		best := 0
		for _, p := range set.patterns {
			for k := min(len(p)-1, at); k >= max(minClipped, best+1); k-- {
				if bytes.Equal(b[at-k:at], p[:k]) {
					best = k
					break
				}
			}
		}
		if best > 0 {
			add(at-best, at)
		}
		from = at + len(ellipsis)
	}
}

// merge sorts spans and joins those that overlap or touch.
func merge(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	slices.SortFunc(sp, func(a, b span) int { return a.start - b.start })
	out := sp[:1]
	for _, x := range sp[1:] {
		if last := &out[len(out)-1]; x.start <= last.end {
			last.end = max(last.end, x.end)
		} else {
			out = append(out, x)
		}
	}
	return out
}

// replace returns b with each span replaced by Mask.
func replace(b []byte, sp []span) []byte {
	out := make([]byte, 0, len(b))
	last := 0
	for _, x := range sp {
		out = append(append(out, b[last:x.start]...), Mask...)
		last = x.end
	}
	return append(out, b[last:]...)
}

// Empty reports whether r has nothing to redact.
func (r *Redactor) Empty() bool { return r.current() == nil }

// String returns s with every spelling of every secret masked.
func (r *Redactor) String(s string) string {
	set := r.current()
	if set == nil {
		return s
	}
	sp := set.spans([]byte(s))
	if len(sp) == 0 {
		return s
	}
	return string(replace([]byte(s), sp))
}

// Bytes returns b with every spelling of every secret masked: the text
// sinks (Markdown, XML, HTML, logs, the terminal). It returns b itself
// when there is nothing to mask.
func (r *Redactor) Bytes(b []byte) []byte {
	set := r.current()
	if set == nil {
		return b
	}
	sp := set.spans(b)
	if len(sp) == 0 {
		return b
	}
	return replace(b, sp)
}

// JSON returns the JSON text b with every secret masked, however its
// strings are escaped, and b still valid JSON: each string literal that
// holds a match is decoded, masked as String does and encoded again, so
// that no escape is cut in half. A match outside any string (a secret
// that is a number), or across two of them, is masked as Bytes does. Text
// that is not valid JSON is masked as far as it can be read. A secret cut
// in pieces over the values of one path (two notifications of one answer,
// join.go) is masked in each piece, and each piece wherever b quotes it.
func (r *Redactor) JSON(b []byte) []byte {
	set := r.current()
	if set == nil {
		return b
	}
	sp := set.spans(b)
	cut, pieces := set.splitPieces(b)
	var extra *matcher
	if len(cut) > 0 {
		var pats [][]byte
		for _, p := range pieces {
			// As written in b: as it is, or escaped in a string, or
			// escaped in a string quoted in a string.
			q, _ := json.Marshal(string(p))
			qq, _ := json.Marshal(string(q[1 : len(q)-1]))
			pats = append(pats, p, q[1:len(q)-1], qq[1:len(qq)-1])
		}
		if extra = newMatcher(pats); extra != nil {
			extra.find(b, func(s, e int) { sp = append(sp, span{s, e}) })
		}
		for _, l := range stringLiterals(b) {
			if cut[l.start] != nil {
				sp = append(sp, l)
			}
		}
		sp = merge(sp)
	}
	if len(sp) == 0 {
		return b
	}
	lits := stringLiterals(b)
	var out []byte
	last := 0
	for i := 0; i < len(sp); {
		x := sp[i]
		if lit, ok := literalHolding(lits, x); ok {
			j := i + 1
			for j < len(sp) && sp[j].end <= lit.end {
				j++
			}
			var s string
			if json.Unmarshal(b[lit.start:lit.end], &s) == nil {
				if at := cut[lit.start]; at != nil {
					// The stretches are of the content as join.go reads it.
					s = maskAt(string(appendContent(nil, b, lit)), at)
				}
				enc, _ := json.Marshal(set.mask(s, extra))
				out = append(append(out, b[last:lit.start]...), enc...)
				last, i = lit.end, j
				continue
			}
		}
		out = append(append(out, b[last:x.start]...), Mask...)
		last = x.end
		i++
	}
	return append(out, b[last:]...)
}

// maskAt replaces the stretches at of s with Mask.
func maskAt(s string, at []span) string {
	if len(at) == 0 {
		return s
	}
	return string(replace([]byte(s), merge(at)))
}

// mask returns s with every spelling of set, and each pattern of extra,
// masked.
func (set *spellingSet) mask(s string, extra *matcher) string {
	b := []byte(s)
	sp := set.spans(b)
	if extra != nil {
		extra.find(b, func(s, e int) { sp = append(sp, span{s, e}) })
		sp = merge(sp)
	}
	if len(sp) == 0 {
		return s
	}
	return string(replace(b, sp))
}

// literalHolding returns the literal of lits (sorted) that holds x whole.
func literalHolding(lits []span, x span) (span, bool) {
	k, _ := slices.BinarySearchFunc(lits, x.start, func(l span, p int) int {
		if l.end <= p {
			return -1
		}
		return 1
	})
	if k < len(lits) && lits[k].start <= x.start && x.end <= lits[k].end {
		return lits[k], true
	}
	return span{}, false
}

// stringLiterals returns where the string literals of the JSON text b lie,
// quotes included, in order; an unterminated one is left out.
func stringLiterals(b []byte) []span {
	var out []span
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != '"' {
			if b[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(b) {
			break
		}
		out = append(out, span{i, j + 1})
		i = j
	}
	return out
}

// Error returns err with its text redacted, or nil. errors.Is/As still see
// the original through Unwrap.
func (r *Redactor) Error(err error) error {
	if err == nil || r.Empty() {
		return err
	}
	msg := err.Error()
	if red := r.String(msg); red != msg {
		return &redactedError{msg: red, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Writer returns a writer for a terminal (stderr) that redacts what passes
// through to w: each complete line (up to a newline, or the carriage
// return a progress line redraws itself with) is written at once, and what
// follows it is held while it could be the start of a spelling, so a
// secret split across writes is still masked. Close (or Flush) writes
// what is held. Writes to it are serialised.
func (r *Redactor) Writer(w io.Writer) *Writer { return &Writer{r: r, w: w, lines: true} }

// FileWriter returns a writer for a file nobody reads while it is written
// (server.log): it holds back the last bytes whatever they are, so that a
// secret split over two lines is masked as in the reports.
func (r *Redactor) FileWriter(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Writer is a redacting io.WriteCloser; see Redactor.Writer and
// Redactor.FileWriter. What it masks across writes is bounded: a spelling
// written in more bytes than the set's hold (12 per byte of the longest
// generated spelling) may slip through if a write ends inside it.
type Writer struct {
	mu    sync.Mutex
	r     *Redactor
	w     io.Writer
	buf   []byte
	lines bool // write complete lines at once
}

// Write redacts p and writes what is safe to write now. It reports len(p)
// on success, as the bytes are either written or held.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	set := w.r.current()
	if set == nil {
		if len(w.buf) > 0 {
			if _, err := w.w.Write(w.buf); err != nil {
				return 0, err
			}
			w.buf = w.buf[:0]
		}
		return w.w.Write(p)
	}
	w.buf = append(w.buf, p...)
	cut := len(w.buf) - set.hold
	if w.lines {
		cut = max(cut, bytes.LastIndexAny(w.buf, "\n\r")+1)
	} else if len(w.buf) < 2*set.hold {
		// A file is written a hold at a time, so that each byte is
		// searched about twice however small the writes are.
		return len(p), nil
	}
	if cut <= 0 {
		return len(p), nil
	}
	sp := set.spans(w.buf)
	// A match that starts before the cut is written whole or not at all.
	n := 0
	for _, x := range sp {
		if x.start >= cut {
			break
		}
		cut = max(cut, x.end)
		n++
	}
	if _, err := w.w.Write(replace(w.buf[:cut], sp[:n])); err != nil {
		return 0, err
	}
	w.buf = append(w.buf[:0], w.buf[cut:]...)
	return len(p), nil
}

// Flush writes what is held back.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.r.Bytes(w.buf))
	w.buf = w.buf[:0]
	return err
}

// Close flushes; it does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }

// Unwrap returns the writer w writes to, so that a caller can still ask
// whether the output is a terminal.
func (w *Writer) Unwrap() io.Writer { return w.w }
