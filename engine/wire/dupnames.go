package wire

import (
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// Duplicate member names (RFC 8259 §4,
// https://www.rfc-editor.org/rfc/rfc8259#section-4: "The names within an
// object SHOULD be unique"; where they are not, "the behavior of software
// that receives such an object is unpredictable"). Every message the
// Recorder is handed is scanned for them, in every revision; the check
// jsonrpc/unique-member-names reports what was found. A later value must
// not hide an earlier one from the schema: mcp-eval's readers keep the
// last value (as encoding/json and JSON.parse do) but other clients keep
// the first, so a message whose duplicated values differ is validated in
// that reading too, and what fails only there is a jsonrpc/wire-schema
// violation whose message says so.

// maxDupsPerMessage bounds the duplicates noted of one message.
const maxDupsPerMessage = 20

// maxDupFindings bounds the distinct duplicate findings kept.
const maxDupFindings = 50

// DupFinding is one member name given twice, per method, object pointer
// (array indices generalised) and name, with the first message that
// showed it.
type DupFinding struct {
	Method string `json:"method"`
	// Pointer is the object's JSON pointer in the message, Name the
	// member's name.
	Pointer string `json:"pointer"`
	Name    string `json:"name"`
	// First and Later are the values of the first and of a later
	// occurrence (JSON, clipped); Differs says they are written
	// differently.
	First   string `json:"first"`
	Later   string `json:"later"`
	Differs bool   `json:"differs"`
	// Count is how many messages showed it.
	Count int `json:"count"`
	// Example is the first such message (clipped to 2 KiB).
	Example string `json:"example"`
}

// Dups is what the Recorder found of duplicate names.
type Dups struct {
	// Scanned counts the messages scanned; Messages those with a
	// duplicate name.
	Scanned, Messages int
	// Findings are the distinct duplicates, first seen first; Overflow
	// counts the messages' duplicates beyond the first 50 findings.
	Findings []DupFinding
	Overflow int
}

// dupTally is the Recorder's state for Dups; it is guarded by r.mu.
type dupTally struct {
	cache    map[uint64][]jsonscan.Duplicate
	findings map[string]*DupFinding
	order    []string
	sum      Dups
}

// scanDups returns the duplicate names of h's message, from the cache when
// the same bytes were scanned before. Only the pump calls it.
func (r *Recorder) scanDups(h held, key uint64) []jsonscan.Duplicate {
	r.mu.Lock()
	ds, hit := r.dups.cache[key]
	r.mu.Unlock()
	if !hit {
		ds = jsonscan.Duplicates(h.raw, maxDupsPerMessage)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &r.dups
	if t.cache == nil {
		t.cache, t.findings = map[uint64][]jsonscan.Duplicate{}, map[string]*DupFinding{}
	}
	if !hit && len(t.cache) < maxCached {
		t.cache[key] = ds
	}
	t.sum.Scanned++
	if len(ds) > 0 {
		t.sum.Messages++
	}
	for _, d := range ds {
		ptr := indices.ReplaceAllString(d.Pointer, "/*")
		fk := h.method + "\x00" + ptr + "\x00" + d.Name
		if f := t.findings[fk]; f != nil {
			f.Count++
			continue
		}
		if len(t.order) >= maxDupFindings {
			t.sum.Overflow++
			continue
		}
		t.findings[fk] = &DupFinding{Method: h.method, Pointer: d.Pointer, Name: d.Name,
			First: clip(d.First, valueBytes), Later: clip(d.Later, valueBytes), Differs: d.Differs(),
			Count: 1, Example: clip(h.raw, excerptBytes)}
		t.order = append(t.order, fk)
	}
	return ds
}

// shadowed validates the reading of raw that keeps the first of each
// duplicated name's values, and returns the violations found only there,
// their messages saying so. ds are raw's duplicates.
func shadowed(s *Schema, answering string, raw []byte, ds []jsonscan.Duplicate, seen []Violation) []Violation {
	differs := false
	for _, d := range ds {
		differs = differs || d.Differs()
	}
	if !differs {
		return nil
	}
	first, ok := jsonscan.FirstWins(raw)
	if !ok {
		return nil
	}
	vs, err := s.Validate(answering, first)
	if err != nil {
		return nil
	}
	known := map[[2]string]bool{}
	for _, v := range seen {
		known[[2]string{v.Pointer, v.Keyword}] = true
	}
	var out []Violation
	for _, v := range vs {
		if known[[2]string{v.Pointer, v.Keyword}] {
			continue
		}
		v.Message = shadowNote + v.Message
		out = append(out, v)
	}
	return out
}

// shadowNote starts the message of a violation found only in the reading
// that keeps a duplicated member's first value.
const shadowNote = "where a duplicated member's first value is read (RFC 8259 §4: readers differ): "

// valueOf is the offending value of v in raw, read as v was found.
func valueOf(raw []byte, v Violation) string {
	if strings.HasPrefix(v.Message, shadowNote) {
		if first, ok := jsonscan.FirstWins(raw); ok {
			return valueAt(first, v.Pointer)
		}
	}
	return valueAt(raw, v.Pointer)
}

// Duplicates returns what the Recorder found of duplicate member names so
// far, once the messages queued are scanned.
func (r *Recorder) Duplicates() Dups {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.running {
		r.idle.Wait()
	}
	s := r.dups.sum
	for _, k := range r.dups.order {
		s.Findings = append(s.Findings, *r.dups.findings[k])
	}
	return s
}
