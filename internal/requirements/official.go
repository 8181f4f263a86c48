package requirements

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The official conformance suite ships, for every SEP since 2026, a file
// of its requirements (modelcontextprotocol/conformance src/seps/sep-*.yaml),
// each row keyed by a check id. official/seps.yaml maps every such id to
// how mcp-eval stands to it; only ids and mappings are recorded, never
// the text, which stays the suite's.

//go:embed official/seps.yaml
var officialFile []byte

// OfficialSEPs is the mapping file.
type OfficialSEPs struct {
	// Source names the suite's files the ids were read from.
	Source string        `yaml:"source"`
	SEPs   []OfficialSEP `yaml:"seps"`
}

// OfficialSEP is one SEP's file.
type OfficialSEP struct {
	SEP int `yaml:"sep"`
	// IDs maps each requirement id of the file to mcp-eval's stand.
	IDs map[string]OfficialStand `yaml:"ids"`
}

// OfficialStand is how mcp-eval stands to one official requirement id:
// exactly one field is set.
type OfficialStand struct {
	// Checks judge the server's side of it.
	Checks []string `yaml:"checks,omitempty"`
	// Party names whom it binds when not the server (no server check can
	// see it).
	Party string `yaml:"party,omitempty"`
	// Reason says why no check judges a server's requirement.
	Reason string `yaml:"reason,omitempty"`
}

// Official returns the mapping, validated: every id has exactly one stand,
// and no id is listed twice.
func Official() (*OfficialSEPs, error) { return ParseOfficial(officialFile) }

// ParseOfficial decodes and validates a mapping file.
func ParseOfficial(b []byte) (*OfficialSEPs, error) {
	var o OfficialSEPs
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("official/seps.yaml: %w", err)
	}
	var errs []string
	seen := map[string]int{}
	for _, s := range o.SEPs {
		for id, st := range s.IDs {
			if prev, ok := seen[id]; ok {
				errs = append(errs, fmt.Sprintf("%s: listed under SEP %d and SEP %d", id, prev, s.SEP))
			}
			seen[id] = s.SEP
			n := 0
			for _, set := range []bool{len(st.Checks) > 0, st.Party != "", st.Reason != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				errs = append(errs, fmt.Sprintf("%s (SEP %d): exactly one of checks, party and reason, not %d", id, s.SEP, n))
			}
		}
	}
	if o.Source == "" || len(o.SEPs) == 0 {
		errs = append(errs, "source and seps are required")
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("official/seps.yaml: %s", strings.Join(errs, "; "))
	}
	return &o, nil
}

// OfficialFigures counts one SEP's ids (or every SEP's, for sep 0).
type OfficialFigures struct{ IDs, Server, Checked int }

// Count counts the ids of sep (0: all): all of them, the server's (those
// that bind no other party), and the server's that a check judges.
func (o *OfficialSEPs) Count(sep int) OfficialFigures {
	var f OfficialFigures
	for _, s := range o.SEPs {
		if sep != 0 && s.SEP != sep {
			continue
		}
		for _, st := range s.IDs {
			f.IDs++
			if st.Party == "" {
				f.Server++
			}
			if len(st.Checks) > 0 {
				f.Checked++
			}
		}
	}
	return f
}

// OfficialMarkdown renders the mapping as a section of
// docs/requirements.md.
func OfficialMarkdown(o *OfficialSEPs) string {
	var b strings.Builder
	b.WriteString("\n## The official suite's SEP requirement ids\n\n")
	b.WriteString("Generated from `internal/requirements/official/seps.yaml`, which maps every requirement id of the\n")
	fmt.Fprintf(&b, "official conformance suite's SEP files (%s) to the checks that judge\n", o.Source)
	b.WriteString("it, to the party other than the server it binds, or to why no check judges a server's requirement.\n")
	b.WriteString("The requirements' text is the suite's: read it there. A test fails when an id has none of the three.\n\n")
	b.WriteString("| SEP | ids | the server's | checked |\n|---|---|---|---|\n")
	for _, s := range o.SEPs {
		f := o.Count(s.SEP)
		fmt.Fprintf(&b, "| SEP-%d | %d | %d | %d |\n", s.SEP, f.IDs, f.Server, f.Checked)
	}
	t := o.Count(0)
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%d** |\n", t.IDs, t.Server, t.Checked)
	for _, s := range o.SEPs {
		fmt.Fprintf(&b, "\n### SEP-%d\n\n| id | mcp-eval |\n|---|---|\n", s.SEP)
		ids := make([]string, 0, len(s.IDs))
		for id := range s.IDs {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			st := s.IDs[id]
			var stand string
			switch {
			case len(st.Checks) > 0:
				cs := make([]string, len(st.Checks))
				for i, c := range st.Checks {
					cs[i] = "`" + c + "`"
				}
				stand = strings.Join(cs, ", ")
			case st.Party != "":
				stand = "binds " + st.Party
			default:
				stand = "not checked: " + st.Reason
			}
			fmt.Fprintf(&b, "| `%s` | %s |\n", id, strings.ReplaceAll(stand, "|", "\\|"))
		}
	}
	return b.String()
}

// sepFile is what Compare reads of a suite SEP file: its number and the
// check id of each row (rows without one are the suite's exclusions).
type sepFile struct {
	SEP          int `yaml:"sep"`
	Requirements []struct {
		Check string `yaml:"check"`
	} `yaml:"requirements"`
}

// Compare reads the suite's SEP files (name → content) and returns, sorted,
// each requirement id they have that the mapping lacks ("unmapped") and
// each id the mapping has that they lack ("stale").
func (o *OfficialSEPs) Compare(files map[string][]byte) ([]string, error) {
	mapped := map[string]int{}
	for _, s := range o.SEPs {
		for id := range s.IDs {
			mapped[id] = s.SEP
		}
	}
	found := map[string]bool{}
	var out []string
	for name, b := range files {
		var f sepFile
		if err := yaml.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, r := range f.Requirements {
			if r.Check == "" {
				continue
			}
			found[r.Check] = true
			if _, ok := mapped[r.Check]; !ok {
				out = append(out, fmt.Sprintf("unmapped: %s (%s, SEP %d)", r.Check, name, f.SEP))
			}
		}
	}
	for id, sep := range mapped {
		if !found[id] {
			out = append(out, fmt.Sprintf("stale: %s (SEP %d) is in no SEP file", id, sep))
		}
	}
	sort.Strings(out)
	return out, nil
}
