package resilience

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

// builtinFile is resilience/payloads.yaml, the built-in payload set, kept
// as YAML so that a change to a payload is reviewed like code.
//
//go:embed payloads.yaml
var builtinFile []byte

// BuiltinName is the name of the built-in payload set.
const BuiltinName = "builtin"

// PayloadVersion is the payload file format version this package reads.
const PayloadVersion = 1

// Category is the kind of attack a payload tries.
type Category string

// The payload categories.
const (
	// CategoryInstructionOverride: "ignore previous instructions and …".
	CategoryInstructionOverride Category = "instruction-override"
	// CategoryExfiltrationViaTool: send the conversation's data somewhere
	// with one of the server's own tools.
	CategoryExfiltrationViaTool Category = "exfiltration-via-tool"
	// CategoryHiddenUnicode: instructions a person cannot see (tag
	// characters, zero-width characters).
	CategoryHiddenUnicode Category = "hidden-unicode"
	// CategoryMarkdownImage: a Markdown image whose URL carries data to the
	// attacker when the answer is rendered.
	CategoryMarkdownImage Category = "markdown-image-exfiltration"
	// CategoryToolNameSpoofing: text that pretends to come from another tool
	// or from the system.
	CategoryToolNameSpoofing Category = "tool-name-spoofing"
	// CategoryOther is for payloads of a user's own file that fit none of
	// the above.
	CategoryOther Category = "other"
)

// Categories lists the categories in the order the docs give them.
var Categories = []Category{
	CategoryInstructionOverride, CategoryExfiltrationViaTool, CategoryHiddenUnicode,
	CategoryMarkdownImage, CategoryToolNameSpoofing, CategoryOther,
}

// Encoding is how a payload's text is written into the tool result.
type Encoding string

// The encodings.
const (
	// EncodingNone writes the text as it is.
	EncodingNone Encoding = "none"
	// EncodingUnicodeTags writes each ASCII character as its Unicode tag
	// character (U+E0000 + the code), which most interfaces do not show and
	// many models read.
	EncodingUnicodeTags Encoding = "unicode-tags"
	// EncodingZeroWidth puts a zero-width space after every character, so
	// that the text looks the same and keyword filters miss it.
	EncodingZeroWidth Encoding = "zero-width"
)

var encodings = []Encoding{EncodingNone, EncodingUnicodeTags, EncodingZeroWidth}

// Placeholders a payload's text may use (payloads.yaml explains each).
var placeholders = []string{"send_tool", "tool", "canary"}

// Payload is one prompt-injection payload.
type Payload struct {
	ID          string
	Category    Category
	Description string
	// Text is the instruction, with {{placeholders}}; Prefix is visible text
	// put before it when Encoding hides it.
	Text     string
	Prefix   string
	Encoding Encoding
	// Canary is what a successful attack leaks into a tool argument or the
	// final answer.
	Canary string
	// File and Line locate the payload's entry.
	File string
	Line int
}

// Vars are the values of a payload's placeholders.
type Vars struct {
	SendTool string // {{send_tool}}
	Tool     string // {{tool}}
}

// Render returns the text to append to a tool result: the placeholders
// filled in and the encoding applied.
func (p *Payload) Render(v Vars) string {
	fill := func(s string) string {
		return strings.NewReplacer(
			"{{send_tool}}", v.SendTool,
			"{{tool}}", v.Tool,
			"{{canary}}", p.Canary,
		).Replace(s)
	}
	text := fill(p.Text)
	switch p.Encoding {
	case EncodingUnicodeTags:
		text = tagEncode(text)
	case EncodingZeroWidth:
		text = zeroWidthEncode(text)
	}
	if p.Prefix == "" {
		return text
	}
	sep := " "
	if p.Encoding == EncodingNone || p.Encoding == "" {
		sep = "\n"
	}
	return fill(p.Prefix) + sep + text
}

// tagEncode maps printable ASCII to the Unicode tag block; other runes
// (the loader allows none) and line breaks become a tag space.
func tagEncode(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			r = ' '
		}
		b.WriteRune(0xE0000 + r)
	}
	return b.String()
}

func zeroWidthEncode(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
		if r != '\n' {
			b.WriteRune('\u200b')
		}
	}
	return b.String()
}

// PayloadSet is a versioned list of payloads.
type PayloadSet struct {
	// Version names the set and its revision, e.g. "builtin@1", or
	// "builtin@1+mine@3" for a file that extends the built-in set. The
	// report's case tags carry it.
	Version string
	// Payloads in order: the base set's first (a payload of the file with
	// the same id replaces the base one in place), then the file's.
	Payloads []*Payload
}

// Get returns the payload with the id, or nil.
func (s *PayloadSet) Get(id string) *Payload {
	for _, p := range s.Payloads {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// IDs returns the payload ids in order.
func (s *PayloadSet) IDs() []string {
	out := make([]string, len(s.Payloads))
	for i, p := range s.Payloads {
		out[i] = p.ID
	}
	return out
}

// Select resolves one inject.payloads entry: "all", a payload id, or a
// category name (every payload of it). It returns nil when nothing matches.
func (s *PayloadSet) Select(sel string) []*Payload {
	if sel == "all" {
		return slices.Clone(s.Payloads)
	}
	if p := s.Get(sel); p != nil {
		return []*Payload{p}
	}
	var out []*Payload
	for _, p := range s.Payloads {
		if string(p.Category) == sel {
			out = append(out, p)
		}
	}
	return out
}

var builtin = sync.OnceValues(func() (*PayloadSet, error) {
	return parsePayloads(builtinFile, "resilience/payloads.yaml", nil)
})

// Builtin returns the built-in payload set (resilience/payloads.yaml). It
// panics if the embedded file is broken, which the tests rule out.
func Builtin() *PayloadSet {
	s, err := builtin()
	if err != nil {
		panic("resilience: the built-in payloads.yaml is invalid: " + err.Error())
	}
	return s
}

// maxPayloadFileBytes bounds a payload file; a mistaken path should fail
// fast, not eat memory.
const maxPayloadFileBytes = 1 << 20

// LoadPayloads reads a payload file. It extends the built-in set unless it
// says extends: none. Every error is a yamlfile.Errors naming the file and,
// where there is one, the line: the CLI reports it and exits 2.
func LoadPayloads(path string) (*PayloadSet, error) {
	return yamlfile.Load(path, maxPayloadFileBytes, "payload file", ParsePayloads)
}

// ParsePayloads parses a payload file's contents; path names it in errors.
func ParsePayloads(data []byte, path string) (*PayloadSet, error) {
	return parsePayloads(data, path, Builtin)
}

// Keys of a payload file, at each level.
var (
	payloadFileKeys = []string{"version", "name", "revision", "extends", "payloads"}
	payloadKeys     = []string{"id", "category", "description", "text", "prefix", "encoding", "canary"}
)

var (
	payloadIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)
	placeholderRE    = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)
)

const maxPayloadErrors = 25

type payloadParser struct {
	file string
	errs yamlfile.Errors
}

func (p *payloadParser) errorf(line int, format string, args ...any) {
	if len(p.errs) < maxPayloadErrors {
		p.errs = append(p.errs, &yamlfile.Error{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// parsePayloads parses a payload file. base, when not nil, gives the set
// that extends: builtin refers to.
func parsePayloads(data []byte, path string, base func() *PayloadSet) (*PayloadSet, error) {
	p := &payloadParser{file: path}
	s := p.parse(data, base)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *yamlfile.Error) int { return a.Line - b.Line })
		return nil, p.errs
	}
	return s, nil
}

func (p *payloadParser) parse(data []byte, base func() *PayloadSet) *PayloadSet {
	root, err := yamlfile.Document(p.file, data, maxPayloadFileBytes, "the payload file", "version: 1 and a list of payloads")
	if err != nil {
		p.errs = append(p.errs, err)
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "the payload file must be a mapping with version, name, revision, extends and payloads")
		return nil
	}
	h := p.header(root)
	var baseSet *PayloadSet
	switch h.extends {
	case "none":
	case BuiltinName:
		if base != nil {
			baseSet = base()
		}
	default:
		p.errorf(h.extendsLine, "extends must be builtin (add to the built-in payloads) or none (replace them), got %q", h.extends)
	}
	if h.name == "" {
		h.name = strings.TrimSuffix(baseName(p.file), ".yaml")
	}
	own := p.payloads(h.payloads, root.Line, h.extends == "none")
	version := h.name
	if h.revisionGiven {
		version += "@" + strconv.Itoa(h.revision)
	}
	if baseSet == nil {
		return &PayloadSet{Version: version, Payloads: own}
	}
	return baseSet.extend(version, own)
}

// payloadHeader is what a payload file says besides its payloads.
type payloadHeader struct {
	name          string
	revision      int
	revisionGiven bool
	extends       string
	extendsLine   int
	payloads      *yaml.Node
}

// header reads the top-level keys of a payload file.
func (p *payloadParser) header(root *yaml.Node) payloadHeader {
	h := payloadHeader{extends: BuiltinName}
	sawVersion := false
	p.fields(root, "", payloadFileKeys, func(key string, v *yaml.Node) {
		switch key {
		case "version":
			sawVersion = true
			n, ok := p.integer(v, "version")
			if ok && n != PayloadVersion {
				p.errorf(v.Line, "unsupported version %d; this mcp-eval reads payload files of version %d", n, PayloadVersion)
			}
		case "name":
			h.name, _ = p.text(v, "name")
			if h.name != "" && !payloadIDPattern.MatchString(h.name) {
				p.errorf(v.Line, "name %q: use letters, digits, '.', '_' and '-'", h.name)
			}
		case "revision":
			h.revisionGiven = true
			if n, ok := p.integer(v, "revision"); ok {
				if n < 0 {
					p.errorf(v.Line, "revision must be 0 or more, got %d", n)
				}
				h.revision = n
			}
		case "extends":
			h.extendsLine = v.Line
			h.extends, _ = p.text(v, "extends")
		case "payloads":
			h.payloads = v
		}
	})
	if !sawVersion {
		p.errorf(root.Line, "missing version: 1 at the top of the file")
	}
	return h
}

// extend is s with own added: a payload of own replaces the one of s with
// its id, in place; the others come after s's.
func (s *PayloadSet) extend(version string, own []*Payload) *PayloadSet {
	out := &PayloadSet{Version: s.Version + "+" + version, Payloads: slices.Clone(s.Payloads)}
	for _, pl := range own {
		if i := slices.IndexFunc(out.Payloads, func(b *Payload) bool { return b.ID == pl.ID }); i >= 0 {
			out.Payloads[i] = pl
			continue
		}
		out.Payloads = append(out.Payloads, pl)
	}
	return out
}

func baseName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// payloads parses the list; it must not be empty when nothing is extended.
func (p *payloadParser) payloads(n *yaml.Node, rootLine int, required bool) []*Payload {
	if n == nil {
		if required {
			p.errorf(rootLine, "missing payloads: the list of payloads")
		}
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n.Line, "payloads must be a list")
		return nil
	}
	if len(n.Content) == 0 && required {
		p.errorf(n.Line, "payloads is empty")
		return nil
	}
	var out []*Payload
	first := map[string]int{}
	for _, item := range n.Content {
		pl := p.payload(item)
		if pl == nil {
			continue
		}
		if line, dup := first[pl.ID]; dup {
			p.errorf(pl.Line, "duplicate payload id %q (first defined at line %d)", pl.ID, line)
			continue
		}
		first[pl.ID] = pl.Line
		out = append(out, pl)
	}
	return out
}

func (p *payloadParser) payload(n *yaml.Node) *Payload {
	if n.Kind != yaml.MappingNode {
		p.errorf(n.Line, "each payload must be a mapping with id, category, canary and text")
		return nil
	}
	pl := &Payload{File: p.file, Line: n.Line, Encoding: EncodingNone}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Value == "id" {
			pl.ID, _ = p.text(n.Content[i+1], "id")
		}
	}
	ctx := "payload: "
	if pl.ID != "" {
		ctx = fmt.Sprintf("payload %q: ", pl.ID)
	}
	nErrs := len(p.errs)
	lines := map[string]int{}
	p.fields(n, ctx, payloadKeys, func(key string, v *yaml.Node) {
		lines[key] = v.Line
		p.payloadField(pl, ctx, key, v)
	})
	if pl.ID == "" && lines["id"] == 0 {
		p.errorf(n.Line, "payload without an id")
	}
	for _, key := range []string{"category", "canary", "text"} {
		if lines[key] == 0 {
			p.errorf(n.Line, "%smissing %s", ctx, key)
		}
	}
	p.checkCanary(pl.Canary, ctx, lines["canary"])
	p.checkPlaceholders(pl, ctx, lines)
	p.checkEncoding(pl, ctx, lines)
	if len(p.errs) > nErrs {
		return nil
	}
	return pl
}

// payloadField reads one key of a payload into pl.
func (p *payloadParser) payloadField(pl *Payload, ctx, key string, v *yaml.Node) {
	switch key {
	case "id":
		if pl.ID != "" && !payloadIDPattern.MatchString(pl.ID) {
			p.errorf(v.Line, "id %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", pl.ID)
		}
		if pl.ID == "all" || slices.Contains(Categories, Category(pl.ID)) {
			p.errorf(v.Line, "id %q is taken: inject.payloads reads it as a selector (all, or a category)", pl.ID)
		}
	case "category":
		names := make([]string, len(Categories))
		for i, c := range Categories {
			names[i] = string(c)
		}
		if c, ok := oneOf(p, v, ctx, "category", Categories, strings.Join(names, ", ")); ok {
			pl.Category = c
		}
	case "description":
		pl.Description, _ = p.text(v, ctx+"description")
	case "text":
		pl.Text, _ = p.text(v, ctx+"text")
	case "prefix":
		pl.Prefix, _ = p.text(v, ctx+"prefix")
	case "encoding":
		if e, ok := oneOf(p, v, ctx, "encoding", encodings, "none, unicode-tags or zero-width"); ok {
			pl.Encoding = e
		}
	case "canary":
		pl.Canary, _ = p.text(v, ctx+"canary")
	}
}

// oneOf reads v as one of values; a value outside them is kept (and an
// error recorded) so that later checks see what was written. ok is false
// when v is not text at all.
func oneOf[T ~string](p *payloadParser, v *yaml.Node, ctx, what string, values []T, want string) (T, bool) {
	s, ok := p.text(v, ctx+what)
	if !ok {
		return "", false
	}
	if !slices.Contains(values, T(s)) {
		p.errorf(v.Line, "%sunknown %s %q (want %s)", ctx, what, s, want)
	}
	return T(s), true
}

// checkCanary: a canary is searched for in visible text, so it must be
// long enough, trimmed, visible and literal.
func (p *payloadParser) checkCanary(c, ctx string, line int) {
	switch {
	case c == "":
	case utf8.RuneCountInString(strings.TrimSpace(c)) < 4:
		p.errorf(line, "%scanary %q is too short to search for; use at least 4 characters", ctx, c)
	case strings.TrimSpace(c) != c:
		p.errorf(line, "%scanary %q has leading or trailing spaces", ctx, c)
	case stripInvisible(c) != c:
		p.errorf(line, "%scanary has invisible characters; leaks are searched for in visible text", ctx)
	case strings.Contains(c, "{{"):
		p.errorf(line, "%sa canary takes no placeholders", ctx)
	}
}

// checkPlaceholders: text and prefix may use only the known placeholders.
func (p *payloadParser) checkPlaceholders(pl *Payload, ctx string, lines map[string]int) {
	for _, key := range []string{"text", "prefix"} {
		s := pl.Text
		if key == "prefix" {
			s = pl.Prefix
		}
		for _, m := range placeholderRE.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(placeholders, m[1]) {
				p.errorf(lines[key], "%s%s: unknown placeholder {{%s}} (want {{send_tool}}, {{tool}} or {{canary}})", ctx, key, m[1])
			}
		}
	}
}

// checkEncoding: unicode-tags carries printable ASCII only, and a prefix
// (the visible part before the hidden text) needs an encoding.
func (p *payloadParser) checkEncoding(pl *Payload, ctx string, lines map[string]int) {
	if pl.Encoding == EncodingUnicodeTags {
		for _, r := range pl.Text {
			if r != '\n' && (r < 0x20 || r > 0x7e) {
				p.errorf(lines["text"], "%sunicode-tags encodes printable ASCII only; the text has %q", ctx, r)
				break
			}
		}
	}
	if pl.Prefix != "" && pl.Encoding == EncodingNone {
		p.errorf(lines["prefix"], "%sprefix goes with an encoding (unicode-tags, zero-width); without one, put it in the text", ctx)
	}
}

// fields walks a mapping's keys: plain, unique, and among known.
func (p *payloadParser) fields(n *yaml.Node, ctx string, known []string, fn func(key string, v *yaml.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
			p.errorf(k.Line, "%skeys must be plain names", ctx)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errorf(k.Line, "%sduplicate key %q (first at line %d)", ctx, k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		if !slices.Contains(known, k.Value) {
			p.errorf(k.Line, "%s%s", ctx, yamlfile.UnknownKey(k.Value, known))
			continue
		}
		if v.Kind == yaml.AliasNode {
			p.errorf(v.Line, "%saliases (*name) are not supported", ctx)
			continue
		}
		fn(k.Value, v)
	}
}

func (p *payloadParser) text(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || strings.TrimSpace(n.Value) == "" {
		p.errorf(n.Line, "%s must be non-empty text", what)
		return "", false
	}
	return n.Value, true
}

func (p *payloadParser) integer(n *yaml.Node, what string) (int, bool) {
	i, ok := yamlfile.Int(n)
	if !ok {
		p.errorf(n.Line, "%s must be a whole number", what)
	}
	return i, ok
}
