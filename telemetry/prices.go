package telemetry

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
	"github.com/mcp-eval/mcp-eval/report"
)

// BuiltinDate is the day the built-in prices were last checked against
// the providers' published list prices: OpenAI's API pricing page (as
// mirrored in June 2026; standard tier) and Anthropic's pricing page
// (docs.anthropic.com/en/docs/about-claude/pricing). Prices change: a
// price file (LoadPrices) overrides or extends the table, and a model the
// table does not know has an unknown cost.
const BuiltinDate = "2026-12-01"

// The built-in prices are each provider's own (llm.Def.Prices, through
// the registry): standard (not batch, not priority) list prices in US
// dollars per million tokens as of BuiltinDate, keyed by provider:model as
// in --models. Dated snapshots ("gpt-4.1-mini-2025-04-14",
// "claude-sonnet-4-5-20250929") and "-latest" aliases resolve to these
// names. A provider's cache rates (llm.Def.CachedRate, CacheWriteRate) fill
// in what a price file leaves out.

// Price is what one model costs in US dollars per million tokens, and where
// that figure came from. CachedInput prices prompt-cache hits and
// CacheWrite prompt-cache writes; a price file that gives neither gets
// the provider's rule (OpenAI: cached input at the input price unless
// given, no write premium; Anthropic: 0.1× and 1.25× the input price, as
// llm.Def.CachedRate and CacheWriteRate say).
type Price struct {
	Input, CachedInput, CacheWrite, Output float64
	// Source is "built-in 2026-12-01", "file:line", or why the model is
	// free ("free: Ollama runs the model on this machine").
	Source string
}

// withProviderDefaults fills CachedInput and CacheWrite that are unset
// (negative) from the provider's rule.
func (p Price) withProviderDefaults(key string) Price {
	cached, write := 1.0, 1.0
	if d, _, err := providers.Parse(key); err == nil {
		cached, write = cmp.Or(d.CachedRate, 1), cmp.Or(d.CacheWriteRate, 1)
	}
	if p.CachedInput < 0 {
		p.CachedInput = p.Input * cached
	}
	if p.CacheWrite < 0 {
		p.CacheWrite = p.Input * write
	}
	return p
}

// Prices is a price table: the built-in one, possibly overridden by files.
// A nil *Prices is the built-in table.
type Prices struct {
	m     map[string]Price
	files []string
}

// BuiltinPrices returns the built-in table: every provider's prices.
func BuiltinPrices() *Prices {
	p := &Prices{m: map[string]Price{}}
	for k, v := range builtin() {
		p.m[k] = Price{Input: v[0], CachedInput: v[1], CacheWrite: -1, Output: v[2], Source: "built-in " + BuiltinDate}.withProviderDefaults(k)
	}
	return p
}

// builtin is every provider's built-in prices, keyed provider:model.
func builtin() map[string][3]float64 {
	out := map[string][3]float64{}
	for _, d := range providers.All() {
		for m, v := range d.Prices {
			out[d.Name+":"+m] = v
		}
	}
	return out
}

// snapshot matches the date suffix of a model snapshot name.
var snapshot = regexp.MustCompile(`-(\d{4}-\d{2}-\d{2}|\d{8})$`)

// Lookup returns the price of model ("provider:model"). It tries the name
// as given, then without a "-latest" suffix or a snapshot date, so that a
// price file can price one snapshot apart from its alias.
//
// A model of a local provider (llm.Def.Local: Ollama, llama-server…)
// that no price file prices is free; a provider may map its models to
// another key (llm.Def.PriceKey: OpenRouter's openai/gpt-4.1-mini is
// priced as openai:gpt-4.1-mini, its :free models are free).
func (p *Prices) Lookup(model string) (Price, bool) {
	if p == nil {
		p = BuiltinPrices()
	}
	key := strings.ToLower(strings.TrimSpace(model))
	if pr, ok := p.table(key); ok {
		return pr, true
	}
	d, m, err := providers.Parse(key)
	if err != nil {
		return Price{}, false
	}
	if d.Local {
		return Price{Source: "free: " + d.Title + " runs the model on this machine"}, true
	}
	if d.PriceKey != nil {
		k, free := d.PriceKey(m)
		if free {
			return Price{Source: "free: " + d.Title + " serves " + m + " at no charge"}, true
		}
		if pr, ok := p.table(strings.ToLower(k)); ok {
			pr.Source += " (as " + k + ")"
			return pr, true
		}
	}
	return Price{}, false
}

// table looks key up as given, then without a "-latest" suffix or a
// snapshot date.
func (p *Prices) table(key string) (Price, bool) {
	if pr, ok := p.m[key]; ok {
		return pr, true
	}
	base := strings.TrimSuffix(key, "-latest")
	base = snapshot.ReplaceAllString(base, "")
	pr, ok := p.m[base]
	return pr, ok
}

// Cost prices one usage of model: uncached input, cache hits and cache
// writes each at their own rate, output (hidden reasoning included) at the
// output rate. ok is false when the model has no price or some answer
// carried no usage: the cost is then unknown, not 0. The part of u a batch
// API answered (u.Batch) is billed at llm.BatchRate of these prices, as
// the vendors bill it.
func (p *Prices) Cost(model string, u llm.Usage) (usd float64, ok bool) {
	pr, ok := p.Lookup(model)
	if !ok || u.Unknown {
		return 0, false
	}
	usd = listCost(pr, u)
	if u.Batch != nil {
		usd -= (1 - llm.BatchRate) * listCost(pr, *u.Batch)
	}
	return roundUSD(usd), true
}

// listCost is u at pr's synchronous prices.
func listCost(pr Price, u llm.Usage) float64 {
	plain := max(u.InputTokens-u.CachedInputTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*pr.Input + float64(u.CachedInputTokens)*pr.CachedInput +
		float64(u.CacheWriteTokens)*pr.CacheWrite + float64(u.OutputTokens)*pr.Output) / 1e6
}

// roundUSD rounds to a nano-dollar: far below any price's precision, and
// it keeps float noise out of report.json.
func roundUSD(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// Table describes the table for the report.
func (p *Prices) Table() *report.PriceTable {
	t := &report.PriceTable{Date: BuiltinDate}
	if p != nil {
		t.Files = slices.Clone(p.files)
	}
	return t
}

// PriceError is a problem in a price file, at a line (1 when the problem
// has none of its own).
type PriceError = yamlfile.Error

// LoadPrices reads a price file and returns the built-in table overridden
// and extended by it. The file is YAML:
//
//	date: 2026-03-01            # optional: when these prices were checked
//	models:
//	  openai:gpt-4.1-mini: {input: 0.40, cached_input: 0.10, output: 1.60}   # USD per 1M tokens
//	  anthropic:claude-sonnet-5:
//	    input: 2
//	    output: 10
//
// Every problem is a *PriceError naming the file and line (several are
// joined with errors.Join): a syntax error, an unknown key, a model not
// written provider:model, a missing, non-numeric or negative price.
func LoadPrices(path string) (*Prices, error) {
	return yamlfile.Load(path, maxPriceBytes, "price file", func(data []byte, path string) (*Prices, error) { return ParsePrices(path, data) })
}

// maxPriceBytes bounds a price file: a line per model.
const maxPriceBytes = 1 << 20

// ParsePrices is LoadPrices for data already read; name is used in errors.
func ParsePrices(name string, data []byte) (*Prices, error) {
	root, err := priceRoot(name, data)
	if err != nil {
		return nil, err
	}
	var errs yamlfile.Errors
	bad := func(n *yaml.Node, format string, args ...any) {
		errs = append(errs, &PriceError{File: name, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
	}
	date, models := priceKeys(root, bad)
	if models == nil {
		return nil, errs
	}
	p := BuiltinPrices()
	seen := map[string]int{}
	for i := 0; i+1 < len(models.Content); i += 2 {
		k, v := models.Content[i], models.Content[i+1]
		key := strings.ToLower(strings.TrimSpace(k.Value))
		if _, _, err := providers.Parse(key); err != nil {
			bad(k, "%v", err)
			continue
		}
		if line, dup := seen[key]; dup {
			bad(k, "%s is priced twice (first at line %d)", key, line)
			continue
		}
		seen[key] = k.Line
		if pr, ok := parsePrice(v, key, bad); ok {
			pr.Source = fmt.Sprintf("%s:%d", name, k.Line)
			p.m[key] = pr
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	f := name
	if date != "" {
		f += " (" + date + ")"
	}
	p.files = append(p.files, f)
	return p, nil
}

// priceRoot decodes the file (the rules of every user YAML file,
// yamlfile.Document) and returns its root mapping.
func priceRoot(name string, data []byte) (*yaml.Node, error) {
	root, err := yamlfile.Document(name, data, maxPriceBytes, "the price file", "a models: map of provider:model to {input, output} prices")
	if err != nil {
		return nil, err
	}
	if root.Kind != yaml.MappingNode {
		return nil, yamlfile.Errors{{File: name, Line: root.Line, Msg: "want a mapping with a models: key"}}
	}
	return root, nil
}

// priceTopKeys are the keys of a price file, priceFields those of one
// model's price.
var (
	priceTopKeys = []string{"date", "models"}
	priceFields  = []string{"input", "output", "cached_input", "cache_write"}
)

// priceKeys reads the top-level keys: the date and the models map, which
// is nil (reported) when absent or not a map.
func priceKeys(root *yaml.Node, bad func(*yaml.Node, string, ...any)) (date string, models *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "date":
			date = v.Value
		case "models":
			models = v
		default:
			bad(k, "%s", yamlfile.UnknownKey(k.Value, priceTopKeys))
		}
	}
	switch {
	case models == nil:
		bad(root, "no models: map of provider:model to {input, output} prices")
	case models.Kind != yaml.MappingNode:
		bad(models, "models: want a map of provider:model to {input, output} prices")
		return date, nil
	}
	return date, models
}

// parsePrice reads {input: N, output: N}.
func parsePrice(v *yaml.Node, key string, bad func(*yaml.Node, string, ...any)) (Price, bool) {
	if v.Kind != yaml.MappingNode {
		bad(v, "%s: want {input: USD per 1M tokens, output: USD per 1M tokens}", key)
		return Price{}, false
	}
	pr := Price{CachedInput: -1, CacheWrite: -1}
	var have [2]bool
	ok := true
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, n := v.Content[i], v.Content[i+1]
		var slot *float64
		switch k.Value {
		case "input":
			slot, have[0] = &pr.Input, true
		case "output":
			slot, have[1] = &pr.Output, true
		case "cached_input":
			slot = &pr.CachedInput
		case "cache_write":
			slot = &pr.CacheWrite
		default:
			if s := suggest.Nearest(strings.ToLower(k.Value), priceFields); s != "" {
				bad(k, "%s: unknown key %q (did you mean %q?)", key, k.Value, s)
			} else {
				bad(k, "%s: unknown key %q (want input and output, optionally cached_input and cache_write, in USD per 1M tokens)", key, k.Value)
			}
			ok = false
			continue
		}
		f, err := strconv.ParseFloat(n.Value, 64)
		switch {
		case n.Kind != yaml.ScalarNode || err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			bad(n, "%s: %s price %q is not a number", key, k.Value, n.Value)
			ok = false
		case f < 0:
			bad(n, "%s: %s price %v is negative", key, k.Value, f)
			ok = false
		default:
			*slot = f
		}
	}
	if !have[0] || !have[1] {
		missing := "input"
		if have[0] {
			missing = "output"
		}
		bad(v, "%s: no %s price", key, missing)
		ok = false
	}
	return pr.withProviderDefaults(key), ok
}
