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
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"io"
	"net/url"
	"slices"
	"strings"
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
}

// spellingSet is an immutable compiled set of spellings.
type spellingSet struct {
	spellings [][]byte // longest first, so a longer spelling wins over its prefix
	repl      *strings.Replacer
	maxLen    int
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
	defer r.mu.Unlock()
	for _, have := range r.secrets {
		if have.Value == s.Value {
			return nil
		}
	}
	r.secrets = append(r.secrets, s)
	r.set.Store(compile(r.secrets))
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
	var all []string
	for _, s := range secrets {
		if s.Value == "" {
			continue
		}
		for _, sp := range Spellings(s.Value) {
			if !seen[sp] {
				seen[sp] = true
				all = append(all, sp)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	set := &spellingSet{}
	pairs := make([]string, 0, 2*len(all))
	for _, sp := range all {
		pairs = append(pairs, sp, Mask)
		set.spellings = append(set.spellings, []byte(sp))
		set.maxLen = max(set.maxLen, len(sp))
	}
	set.repl = strings.NewReplacer(pairs...)
	return set
}

// current returns the spelling set in force, nil when there is none.
func (r *Redactor) current() *spellingSet {
	if r == nil {
		return nil
	}
	return r.set.Load()
}

// Spellings returns the forms in which v may appear in what this program
// writes or a server echoes back: raw, JSON-escaped (with and without HTML
// escaping, with "/" as "\/"), URL-encoded (query and path), base64 (all four
// alphabets), HTML- and XML-escaped.
func Spellings(v string) []string {
	out := []string{v}
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, j := range jsonForms(v) {
		add(j)
		add(strings.ReplaceAll(j, "/", `\/`))
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		add(enc.EncodeToString([]byte(v)))
	}
	add(html.EscapeString(v))
	var x bytes.Buffer
	_ = xml.EscapeText(&x, []byte(v))
	add(x.String())
	return out
}

// jsonForms is v as the inside of a JSON string, the way encoding/json
// writes it by default (HTML-safe: < > & as \u003c…) and without HTML
// escaping (other encoders).
func jsonForms(v string) []string {
	var out []string
	for _, escapeHTML := range []bool{true, false} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(escapeHTML)
		_ = enc.Encode(v)
		s := strings.TrimSuffix(b.String(), "\n")
		out = append(out, s[1:len(s)-1])
	}
	return out
}

// Empty reports whether r has nothing to redact.
func (r *Redactor) Empty() bool { return r.current() == nil }

// String returns s with every spelling of every secret masked.
func (r *Redactor) String(s string) string {
	set := r.current()
	if set == nil {
		return s
	}
	return set.repl.Replace(s)
}

// Bytes returns b with every spelling of every secret masked. It returns b
// itself when there is nothing to mask.
func (r *Redactor) Bytes(b []byte) []byte {
	set := r.current()
	if set == nil || !set.contains(b) {
		return b
	}
	return []byte(set.repl.Replace(string(b)))
}

// JSON returns the JSON text b with every secret masked in every string,
// however the string is escaped: a server may write any character as
// \uXXXX (\u0074ok for "tok"), which no list of spellings covers. Each
// string literal with an escape is decoded, masked and, when that changed
// it, encoded again; the rest is masked as Bytes does. Text that is not
// valid JSON is masked as Bytes does, as far as it can be read.
func (r *Redactor) JSON(b []byte) []byte {
	if r.Empty() {
		return b
	}
	b = r.Bytes(b)
	var out []byte // nil until the first change
	last := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		end, escaped := stringEnd(b, i)
		if end < 0 {
			break
		}
		if escaped {
			var s string
			if json.Unmarshal(b[i:end+1], &s) == nil {
				if masked := r.String(s); masked != s {
					enc, _ := json.Marshal(masked)
					out = append(append(out, b[last:i]...), enc...)
					last = end + 1
				}
			}
		}
		i = end
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// stringEnd returns the index of the quote that closes the JSON string
// starting at b[start], -1 if it does not close, and whether the string
// holds an escape.
func stringEnd(b []byte, start int) (end int, escaped bool) {
	for j := start + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return -1, escaped
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

func (set *spellingSet) contains(b []byte) bool {
	for _, sp := range set.spellings {
		if bytes.Contains(b, sp) {
			return true
		}
	}
	return false
}

// Writer returns a writer that redacts what passes through to w. It holds
// back the tail of the stream that could be the start of a secret, so a
// secret split across two writes is still masked; Close (or Flush) writes
// what is held. Writes to it are serialised.
func (r *Redactor) Writer(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Writer is a redacting io.WriteCloser; see Redactor.Writer.
type Writer struct {
	mu  sync.Mutex
	r   *Redactor
	w   io.Writer
	buf []byte
}

// Write redacts p and writes what is safe to write now. It reports len(p)
// on success, as the bytes are either written or held.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	set := w.r.current()
	if set == nil && len(w.buf) == 0 {
		return w.w.Write(p)
	}
	w.buf = append(w.buf, p...)
	// Everything up to the last line break (a newline, or the carriage
	// return a progress line redraws itself with) is complete text: no
	// secret spans one. Past that, keep the last maxLen-1 bytes, which may be
	// the beginning of a secret, unless a match that starts earlier ends there.
	cut := bytes.LastIndexAny(w.buf, "\n\r") + 1
	maxLen := 1
	if set != nil {
		maxLen = set.maxLen
	}
	if hold := len(w.buf) - (maxLen - 1); hold > cut {
		cut = w.extend(set, hold)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(w.r.Bytes(w.buf[:cut])); err != nil {
		return 0, err
	}
	w.buf = append(w.buf[:0], w.buf[cut:]...)
	return len(p), nil
}

// extend moves cut past any secret spelling that starts before it.
func (w *Writer) extend(set *spellingSet, cut int) int {
	if set == nil {
		return cut
	}
	for changed := true; changed; {
		changed = false
		for _, sp := range set.spellings {
			for from := max(0, cut-len(sp)+1); from < cut; {
				i := bytes.Index(w.buf[from:], sp)
				if i < 0 || from+i >= cut {
					break
				}
				if end := from + i + len(sp); end > cut {
					cut, changed = end, true
					break
				}
				from += i + 1
			}
		}
	}
	return cut
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
