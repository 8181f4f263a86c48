package gate

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

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
// an empty list. Every problem found is reported, each a *yamlfile.Error
// ("file:line: …"), several in one yamlfile.Errors.
func ParseWaivers(data []byte, file string) ([]Waiver, error) {
	root, err := waiverList(data, file)
	if root == nil || err != nil {
		return nil, err
	}
	p := waiverParser{file: file, first: map[string]int{}}
	var out []Waiver
	for _, item := range root.Content {
		if w, ok := p.entry(item); ok {
			out = append(out, w)
		}
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return out, nil
}

// MaxWaiverBytes bounds a waiver file: a few lines per accepted failure.
const MaxWaiverBytes = 1 << 20

// waiverList decodes the file's list of entries with the rules of every
// user YAML file (yamlfile.Document): nil for an empty file or null, an
// error for a syntax error, a broken rule or anything but a list.
func waiverList(data []byte, file string) (*yaml.Node, error) {
	root, err := yamlfile.Document(file, data, MaxWaiverBytes, "the waiver file", "a list of waivers")
	switch {
	case err != nil && err.Empty():
		return nil, nil
	case err != nil:
		return nil, err
	case root.Kind == yaml.ScalarNode && root.Tag == "!!null":
		return nil, nil
	case root.Kind != yaml.SequenceNode:
		return nil, &yamlfile.Error{File: file, Line: root.Line, Msg: "want a list of waivers (- id: …, reason: …), got " + kindName(root)}
	}
	return root, nil
}

// waiverParser reads the entries of one waiver file, collecting every
// problem.
type waiverParser struct {
	file  string
	errs  yamlfile.Errors
	first map[string]int // id -> line of its first entry
}

func (p *waiverParser) bad(line int, format string, args ...any) {
	p.errs = append(p.errs, &yamlfile.Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// entry reads one entry; ok is false when it has a problem (reported).
func (p *waiverParser) entry(item *yaml.Node) (w Waiver, ok bool) {
	if item.Kind != yaml.MappingNode {
		p.bad(item.Line, "each waiver must be a mapping with id and reason, got %s", kindName(item))
		return w, false
	}
	before := len(p.errs)
	w = Waiver{File: p.file, Line: item.Line}
	idLine := p.fields(item, &w)
	p.checkID(w.ID, idLine, item.Line)
	if w.Reason == "" {
		p.bad(item.Line, "waiver for %q has no reason: say why the failure is accepted", w.ID)
	}
	return w, len(p.errs) == before
}

// fields fills w from the entry's keys and returns the line of its id.
func (p *waiverParser) fields(item *yaml.Node, w *Waiver) (idLine int) {
	// A key given twice is refused with the file (yamlfile.Document).
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			p.bad(v.Line, "%s must be a single value, got %s", k.Value, kindName(v))
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
				p.bad(v.Line, "expires %q is not a date: want YYYY-MM-DD", v.Value)
				continue
			}
			w.Expires = t
		default:
			p.bad(k.Line, "%s", yamlfile.UnknownKey(k.Value, waiverKeys))
		}
	}
	return idLine
}

// checkID reports an id that is missing, malformed or already waived.
func (p *waiverParser) checkID(id string, idLine, itemLine int) {
	switch {
	case id == "":
		p.bad(itemLine, "waiver has no id: name the check id, case id, or case-id@model it accepts")
	case strings.ContainsAny(id, " \t"):
		p.bad(idLine, "waiver id %q contains spaces: ids are check ids or case-id@model", id)
	case strings.HasPrefix(id, "@") || strings.HasSuffix(id, "@"):
		p.bad(idLine, "waiver id %q needs both parts of case-id@model", id)
	default:
		if line, dup := p.first[id]; dup {
			p.bad(idLine, "duplicate waiver for %q (first at line %d)", id, line)
		} else {
			p.first[id] = idLine
		}
	}
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
