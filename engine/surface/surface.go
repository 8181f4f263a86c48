// Package surface fingerprints a server's tool surface: the tools, prompts
// and resource templates a model or a client sees. Two runs with the same
// fingerprint saw the same surface, so a score change between them is not
// the server's doing (DESIGN.md: drift attribution). It imports only the
// standard library and report.
package surface

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/report"
)

// volatile members are left out of the canonical form: they describe
// caching and transport, not what the item is.
var volatile = map[string]bool{"_meta": true, "ttlMs": true, "cacheScope": true}

// Compute returns the fingerprint — the SHA-256 of the canonical JSON (keys
// sorted, no insignificant space) of {"tools","prompts","resourceTemplates"},
// each sorted by name, without _meta, ttlMs and cacheScope — and the
// per-item hashes that let a diff name what changed.
func Compute(tools, prompts, templates []json.RawMessage) (string, report.Surface) {
	var s report.Surface
	canonTools, itemsTools := canonList(tools, "name", true)
	canonPrompts, itemsPrompts := canonList(prompts, "name", false)
	canonTemplates, itemsTemplates := canonList(templates, "name", false)
	s.Tools, s.Prompts, s.Resources = itemsTools, itemsPrompts, itemsTemplates
	if s.Tools == nil {
		s.Tools = []report.SurfaceItem{}
	}
	// The canonical JSON of {"prompts","resourceTemplates","tools"} (keys
	// sorted), written straight into the hash from each item's canonical
	// form: a big server's surface is never held decoded all at once.
	h := sha256.New()
	for i, part := range []struct {
		key   string
		items []canonForm
	}{{"prompts", canonPrompts}, {"resourceTemplates", canonTemplates}, {"tools", canonTools}} {
		if i == 0 {
			h.Write([]byte("{"))
		} else {
			h.Write([]byte(","))
		}
		h.Write([]byte(`"` + part.key + `":[`))
		for j, c := range part.items {
			if j > 0 {
				h.Write([]byte(","))
			}
			h.Write(c.bytes())
		}
		h.Write([]byte("]"))
	}
	h.Write([]byte("}"))
	return hex.EncodeToString(h.Sum(nil)), s
}

// keepCanon bounds the canonical forms canonList keeps between its two
// steps; past it, each item's form is made again when it is hashed in
// order, rather than a second copy of a big list being held (measured before the fix: at
// 20 000 tools the forms were 25 MB, as much as the listing itself).
var keepCanon = 4 << 20

// DefinitionBudget bounds the bytes of tool definitions the surface
// records for a semantic diff (report.SurfaceItem.Def): 8 MiB holds
// about 6 000 tools of a generated catalogue; past it, a tool is recorded
// by its hashes, which still say that it changed. Each definition counts
// its record (definitionRecord) beside its members: 100 000 tools of a
// few words each were 12 MB of definitions within an 8 MiB budget that
// counted their members alone.
var DefinitionBudget = 8 << 20

// definitionRecord is the size of the record a definition is kept in.
var definitionRecord = int(reflect.TypeFor[report.SurfaceDefinition]().Size())

// canonList returns the canonical JSON of each item, sorted by key, and
// the items' hashes. Each item is decoded, stripped and encoded on its own.
// The items are built once, in slices sized to the listing, and sorted by
// a permutation of their indexes: at 100 000 tools a list of items grown
// by doubling and then copied into the result was 80 MB at once.
func canonList(raws []json.RawMessage, key string, tool bool) ([]canonForm, []report.SurfaceItem) {
	hashes := make([]report.SurfaceItem, 0, len(raws))
	forms := make([]canonForm, 0, len(raws))
	kept, defined := 0, 0
	for _, r := range raws {
		c, top, ok := canonItem(r)
		if !ok {
			continue
		}
		name, _ := decodeString(top[key])
		desc, _ := decodeString(top["description"])
		si := report.SurfaceItem{Name: name, DescriptionSHA256: hash([]byte(desc)), SHA256: hash(c)}
		if tool {
			schema := top["inputSchema"]
			if schema == nil {
				schema = []byte("null")
			}
			si.InputSchemaSHA256 = hash(schema)
			if out := top["outputSchema"]; out != nil {
				si.OutputSchemaSHA256 = hash(out)
			}
			if ann := top["annotations"]; ann != nil {
				si.AnnotationsSHA256 = hash(ann)
			}
			// The definition a semantic diff reads, while the budget
			// lasts: the hashes alone can say that a tool changed, not how.
			// The members are copied out of the item's canonical form,
			// which they share, so the budget bounds what is kept.
			if n := definitionRecord + len(desc) + len(top["title"]) + len(top["inputSchema"]) + len(top["outputSchema"]) + len(top["annotations"]); defined+n <= DefinitionBudget {
				defined += n
				d := &report.SurfaceDefinition{Defined: true, Description: desc,
					InputSchema: bytes.Clone(top["inputSchema"]), OutputSchema: bytes.Clone(top["outputSchema"]), Annotations: bytes.Clone(top["annotations"])}
				d.Title, _ = decodeString(top["title"])
				si.SurfaceDefinition = d
			}
		}
		if kept += len(c); kept > keepCanon {
			c = nil
		}
		hashes = append(hashes, si)
		forms = append(forms, canonForm{c, r})
	}
	if len(hashes) == 0 {
		return nil, nil
	}
	// Stable by name, as the items came: order[j] is the item that goes
	// to place j, applied to both slices in place cycle by cycle.
	order := make([]int32, len(hashes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(hashes[a].Name, hashes[b].Name) })
	for i := range order {
		if int(order[i]) == i {
			continue
		}
		si, f := hashes[i], forms[i]
		j := i
		for {
			k := int(order[j])
			order[j] = int32(j)
			if k == i {
				hashes[j], forms[j] = si, f
				break
			}
			hashes[j], forms[j] = hashes[k], forms[k]
			j = k
		}
	}
	return forms, hashes
}

// canonForm is an item's canonical JSON, kept or made again from its raw
// JSON when asked for.
type canonForm struct {
	c   []byte
	raw json.RawMessage
}

func (f canonForm) bytes() []byte {
	if f.c != nil {
		return f.c
	}
	c, _, _ := canonItem(f.raw)
	return c
}

// canonItem returns one item's canonical JSON with its volatile members
// stripped, and the canonical JSON of each of its top-level members.
func canonItem(r json.RawMessage) ([]byte, map[string][]byte, bool) {
	if c, top, ok := canon.Stripped(r, volatile); ok {
		return c, top, true
	}
	// Not one JSON object: decoded as a stream, as it always was (a first
	// value that is an object is the item, whatever follows it).
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(r))
	dec.UseNumber()
	if dec.Decode(&v) != nil || v == nil {
		return nil, nil, false
	}
	strip(v)
	top := make(map[string][]byte, len(v))
	for k, sub := range v {
		top[k] = canon.Value(sub)
	}
	return canon.Value(v), top, true
}

// decodeString returns the string a canonical JSON value holds, and false
// when it holds none.
func decodeString(c []byte) (string, bool) {
	if len(c) >= 2 && c[0] == '"' && bytes.IndexByte(c, '\\') < 0 {
		return string(c[1 : len(c)-1]), true // canonical: no escape, no change
	}
	var s string
	if len(c) == 0 || c[0] != '"' || json.Unmarshal(c, &s) != nil {
		return "", false
	}
	return s, true
}

func strip(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if volatile[k] {
				delete(x, k)
				continue
			}
			strip(sub)
		}
	case []any:
		for _, sub := range x {
			strip(sub)
		}
	}
}

func hash(b []byte) report.Digest { return sha256.Sum256(b) }
