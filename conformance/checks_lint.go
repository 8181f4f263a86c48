package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// modelSafeName is what the model APIs accept as a function name: OpenAI
// Chat Completions rejects a whole request whose tools include a name
// outside ^[a-zA-Z0-9_-]{1,64}$ (HTTP 400), Anthropic the same characters
// up to 128. A dotted or long MCP name is valid but breaks every client
// that passes it through unchanged (mcp-eval maps such names to aliases).
var modelSafeName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

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
		withReqs(toolCheck("lint/tool-name-pattern", "tool names are 1–128 characters of [A-Za-z0-9_.-]", report.LevelShould, revBoth, names,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					if !toolNamePattern.MatchString(t.Name) {
						p = append(p, fmt.Sprintf("%q", t.Name))
					}
				}
				return p.outcome("tool names outside [A-Za-z0-9_.-]{1,128}")
			}), "features/tool-name-length", "features/tool-name-characters", "features/tool-name-no-special"),
		withReqs(toolCheck("lint/tool-name-model-safe", "tool names fit the model APIs' function names, ^[a-zA-Z0-9_-]{1,64}$", report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					if toolNamePattern.MatchString(t.Name) && !modelSafeName.MatchString(t.Name) {
						p = append(p, fmt.Sprintf("%q", t.Name))
					}
				}
				return p.outcome("tool names a model API rejects (OpenAI Chat Completions answers HTTP 400 to a request whose tools include one; a client must alias them)")
			}), "guidance/model-safe-names"),
		withReqs(toolCheck("lint/tool-name-unique", "tool names are unique", report.LevelShould, revBoth, names,
			func(_ *Env, ts []mcp.Tool) Outcome {
				return duplicateNames(ts).outcome("duplicate tool names")
			}), "features/tool-name-unique"),
		withReqs(toolCheck("lint/tool-description", fmt.Sprintf("every tool has a description of at least %d characters", minDescriptionLen), report.LevelShould, revBoth, guidance,
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
			}), "guidance/tool-descriptions"),
		withReqs(toolCheck("lint/param-descriptions", "every top-level parameter has a description", report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					for _, name := range undocumentedParams(t.InputSchema) {
						p = append(p, t.Name+"."+name)
					}
				}
				return p.outcome("parameters without a description")
			}), "guidance/tool-descriptions"),
		withReqs(toolCheck("lint/x-mcp-header", "x-mcp-header annotations are valid", report.LevelMust, revModern, spec("server/tools")+"#x-mcp-header",
			func(_ *Env, ts []mcp.Tool) Outcome {
				var p problems
				for _, t := range ts {
					_, issues := schema.XMCPHeaders(t.InputSchema)
					for _, issue := range issues {
						p = append(p, fmt.Sprintf("%s: %v", t.Name, issue))
					}
				}
				return p.outcome("invalid x-mcp-header (HTTP clients MUST drop such tools)")
			}), "features/x-mcp-header-constraints"),
		withReqs(toolCheck("lint/near-duplicate-descriptions", "no two tool descriptions are near-duplicates", report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				return nearDuplicates(ts).outcome("descriptions so alike that a model will confuse the tools")
			}), "guidance/tool-descriptions"),
		withReqs(toolCheck("lint/token-footprint", fmt.Sprintf("the whole tools/list costs under %d tokens", maxFootprintTokens), report.LevelShould, revBoth, guidance,
			func(_ *Env, ts []mcp.Tool) Outcome {
				// Counted as telemetry's footprint counts (report.ToolBytes:
				// what a model is given), so the reports show one figure.
				n := 0
				for _, t := range ts {
					n += report.ToolBytes(t.Name, t.Description, t.InputSchema)
				}
				tokens := estimateTokens(n)
				info := fmt.Sprintf("%d tools, %d bytes, about %d tokens in every conversation", len(ts), n, tokens)
				if tokens > maxFootprintTokens {
					return Outcome{Status: report.StatusFail, Info: info,
						Message: fmt.Sprintf("the tool list costs about %d tokens before the first word (over %d); trim descriptions or split the server", tokens, maxFootprintTokens)}
				}
				return check.PassInfo(info)
			}), "guidance/token-footprint"),
	}
}

// estimateTokens estimates the tokens of n bytes of JSON at four bytes per
// token, the usual rule of thumb for English text and JSON with BPE
// tokenizers (telemetry's tool-list footprint uses the same rule); it is an
// estimate, said as such in every message.
func estimateTokens(n int) int { return (n + 3) / 4 }

// undocumentedParams lists top-level properties without a description
// (directly, or on the $defs entry a local $ref points to). The schema is
// read as decoding it into struct{Properties, Defs map[string]
// json.RawMessage} would (jsonvalue.go): nothing when that fails.
func undocumentedParams(raw json.RawMessage) []string {
	if !jsonscan.Valid(raw) {
		return nil
	}
	m, ok := mapFields(raw, "properties", "$defs")
	if !ok {
		return nil
	}
	props, defs := m[0], m[1]
	var out []string
	for name, p := range props {
		f, _ := stringFields(p, "description", "$ref")
		if strings.TrimSpace(f[0]) != "" {
			continue
		}
		if def, ok := strings.CutPrefix(f[1], "#/$defs/"); ok {
			if d, ok := defs[def]; ok {
				if desc, clean := stringFields(d, "description"); clean && strings.TrimSpace(desc[0]) != "" {
					continue
				}
			}
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		out[w] = true
	}
	return out
}

// maxNearDuplicates bounds the pairs the lint collects: a list whose
// descriptions are all alike is reported as such without comparing every
// pair.
const maxNearDuplicates = 1000

// nearDuplicates finds the pairs of tools whose descriptions have a
// Jaccard index ≥ nearDuplicateRatio (the same judgement as similarity),
// without comparing every pair. Each description is tokenised once and its
// words ordered rarest first; sets are visited smallest first, and a pair
// is compared only when the word-prefix and position filters of PPJoin
// (Xiao et al., "Efficient similarity joins for near duplicate detection",
// WWW 2008) leave it possible: two sets at least t alike share one of the
// first |x| − ⌈t·|x|⌉ + 1 words of the larger, and enough of the words
// after a shared one to reach the overlap t/(1+t)·(|x|+|y|). With distinct
// descriptions the cost is about linear in the list.
func nearDuplicates(ts []mcp.Tool) problems {
	var p problems
	eachNearDuplicate(ts, func(a, b int, sim float64) bool {
		if len(p) == maxNearDuplicates {
			p = append(p, fmt.Sprintf("(stopped after %d pairs)", maxNearDuplicates))
			return false
		}
		p = append(p, fmt.Sprintf("%s ~ %s (%.0f%% alike)", ts[a].Name, ts[b].Name, 100*sim))
		return true
	})
	return p
}

// NearPair is two tools whose descriptions are near-duplicates (the
// lint's lint/near-duplicate-descriptions), A before B in the list.
type NearPair struct {
	A, B       string
	Similarity float64
}

// NearDuplicates are the pairs the near-duplicate lint flags (at most
// 1000), for mcp-eval init's tell-apart cases.
func NearDuplicates(ts []mcp.Tool) []NearPair {
	var out []NearPair
	eachNearDuplicate(ts, func(a, b int, sim float64) bool {
		out = append(out, NearPair{ts[a].Name, ts[b].Name, sim})
		return len(out) < maxNearDuplicates
	})
	return out
}

// eachNearDuplicate calls yield with each near-duplicate pair (indexes in
// ts, a < b) until it returns false.
func eachNearDuplicate(ts []mcp.Tool, yield func(a, b int, sim float64) bool) {
	sets, words := wordSets(ts)
	df := make([]int32, words)
	for _, s := range sets {
		for _, id := range s {
			df[id]++
		}
	}
	// Rarest first (ties by id), the order the prefixes are taken in: the
	// words are renumbered in that order, so that each set sorted
	// ascending is rarest first and the exact intersection is a merge of
	// integers.
	byRarity := make([]int32, words)
	for i := range byRarity {
		byRarity[i] = int32(i)
	}
	slices.SortFunc(byRarity, func(a, b int32) int {
		if df[a] != df[b] {
			return int(df[a] - df[b])
		}
		return int(a - b)
	})
	rank := make([]int32, words)
	for r, id := range byRarity {
		rank[id] = int32(r)
	}
	var order []int
	for i, s := range sets {
		if len(s) > 0 {
			for j, id := range s {
				s[j] = rank[id]
			}
			slices.Sort(s)
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return len(sets[order[a]]) < len(sets[order[b]]) })

	// A slightly lower threshold only lengthens prefixes and lowers the
	// overlap bound: more candidates against float error, never a miss.
	const t = nearDuplicateRatio - 1e-9
	probe := func(n int) int { return n - int(math.Ceil(t*float64(n))) + 1 }
	indexed := func(n int) int { return n - int(math.Ceil(2*t/(1+t)*float64(n))) + 1 }
	type posting struct{ set, pos int32 }
	index := make([][]posting, words)
	// overlap counts the shared prefix words of each candidate of the set
	// being probed: 0 unseen, -1 pruned; touched lists those to reset.
	overlap := make([]int32, len(sets))
	var touched, cands []int32
	for _, x := range order {
		sx := sets[x]
		touched = touched[:0]
		for i, w := range sx[:probe(len(sx))] {
			for _, post := range index[w] {
				sy := sets[post.set]
				if float64(len(sy)) < t*float64(len(sx)) {
					continue // size filter: J ≤ |y|/|x| < t
				}
				a := overlap[post.set]
				if a < 0 {
					continue // pruned
				}
				if a == 0 {
					touched = append(touched, post.set)
				}
				need := int(math.Ceil(t / (1 + t) * float64(len(sx)+len(sy))))
				if int(a)+1+min(len(sx)-i-1, len(sy)-int(post.pos)-1) >= need {
					overlap[post.set] = a + 1
				} else {
					overlap[post.set] = -1
				}
			}
			if i < indexed(len(sx)) {
				index[w] = append(index[w], posting{int32(x), int32(i)})
			}
		}
		cands = cands[:0]
		for _, y := range touched {
			if overlap[y] > 0 {
				cands = append(cands, y)
			}
			overlap[y] = 0
		}
		slices.Sort(cands)
		for _, y := range cands {
			sy := sets[y]
			inter, ok := shared(sx, sy, int(math.Ceil(t/(1+t)*float64(len(sx)+len(sy)))))
			if !ok {
				continue
			}
			if sim := float64(inter) / float64(len(sx)+len(sy)-inter); sim >= nearDuplicateRatio {
				if !yield(min(x, int(y)), max(x, int(y)), sim) {
					return
				}
			}
		}
	}
}

// wordSets returns each description's distinct words as dense ids (nil
// for a description of fewer than five words), and how many words there
// are. The ids are dense, so that the sets, the index and the overlap
// counts of nearDuplicates are slices, not maps: at 20 000 tools the maps
// cost a GB of allocations; the words themselves are not kept.
func wordSets(ts []mcp.Tool) ([][]int32, int) {
	dict := map[string]int32{}
	sets := make([][]int32, len(ts))
	// seenBy[id] is i+1 once tool i's description has the word: the
	// words of one description, with no map to clear per tool.
	var seenBy []int32
	var ids []int32
	var word []byte
	var bounds []int
	for i, t := range ts {
		ids = ids[:0]
		// The words of strings.FieldsFunc(strings.ToLower(d),
		// notWordRune), read rune by rune into word rather than copied
		// twice per description.
		// The words are gathered first (word holds them end to end,
		// bounds where each ends) and given ids only when there are at
		// least five: a description with fewer is never compared, and its
		// words (a record number in each of 100 000 "Returns record N."
		// descriptions) made the dictionary 8 MB.
		word, bounds = word[:0], bounds[:0]
		end := func() {
			if n := len(bounds); len(word) > 0 && (n == 0 || bounds[n-1] < len(word)) {
				bounds = append(bounds, len(word))
			}
		}
		for _, r := range t.Description {
			if r < utf8.RuneSelf {
				switch {
				case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
				case 'A' <= r && r <= 'Z':
					r += 'a' - 'A'
				default:
					end()
					continue
				}
				word = append(word, byte(r))
				continue
			}
			if r = unicode.ToLower(r); notWordRune(r) {
				end()
				continue
			}
			word = utf8.AppendRune(word, r)
		}
		end()
		if len(bounds) < 5 {
			continue
		}
		from := 0
		for _, to := range bounds {
			w := word[from:to]
			from = to
			id, ok := dict[string(w)]
			if !ok {
				id = int32(len(dict))
				dict[string(w)] = id
				seenBy = append(seenBy, 0)
			}
			if seenBy[id] != int32(i+1) {
				seenBy[id] = int32(i + 1)
				ids = append(ids, id)
			}
		}
		if len(ids) < 5 {
			continue
		}
		sets[i] = slices.Clone(ids)
	}
	return sets, len(dict)
}

// duplicateNames names each tool name given more than once, with its
// count. The names are sorted and counted in runs: a map of every name was
// 11 MB at 100 000 tools, a slice of them 1.6 MB.
func duplicateNames(ts []mcp.Tool) problems {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	slices.Sort(names)
	var p problems
	for i := 0; i < len(names); {
		j := i + 1
		for j < len(names) && names[j] == names[i] {
			j++
		}
		if j-i > 1 {
			p = append(p, fmt.Sprintf("%q ×%d", names[i], j-i))
		}
		i = j
	}
	return p
}

// notWordRune splits descriptions into words (letters and digits).
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// shared counts the words two ascending sets have in common, giving up
// (false) as soon as what is left of them cannot bring the count to need:
// most candidates of the prefix filter fail after a few words.
func shared(a, b []int32, need int) (int, bool) {
	inter := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if inter+min(len(a)-i, len(b)-j) < need {
			return inter, false
		}
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return inter, inter >= need
}
