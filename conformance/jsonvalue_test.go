package conformance

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// undocumentedParamsDecoded is undocumentedParams as it was written first,
// with encoding/json: the reference the in-place reading is held to.
func undocumentedParamsDecoded(raw json.RawMessage) []string {
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

var fieldCases = []string{
	``, `null`, `[]`, `"x"`, `5`, `true`, `{}`, `{"type":"object"}`, `{"TYPE":"object"}`, `{"type":"object","Type":"string"}`,
	`{"type":null}`, `{"ſype":1,"type":2}`, `{"properties":{"a":{"description":"A"},"b":{},"c":{"$ref":"#/$defs/c"}},"$defs":{"c":{"description":"C"}}}`,
	`{"properties":{"a":{}},"Properties":{"b":{}}}`, `{"properties":{"a":{}},"properties":null,"properties":{"b":{}}}`,
	`{"properties":{"a":{}},"properties":[]}`, `{"properties":"x"}`, `{"$defs":5,"properties":{"a":{}}}`, `{"$DEFS":{"c":{"description":"C"}},"properties":{"c":{"$ref":"#/$defs/c"}}}`,
	`{"properties":{"a":{"description":5},"b":{"description":"x","description":7},"c":{"description":7,"description":"x"},"d":{"DESCRIPTION":"x"}}}`,
	`{"properties":{"a":{"description":null},"b":{"description":"x","description":null},"c":{"description":"  "},"d":true,"e":[1]}}`,
	`{"properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/$defs/y"},"c":{"$ref":"#/$defs/z"},"d":{"$ref":5},"e":{"$REF":"#/$defs/x"}},
	  "$defs":{"x":{"description":"X"},"y":{"description":5,"description":"Y"},"z":null}}`,
	`{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"description":"X"},"x":{"title":"T"}}}`,
	`{"properties":{"\u0061":{},"a\"b":{"description":"d"},"` + "\xff" + `":{}}}`,
	`{"properties":{"a":{"descr\u0131ption":"x"},"b":{"deſcription":"y"},"c":{"description":"\u00e9"}}}`,
}

// TestFieldsAsDecoded: the lints that read a schema's members in place say
// what decoding it with encoding/json said, on the cases where the two
// could part (names in other cases, twice, null, values of other types)
// and on a big server's catalogue.
func TestFieldsAsDecoded(t *testing.T) {
	cases := append([]string{}, fieldCases...)
	for _, raw := range mcptest.BigToolsJSON(50) {
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, string(tool.InputSchema))
	}
	for _, c := range cases {
		fieldsAgree(t, []byte(c))
	}
}

// FuzzFieldsAsDecoded: as TestFieldsAsDecoded, on any bytes.
func FuzzFieldsAsDecoded(f *testing.F) {
	for _, c := range fieldCases {
		f.Add([]byte(c))
	}
	f.Fuzz(fieldsAgree)
}

func fieldsAgree(t *testing.T, raw []byte) {
	if got, want := undocumentedParams(raw), undocumentedParamsDecoded(raw); !reflect.DeepEqual(got, want) {
		t.Fatalf("undocumentedParams(%s) = %q, encoding/json says %q", raw, got, want)
	}
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	wantErr := json.Unmarshal(raw, &root)
	typ, ok := rawField(raw, "type")
	if ok != (wantErr == nil) || ok && string(typ) != string(root.Type) {
		t.Fatalf("rawField(%s, type) = %s, %v; encoding/json says %s, %v", raw, typ, ok, root.Type, wantErr)
	}
}

// BenchmarkSchemaLints: the two lints that read every inputSchema of a big
// server's listing, 1 000 tools, in place and with encoding/json.
func BenchmarkSchemaLints(b *testing.B) {
	var schemas []json.RawMessage
	for _, raw := range mcptest.BigToolsJSON(1000) {
		var tool struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			b.Fatal(err)
		}
		schemas = append(schemas, tool.InputSchema)
	}
	b.Run("in-place", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				undocumentedParams(s)
				rawField(s, "type")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range schemas {
				undocumentedParamsDecoded(s)
				var root struct {
					Type json.RawMessage `json:"type"`
				}
				_ = json.Unmarshal(s, &root)
			}
		}
	})
}

// wordSetsLowered is wordSets as it was first written: the description
// lowered, split with strings.FieldsFunc, a map of the words seen (the
// words of a description of fewer than five words are not given ids).
func wordSetsLowered(ts []mcp.Tool) ([][]int32, int) {
	dict := map[string]int32{}
	sets := make([][]int32, len(ts))
	for i, t := range ts {
		seen := map[int32]bool{}
		words := strings.FieldsFunc(strings.ToLower(t.Description), notWordRune)
		if len(words) < 5 {
			continue
		}
		for _, w := range words {
			id, ok := dict[w]
			if !ok {
				id = int32(len(dict))
				dict[w] = id
			}
			seen[id] = true
		}
		if len(seen) < 5 {
			continue
		}
		for id := range seen {
			sets[i] = append(sets[i], id)
		}
	}
	return sets, len(dict)
}

var wordCases = []string{
	"", "one two three four", "Returns record 7.", "One two THREE four five five", "Ünïcödé İstanbul ΣΊΣΥΦΟΣ straße ǅemal ﬁve six",
	"a,b;c.d-e_f\tg\nh 1 2 3", "invalid \xff\xfe bytes in a description here", "Kelvin K and long ſ and ⅷ roman ② circled",
	"digits 0123 ٣٤٥ and letters in words with marks é́", "the same the same the same words words words",
}

// TestWordSetsAsLowered, FuzzWordSets: wordSets gives each description the
// words the lowered split gave it, with the same ids.
func TestWordSetsAsLowered(t *testing.T) {
	wordSetsAgree(t, []byte(strings.Join(wordCases, "\x00")))
}

func FuzzWordSets(f *testing.F) {
	f.Add([]byte(strings.Join(wordCases, "\x00")))
	f.Fuzz(wordSetsAgree)
}

func wordSetsAgree(t *testing.T, b []byte) {
	var ts []mcp.Tool
	for _, d := range strings.Split(string(b), "\x00") {
		ts = append(ts, mcp.Tool{Description: d})
	}
	got, n := wordSets(ts)
	want, wn := wordSetsLowered(ts)
	for i := range want {
		slices.Sort(got[i])
		slices.Sort(want[i])
	}
	if n != wn || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: wordSets %v (%d words), lowered split %v (%d)", b, got, n, want, wn)
	}
}

// BenchmarkWordSets: the near-duplicate lint's tokenising of a big
// server's 1 000 descriptions, and the lowered split it replaces.
func BenchmarkWordSets(b *testing.B) {
	var ts []mcp.Tool
	for _, raw := range mcptest.BigToolsJSON(1000) {
		t, _ := mcp.DecodeTool(raw)
		ts = append(ts, t)
	}
	for _, bb := range []struct {
		name string
		sets func([]mcp.Tool) ([][]int32, int)
	}{{"runes", wordSets}, {"lowered-split", wordSetsLowered}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bb.sets(ts)
			}
		})
	}
}
