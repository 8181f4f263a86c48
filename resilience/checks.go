package resilience

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/report"
)

// Info is a deterministic check of Layer 2 as the docs list it.
type Info struct {
	ID        string
	Level     report.Level
	Transport string // "http" or "stdio"; "" for both
	Title     string
	SpecRef   string
}

// Checks lists every deterministic check of Layer 2, sorted by id, from
// their declarations: the probes (probeDefs) and
// resilience/server-survives, the description rules (poisonRules) and
// resilience/surface-unchanged.
func Checks() []Info {
	var all []Info
	for _, d := range append(probeDefs(), survivesDef) {
		all = append(all, Info{ID: d.ID, Level: d.Level, Transport: d.Transport, Title: d.Title, SpecRef: d.SpecRef})
	}
	for _, r := range poisonRules {
		all = append(all, Info{ID: r.id(), Level: r.level, Title: r.title, SpecRef: poisonSpecRef})
	}
	all = append(all, surfaceDef)
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	return all
}

// cellText escapes what Markdown would read in a table cell: the column
// separator, and a tag (<IMPORTANT>) GitHub would drop.
var cellText = strings.NewReplacer("|", `\|`, "<", "&lt;")

// Table is README.md's table of Layer 2's deterministic checks (Checks).
func Table() string {
	var b strings.Builder
	b.WriteString("| check | level | transport | what it asserts |\n|---|---|---|---|\n")
	for _, c := range Checks() {
		transport := c.Transport
		if transport == "" {
			transport = "any"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.ID, c.Level, transport, cellText.Replace(c.Title))
	}
	return b.String()
}
