// Package requirements is the requirement table of the server side of MCP
// 2026-07-28: every MUST, MUST NOT, SHOULD and SHOULD NOT a server is held
// to, one row each, with the spec section, the sentence, and either the
// checks that enforce it or why none can. The rows live in one YAML file
// per chapter (chapters/*.yaml, embedded); docs/requirements.md is
// generated from them (Markdown), and a test keeps the rows and the check
// registries in step: every check names a row (check.Def.Reqs), every row
// names only checks that exist.
//
// It imports only the standard library and yaml.v3: the layers name row
// ids as strings and never import it.
package requirements

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed chapters/*.yaml
var chapterFiles embed.FS

// Levels a row may have (RFC 2119 as the spec uses them, bold).
const (
	Must      = "MUST"
	MustNot   = "MUST NOT"
	Should    = "SHOULD"
	ShouldNot = "SHOULD NOT"
)

// Row is one requirement. Exactly one of Checks, Unobservable, SideEffects
// and Gap says how mcp-eval stands to it.
type Row struct {
	// ID is "<chapter>/<slug>", stable once released (checks name it).
	ID string `yaml:"id"`
	// Section is the spec page and heading ("basic/index §Result Responses").
	Section string `yaml:"section"`
	Level   string `yaml:"level"`
	// Text is the normative sentence, as the spec states it.
	Text string `yaml:"text"`
	// Checks are the check ids that enforce the row.
	Checks []string `yaml:"checks,omitempty"`
	// Unobservable says why no client can observe the row ("not observable
	// from a client").
	Unobservable string `yaml:"unobservable,omitempty"`
	// SideEffects says why observing the row needs a tool with side effects,
	// which mcp-eval never calls.
	SideEffects string `yaml:"side_effects,omitempty"`
	// Gap says why an observable row is not checked yet.
	Gap string `yaml:"gap,omitempty"`
	// Note qualifies the row: what a check covers of it, where the text
	// contradicts itself and which reading mcp-eval follows.
	Note string `yaml:"note,omitempty"`

	line int
}

// Status is how mcp-eval stands to a row.
type Status string

// Statuses of a row.
const (
	Covered      Status = "covered"
	Unobservable Status = "not observable from a client"
	SideEffects  Status = "needs a tool with side effects"
	Gap          Status = "not checked yet"
)

// Status returns how mcp-eval stands to r.
func (r *Row) Status() Status {
	switch {
	case len(r.Checks) > 0:
		return Covered
	case r.Unobservable != "":
		return Unobservable
	case r.SideEffects != "":
		return SideEffects
	default:
		return Gap
	}
}

// Observable reports whether a client could observe r (it is covered, a
// gap, or needs a tool with side effects).
func (r *Row) Observable() bool { return r.Status() != Unobservable }

// Chapter is one file of rows.
type Chapter struct {
	// ID prefixes every row id of the chapter.
	ID    string `yaml:"chapter"`
	Title string `yaml:"title"`
	// Sources are the pages of the revision (or extension) the rows come
	// from, as repository paths.
	Sources []string `yaml:"sources"`
	// Intro says what the chapter holds and how it was read.
	Intro string `yaml:"intro,omitempty"`
	// TODO, when set, says who fills a chapter that has no rows yet.
	TODO string `yaml:"todo,omitempty"`
	Rows []Row  `yaml:"rows"`

	file string
}

// order is the order of the chapters in docs/requirements.md.
var order = []string{"base", "http", "stdio", "features", "utilities", "auth", "tasks", "apps", "skills", "trace", "guidance"}

// Chapters returns every chapter, in the document's order, validated.
func Chapters() ([]Chapter, error) {
	names, err := fs.Glob(chapterFiles, "chapters/*.yaml")
	if err != nil {
		return nil, err
	}
	var chs []Chapter
	var errs []string
	for _, name := range names {
		data, err := chapterFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ch, err := Parse(path.Base(name), data)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		chs = append(chs, *ch)
	}
	rank := func(id string) int {
		for i, o := range order {
			if o == id {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(chs, func(i, j int) bool { return rank(chs[i].ID) < rank(chs[j].ID) })
	seen := map[string]string{}
	for _, ch := range chs {
		if rank(ch.ID) == len(order) {
			errs = append(errs, fmt.Sprintf("%s: chapter %q is not one of %s", ch.file, ch.ID, strings.Join(order, ", ")))
		}
		for _, r := range ch.Rows {
			if where, dup := seen[r.ID]; dup {
				errs = append(errs, fmt.Sprintf("%s:%d: row %s already defined at %s", ch.file, r.line, r.ID, where))
			}
			seen[r.ID] = fmt.Sprintf("%s:%d", ch.file, r.line)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("requirement table: %s", strings.Join(errs, "; "))
	}
	return chs, nil
}

// Parse decodes and validates one chapter file (file names it in errors).
func Parse(file string, data []byte) (*Chapter, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var ch Chapter
	if err := dec.Decode(&ch); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	ch.file = file
	// Row lines, for the messages: the rows sequence of the document.
	if len(doc.Content) == 1 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == "rows" {
				for j, n := range m.Content[i+1].Content {
					if j < len(ch.Rows) {
						ch.Rows[j].line = n.Line
					}
				}
			}
		}
	}
	var errs []string
	if ch.ID == "" || ch.Title == "" || len(ch.Sources) == 0 {
		errs = append(errs, file+": chapter, title and sources are required")
	}
	if len(ch.Rows) == 0 && ch.TODO == "" {
		errs = append(errs, file+": a chapter without rows says who fills it (todo)")
	}
	for i := range ch.Rows {
		if msg := ch.Rows[i].validate(ch.ID); msg != "" {
			errs = append(errs, fmt.Sprintf("%s:%d: %s", file, ch.Rows[i].line, msg))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return &ch, nil
}

func (r *Row) validate(chapter string) string {
	slug, ok := strings.CutPrefix(r.ID, chapter+"/")
	if !ok || slug == "" || strings.ToLower(slug) != slug || strings.ContainsAny(slug, " _/") {
		return fmt.Sprintf("row id %q is not %s/<kebab-case>", r.ID, chapter)
	}
	switch r.Level {
	case Must, MustNot, Should, ShouldNot:
	default:
		return fmt.Sprintf("%s: level %q is not MUST, MUST NOT, SHOULD or SHOULD NOT", r.ID, r.Level)
	}
	if r.Section == "" || r.Text == "" {
		return r.ID + ": section and text are required"
	}
	n := 0
	for _, set := range []bool{len(r.Checks) > 0, r.Unobservable != "", r.SideEffects != "", r.Gap != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return r.ID + ": exactly one of checks, unobservable, side_effects and gap is required"
	}
	for _, c := range r.Checks {
		if !strings.Contains(c, "/") {
			return fmt.Sprintf("%s: check %q is not a group/check id", r.ID, c)
		}
	}
	return ""
}

// Rows returns every row of chs, in order.
func Rows(chs []Chapter) []*Row {
	var out []*Row
	for i := range chs {
		for j := range chs[i].Rows {
			out = append(out, &chs[i].Rows[j])
		}
	}
	return out
}

// Figures counts rows: all of them, those a client can observe, those a
// check covers, and those that need a tool with side effects. The
// guidance chapter (mcp-eval's own rules, not the spec's) is left out.
type Figures struct {
	Rows, Observable, Covered, SideEffects, Gaps int
}

// Count returns the figures of chs, or of one chapter when only is set.
func Count(chs []Chapter, only string) Figures {
	var f Figures
	for _, ch := range chs {
		if ch.ID == "guidance" || (only != "" && ch.ID != only) {
			continue
		}
		for i := range ch.Rows {
			r := &ch.Rows[i]
			f.Rows++
			if r.Observable() {
				f.Observable++
			}
			switch r.Status() {
			case Covered:
				f.Covered++
			case SideEffects:
				f.SideEffects++
			case Gap:
				f.Gaps++
			}
		}
	}
	return f
}

// Markdown renders docs/requirements.md: the figures, then each chapter's
// rows with how mcp-eval stands to each.
func Markdown(chs []Chapter) string {
	var b strings.Builder
	b.WriteString(`# Requirements of MCP 2026-07-28, server side

Generated from ` + "`internal/requirements/chapters/*.yaml`" + ` (` + "`go test ./internal/requirements -run TestRequirementsDoc -update`" + `);
do not edit by hand. Every MUST, MUST NOT, SHOULD and SHOULD NOT the revision (and the tasks
extension) puts on a server, one row each: the spec section, the sentence, and the Layer 0
checks that enforce it ([checks.md](checks.md)), or why none does — *not observable from a
client*, *needs a tool with side effects* (mcp-eval never calls one), or *not checked yet*.
Row ids are stable: checks name them (` + "`check.Def.Reqs`" + `), and a test fails when a check names
no row or a row names a check that does not exist.

| chapter | rows | observable | covered | needs side effects | not checked yet |
|---|---|---|---|---|---|
`)
	for _, ch := range chs {
		if ch.ID == "guidance" {
			continue
		}
		f := Count(chs, ch.ID)
		if len(ch.Rows) == 0 {
			fmt.Fprintf(&b, "| [%s](#%s) | to do | | | | |\n", ch.Title, anchor(ch.Title))
			continue
		}
		fmt.Fprintf(&b, "| [%s](#%s) | %d | %d | %d | %d | %d |\n", ch.Title, anchor(ch.Title), f.Rows, f.Observable, f.Covered, f.SideEffects, f.Gaps)
	}
	t := Count(chs, "")
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%d** | **%d** | **%d** |\n", t.Rows, t.Observable, t.Covered, t.SideEffects, t.Gaps)
	for _, ch := range chs {
		fmt.Fprintf(&b, "\n## %s\n\n", ch.Title)
		b.WriteString("Sources: ")
		for i, s := range ch.Sources {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("`" + s + "`")
		}
		b.WriteString(".\n")
		if ch.Intro != "" {
			b.WriteString("\n" + strings.TrimSpace(ch.Intro) + "\n")
		}
		if ch.TODO != "" {
			b.WriteString("\n**To do:** " + strings.TrimSpace(ch.TODO) + "\n")
		}
		if len(ch.Rows) == 0 {
			continue
		}
		b.WriteString("\n| id | section | level | requirement | mcp-eval |\n|---|---|---|---|---|\n")
		for i := range ch.Rows {
			r := &ch.Rows[i]
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, cell(r.Section), r.Level, cell(r.Text), cell(r.how()))
		}
	}
	return b.String()
}

func (r *Row) how() string {
	var s string
	switch r.Status() {
	case Covered:
		ids := make([]string, len(r.Checks))
		for i, c := range r.Checks {
			ids[i] = "`" + c + "`"
		}
		s = strings.Join(ids, ", ")
	case Unobservable:
		s = "*not observable from a client*: " + r.Unobservable
	case SideEffects:
		s = "*needs a tool with side effects*: " + r.SideEffects
	default:
		s = "*not checked yet*: " + r.Gap
	}
	if r.Note != "" {
		s += " — " + r.Note
	}
	return s
}

// cell makes text fit one Markdown table cell.
func cell(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// anchor is GitHub's heading anchor for a title made of words and spaces.
func anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
