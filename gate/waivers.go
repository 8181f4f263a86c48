package gate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	suggestpkg "github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

// DefaultWaiverFile is where the CLI and the Action look for waivers,
// relative to the repository root.
const DefaultWaiverFile = ".mcp-eval/waivers.yaml"

// Waiver accepts one known failure, the way the official conformance suite's
// expected-failures list does: it names a check id, a case id (all models)
// or "case-id@model", and must say why.
type Waiver struct {
	ID     string
	Reason string
	// Expires is the last day (UTC) the waiver holds; zero means never.
	Expires time.Time
	// File and Line locate the entry for messages; Parse fills them.
	File string
	Line int
}

// expired reports whether the waiver has run out at now. A waiver dated
// 2026-12-31 still holds for the whole of that day (UTC), which is what a
// reader of the file expects.
func (w Waiver) expired(now time.Time) bool {
	if w.Expires.IsZero() {
		return false
	}
	return !now.Before(w.Expires.AddDate(0, 0, 1))
}

// where locates the waiver for a message.
func (w Waiver) where() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d", w.File, w.Line)
	case w.File != "":
		return w.File
	}
	return "the waiver list"
}

// waiverKeys are the keys an entry may have; anything else is a typo that
// would otherwise silently drop a reason or an expiry.
var waiverKeys = []string{"id", "reason", "expires"}

// ParseWaivers reads a waiver file: a YAML list of entries with id, reason
// and an optional expires date (YYYY-MM-DD). file is used only in messages;
// the caller reads the file, so the gate stays free of I/O. An empty file is
// an empty list. Every problem found is reported, each as "file:line: …".
func ParseWaivers(data []byte, file string) ([]Waiver, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// Restated as file:N like every other waiver error.
		line, msg := yamlfile.Syntax(err)
		if line > 0 {
			return nil, fmt.Errorf("%s:%d: %s", file, line, msg)
		}
		return nil, fmt.Errorf("%s: %s", file, msg)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: want a list of waivers (- id: …, reason: …), got %s", file, root.Line, kindName(root))
	}

	var (
		out   []Waiver
		errs  []error
		first = map[string]int{} // id -> line of its first entry
	)
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	for _, item := range root.Content {
		if item.Kind != yaml.MappingNode {
			bad(item.Line, "each waiver must be a mapping with id and reason, got %s", kindName(item))
			continue
		}
		w := Waiver{File: file, Line: item.Line}
		var idLine int
		ok := true
		seen := map[string]bool{}
		for i := 0; i+1 < len(item.Content); i += 2 {
			k, v := item.Content[i], item.Content[i+1]
			// yaml.v3 keeps both copies of a repeated key in a Node, and
			// the last would silently win.
			if seen[k.Value] {
				bad(k.Line, "key %q appears twice in one waiver", k.Value)
				ok = false
				continue
			}
			seen[k.Value] = true
			if v.Kind != yaml.ScalarNode {
				bad(v.Line, "%s must be a single value, got %s", k.Value, kindName(v))
				ok = false
				continue
			}
			switch k.Value {
			case "id":
				w.ID = strings.TrimSpace(v.Value)
				idLine = v.Line
			case "reason":
				w.Reason = strings.TrimSpace(v.Value)
			case "expires":
				t, err := time.Parse(time.DateOnly, strings.TrimSpace(v.Value))
				if err != nil {
					bad(v.Line, "expires %q is not a date: want YYYY-MM-DD", v.Value)
					ok = false
					continue
				}
				w.Expires = t
			default:
				if s := suggest(k.Value, waiverKeys); s != "" {
					bad(k.Line, "unknown key %q (did you mean %q?)", k.Value, s)
				} else {
					bad(k.Line, "unknown key %q: a waiver has %s", k.Value, strings.Join(waiverKeys, ", "))
				}
				ok = false
			}
		}
		switch {
		case w.ID == "":
			bad(item.Line, "waiver has no id: name the check id, case id, or case-id@model it accepts")
			ok = false
		case strings.ContainsAny(w.ID, " \t"):
			bad(idLine, "waiver id %q contains spaces: ids are check ids or case-id@model", w.ID)
			ok = false
		case strings.HasPrefix(w.ID, "@") || strings.HasSuffix(w.ID, "@"):
			bad(idLine, "waiver id %q needs both parts of case-id@model", w.ID)
			ok = false
		default:
			if line, dup := first[w.ID]; dup {
				bad(idLine, "duplicate waiver for %q (first at line %d)", w.ID, line)
				ok = false
			} else {
				first[w.ID] = idLine
			}
		}
		if w.Reason == "" {
			bad(item.Line, "waiver for %q has no reason: say why the failure is accepted", w.ID)
			ok = false
		}
		if ok {
			out = append(out, w)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// kindName describes a YAML node for an error message.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.AliasNode:
		return "an alias"
	}
	return fmt.Sprintf("%q", n.Value)
}

// suggest returns the known key closest to s when it is a likely typo.
func suggest(s string, known []string) string {
	return suggestpkg.Nearest(strings.ToLower(s), known)
}
