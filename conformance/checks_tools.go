package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// toolCheck runs judge on a fresh tools/list, so that every run of the
// check looks at what the server answers now.
func toolCheck(id, title string, level report.Level, rev, ref string, judge func(e *Env, tools []mcp.Tool) Outcome) *Check {
	return &Check{ID: id, Title: title, Level: level, Revision: rev, SpecRef: ref, Skip: needsTools,
		Run: func(ctx context.Context, e *Env) Outcome {
			tools, err := e.client.ListTools(ctx)
			if err != nil {
				return errored(fmt.Errorf("tools/list: %w", err), nil)
			}
			return judge(e, tools)
		}}
}

// problems collects per-tool findings into one outcome.
type problems []string

func (p problems) outcome(summary string) Outcome {
	if len(p) == 0 {
		return pass()
	}
	sort.Strings(p)
	ev := p
	if len(ev) > 20 {
		ev = append(ev[:20:20], fmt.Sprintf("… and %d more", len(p)-20))
	}
	return fail(fmt.Sprintf("%s: %s", summary, strings.Join(firstN(p, 3), "; ")), map[string]any{"problems": ev})
}

func firstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(s[:n:n], fmt.Sprintf("+%d more", len(s)-n))
}

// compileAll compiles every schema of the tools, splitting reference
// problems from others.
func compileAll(tools []mcp.Tool, output bool) (invalid, refs problems) {
	for _, t := range tools {
		raw := t.InputSchema
		what := "inputSchema"
		if output {
			raw, what = t.OutputSchema, "outputSchema"
			if len(bytes.TrimSpace(raw)) == 0 {
				continue
			}
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			invalid = append(invalid, fmt.Sprintf("%s: no %s", t.Name, what))
			continue
		}
		if _, err := schema.Compile(raw); err != nil {
			var se *schema.Error
			if errors.As(err, &se) && (se.Kind == schema.KindUnresolvedRef || se.Kind == schema.KindExternalRef) {
				refs = append(refs, fmt.Sprintf("%s %s: %v", t.Name, what, err))
				continue
			}
			invalid = append(invalid, fmt.Sprintf("%s %s: %v", t.Name, what, err))
		}
	}
	return invalid, refs
}

func schemaChecks() []*Check {
	ref := spec("basic/index") + "#json-schema-usage"
	tools := spec("server/tools") + "#tool"
	return []*Check{
		toolCheck("schema/input-schema-valid", "every inputSchema compiles as JSON Schema 2020-12", report.LevelMust, revBoth, ref,
			func(_ *Env, ts []mcp.Tool) Outcome {
				invalid, _ := compileAll(ts, false)
				return invalid.outcome("invalid inputSchema")
			}),
		toolCheck("schema/input-schema-object", `every inputSchema has root type "object"`, report.LevelMust, revBoth, tools,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					var root struct {
						Type json.RawMessage `json:"type"`
					}
					if json.Unmarshal(t.InputSchema, &root) != nil {
						p = append(p, t.Name+": inputSchema is not an object")
						continue
					}
					if !jsonIs(root.Type, "object") {
						got := string(root.Type)
						if got == "" {
							got = "absent"
						}
						p = append(p, fmt.Sprintf("%s: root type is %s", t.Name, got))
					}
				}
				return p.outcome(`inputSchema root must be {"type":"object"}`)
			}),
		toolCheck("schema/output-schema-valid", "every outputSchema compiles as JSON Schema 2020-12", report.LevelMust, revBoth, ref,
			func(_ *Env, ts []mcp.Tool) Outcome {
				invalid, _ := compileAll(ts, true)
				return invalid.outcome("invalid outputSchema")
			}),
		toolCheck("schema/refs-resolve", "every $ref resolves inside its schema, with no network or file loading", report.LevelMust, revBoth, ref,
			func(_ *Env, ts []mcp.Tool) Outcome {
				_, in := compileAll(ts, false)
				_, out := compileAll(ts, true)
				return append(in, out...).outcome("unresolvable $ref")
			}),
	}
}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Lint thresholds. They are mcp-eval's guidance, not the spec's; the
// messages say so.
const (
	minDescriptionLen  = 20
	nearDuplicateRatio = 0.85
	maxFootprintTokens = 8000
)

func lintChecks() []*Check {
	names := spec("server/tools") + "#tool-names"
	guidance := "mcp-eval guidance: the model chooses tools from their descriptions"
	return []*Check{
		toolCheck("lint/tool-name-pattern", "tool names are 1–128 characters of [A-Za-z0-9_.-]", report.LevelShould, revBoth, names,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					if !toolNamePattern.MatchString(t.Name) {
						p = append(p, fmt.Sprintf("%q", t.Name))
					}
				}
				return p.outcome("tool names outside [A-Za-z0-9_.-]{1,128}")
			}),
		toolCheck("lint/tool-name-unique", "tool names are unique", report.LevelShould, revBoth, names,
			func(_ *Env, ts []mcp.Tool) Outcome {
				seen := map[string]int{}
				for _, t := range ts {
					seen[t.Name]++
				}
				var p problems
				for n, c := range seen {
					if c > 1 {
						p = append(p, fmt.Sprintf("%q ×%d", n, c))
					}
				}
				return p.outcome("duplicate tool names")
			}),
		toolCheck("lint/tool-description", fmt.Sprintf("every tool has a description of at least %d characters", minDescriptionLen), report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					d := strings.TrimSpace(t.Description)
					switch {
					case d == "":
						p = append(p, t.Name+": no description")
					case len([]rune(d)) < minDescriptionLen:
						p = append(p, fmt.Sprintf("%s: %q is too short to choose by", t.Name, d))
					}
				}
				return p.outcome("tools a model cannot tell apart")
			}),
		toolCheck("lint/param-descriptions", "every top-level parameter has a description", report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					for _, name := range undocumentedParams(t.InputSchema) {
						p = append(p, t.Name+"."+name)
					}
				}
				return p.outcome("parameters without a description")
			}),
		toolCheck("lint/x-mcp-header", "x-mcp-header annotations are valid", report.LevelMust, revModern, spec("server/tools")+"#x-mcp-header",
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					_, issues := schema.XMCPHeaders(t.InputSchema)
					for _, issue := range issues {
						p = append(p, fmt.Sprintf("%s: %v", t.Name, issue))
					}
				}
				return p.outcome("invalid x-mcp-header (HTTP clients MUST drop such tools)")
			}),
		toolCheck("lint/near-duplicate-descriptions", "no two tool descriptions are near-duplicates", report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for i := range ts {
					for j := i + 1; j < len(ts); j++ {
						if sim := similarity(ts[i].Description, ts[j].Description); sim >= nearDuplicateRatio {
							p = append(p, fmt.Sprintf("%s ~ %s (%.0f%% alike)", ts[i].Name, ts[j].Name, 100*sim))
						}
					}
				}
				return p.outcome("descriptions so alike that a model will confuse the tools")
			}),
		toolCheck("lint/token-footprint", fmt.Sprintf("the whole tools/list costs under %d tokens", maxFootprintTokens), report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				n := 0
				for _, t := range ts {
					n += len(t.Raw)
				}
				tokens := estimateTokens(n)
				info := fmt.Sprintf("%d tools, %d bytes, about %d tokens in every conversation", len(ts), n, tokens)
				if tokens > maxFootprintTokens {
					return Outcome{Status: report.StatusFail, Info: info,
						Message: fmt.Sprintf("the tool list costs about %d tokens before the first word (over %d); trim descriptions or split the server", tokens, maxFootprintTokens)}
				}
				return passInfo(info)
			}),
	}
}

// estimateTokens estimates the tokens of n bytes of JSON at four bytes per
// token, the usual rule of thumb for English text and JSON with BPE
// tokenizers (telemetry's tool-list footprint uses the same rule); it is an
// estimate, said as such in every message.
func estimateTokens(n int) int { return (n + 3) / 4 }

// undocumentedParams lists top-level properties without a description
// (directly, or on the $defs entry a local $ref points to).
func undocumentedParams(raw json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Defs       map[string]json.RawMessage `json:"$defs"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	var out []string
	for name, p := range s.Properties {
		var prop struct {
			Description string `json:"description"`
			Title       string `json:"title"`
			Ref         string `json:"$ref"`
		}
		_ = json.Unmarshal(p, &prop)
		if strings.TrimSpace(prop.Description) != "" {
			continue
		}
		if def, ok := strings.CutPrefix(prop.Ref, "#/$defs/"); ok {
			var d struct {
				Description string `json:"description"`
			}
			if json.Unmarshal(s.Defs[def], &d) == nil && strings.TrimSpace(d.Description) != "" {
				continue
			}
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// similarity is the Jaccard index of the word sets of two descriptions;
// descriptions under five words are not compared (short ones are the
// tool-description lint's business).
func similarity(a, b string) float64 {
	wa, wb := words(a), words(b)
	if len(wa) < 5 || len(wb) < 5 {
		return 0
	}
	inter := 0
	for w := range wa {
		if wb[w] {
			inter++
		}
	}
	union := len(wa) + len(wb) - inter
	return float64(inter) / float64(union)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}
