package report

import (
	"bytes"
	"encoding/json"
	"io"
)

// WriteJSON writes r as report.json: indented, checks and cases in their
// canonical order, map keys sorted, and empty arrays or objects (never null)
// where the schema requires them. r itself is not modified.
func WriteJSON(w io.Writer, r *Report) error { return WriteJSONMasked(w, r, nil) }

// streamedTools is the number of surface tools from which WriteJSONMasked
// writes them one at a time.
const streamedTools = 512

// WriteJSONMasked writes what WriteJSON writes, byte for byte, passing each
// piece through mask (nil: none), which must keep a valid JSON document
// valid. A big server's surface is written tool by tool: a page of 100 000
// tools makes a 46 MB report.json, and marshalling it whole held it
// several times over (the compact and the indented encodings, each grown
// by doubling, and the masked copy) — most of such a run's peak memory.
func WriteJSONMasked(w io.Writer, r *Report, mask func([]byte) []byte) error {
	if mask == nil {
		mask = func(b []byte) []byte { return b }
	}
	n := normalized(r)
	tools := n.Surface.Tools
	if len(tools) >= streamedTools {
		if ok, err := writeStreamed(w, n, tools, mask); ok || err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return err
	}
	return writeAll(w, mask(b), []byte("\n"))
}

// toolsIndent is the indentation of an element of surface.tools in the
// indented report: the report's object, then "surface", then "tools".
const toolsIndent = "      "

// writeStreamed writes n with tools in place of a placeholder tool, each
// marshalled and masked on its own. It reports false, having written
// nothing, when the placeholder cannot be found where it was put (a
// mask that rewrote it): the caller then writes the report whole.
func writeStreamed(w io.Writer, n *Report, tools []SurfaceItem, mask func([]byte) []byte) (bool, error) {
	placeholder := SurfaceItem{Name: "\u0000mcp-eval: surface tools\u0000"}
	n.Surface.Tools = []SurfaceItem{placeholder}
	defer func() { n.Surface.Tools = tools }()
	doc, err := json.MarshalIndent(n, "", "  ")
	if err != nil {
		return false, err
	}
	doc = mask(doc)
	p, err := json.MarshalIndent(placeholder, toolsIndent, "  ")
	if err != nil {
		return false, err
	}
	i := bytes.Index(doc, p)
	if i < 0 || bytes.Count(doc, p) != 1 {
		return false, nil
	}
	if err := writeAll(w, doc[:i]); err != nil {
		return true, err
	}
	sep := []byte(",\n" + toolsIndent)
	for k, t := range tools {
		b, err := json.MarshalIndent(t, toolsIndent, "  ")
		if err != nil {
			return true, err
		}
		if k > 0 {
			if err := writeAll(w, sep); err != nil {
				return true, err
			}
		}
		if err := writeAll(w, mask(b)); err != nil {
			return true, err
		}
	}
	return true, writeAll(w, doc[i+len(p):], []byte("\n"))
}

func writeAll(w io.Writer, parts ...[]byte) error {
	for _, b := range parts {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
