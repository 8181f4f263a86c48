package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/internal/spectest"
)

type corpusCase struct {
	Why       string `json:"why"`
	Answering string `json:"answering"`
	Valid     bool   `json:"valid"`
	// Extension names the extension a case belongs to; the official
	// schema.json of the revision has none, so it is not compared there.
	Extension string          `json:"extension"`
	Message   json.RawMessage `json:"message"`
}

func corpus(t *testing.T) []corpusCase {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []corpusCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

// officialDifferences are the corpus cases on which the published
// schema.json disagrees with this package. Its generator turns JSONValue's
// `number` into integer and drops null, so a JSONObject (experimental
// capabilities, extension settings, metadata) may hold neither a fraction
// nor null there, against schema.ts. And it takes an error's id to be
// absent when it could not be read, where JSON-RPC 2.0 §5 (which every MCP
// message MUST follow) makes it null; this package accepts both. The test
// asserts that the official schema still disagrees, so that a change is
// noticed.
var officialDifferences = map[string]bool{
	"experimental capability holding a fraction":       true,
	"extension settings holding null":                  true,
	"error id null (the request id could not be read)": true,
}

// TestCorpus validates every corpus message with mcp-eval's schema.
func TestCorpus(t *testing.T) {
	s, err := For("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range corpus(t) {
		vs, err := s.Validate(c.Answering, c.Message)
		if err != nil {
			t.Errorf("%s: %v", c.Why, err)
			continue
		}
		if got := len(vs) == 0; got != c.Valid {
			t.Errorf("%s: valid=%v, want %v (violations %+v)", c.Why, got, c.Valid, vs)
		}
	}
}

// TestOfficialSchemaAgrees keeps the project's schema equal to the
// official schema.json: both validate the corpus with the same dispatch
// and must reach the same verdict on every message, apart from the
// differences listed above.
func TestOfficialSchemaAgrees(t *testing.T) {
	path := spectest.Schema(t, "2026-07-28")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	official, err := Compile("official-2026-07-28", doc)
	if err != nil {
		t.Fatalf("the official schema does not compile with this package's dispatch: %v", err)
	}
	for _, c := range corpus(t) {
		if c.Extension != "" {
			continue
		}
		vs, err := official.Validate(c.Answering, c.Message)
		if err != nil {
			t.Fatalf("%s: %v", c.Why, err)
		}
		got := len(vs) == 0
		if officialDifferences[c.Why] {
			if got == c.Valid {
				t.Errorf("%s: the official schema now agrees with schema.ts; drop it from officialDifferences", c.Why)
			}
			continue
		}
		if got != c.Valid {
			t.Errorf("%s: the official schema says valid=%v, mcp-eval's corpus %v (violations %+v)", c.Why, got, c.Valid, vs)
		}
	}
}

// TestViolationEvidence: a defect nested deep in a result is named by its
// pointer and keyword, not by the union above it.
func TestViolationEvidence(t *testing.T) {
	s, err := For("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		answering, msg        string
		def, pointer, keyword string
	}{
		{"tools/list", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[],"nextCursor":2,"ttlMs":1,"cacheScope":"public"}}`,
			"ListToolsResult", "/result/nextCursor", "type"},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a"},{"type":"video","data":"x"}]}}`,
			"CallToolResult", "/result/content/1", "anyOf"},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"image","mimeType":"image/png"}]}}`,
			"CallToolResult", "/result/content/0", "required"},
		{"tools/call", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"a","annotations":{"priority":3}}]}}`,
			"CallToolResult", "/result/content/0/annotations/priority", "maximum"},
		{"tools/list", `{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"m"}}`,
			"UnsupportedProtocolVersionError", "/error", "required"},
		{"", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loud","data":1}}`,
			"LoggingMessageNotification", "/params/level", "enum"},
	} {
		vs, err := s.Validate(tc.answering, []byte(tc.msg))
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != 1 {
			t.Errorf("%s: got %d violations %+v, want 1", tc.msg, len(vs), vs)
			continue
		}
		v := vs[0]
		if v.Def != tc.def || v.Pointer != tc.pointer || v.Keyword != tc.keyword || v.Message == "" {
			t.Errorf("%s: got %+v, want %s %s %s", tc.msg, v, tc.def, tc.pointer, tc.keyword)
		}
	}
}

func TestBase64Format(t *testing.T) {
	for s, ok := range map[string]bool{"": true, "AAAA": true, "aGk": true, "aGk=": true, "aGVsbG8=": true,
		"a": false, "aGk==": false, "a b=": false, "@@@@": false, "aG=k": false} {
		if err := validateBase64(s); (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", s, err, ok)
		}
	}
}

func TestURITemplateFormat(t *testing.T) {
	for s, ok := range map[string]bool{"file:///{path}": true, "note://{id}": true, "{+base}/x{?q,page:3}{&rest*}": true,
		"plain": true, "a%20b": true, "{a.b}": true, "": true,
		"{}": false, "{a": false, "a}": false, "{a b}": false, "x y": false, "{a:0}": false, "{.}": false, "%zz": false, "{a:12345}": false} {
		if err := validateURITemplate(s); (err == nil) != ok {
			t.Errorf("%q: err %v, want ok=%v", s, err, ok)
		}
	}
}

func TestNoSchemaForOtherRevisions(t *testing.T) {
	if _, err := For("2025-11-25"); err == nil || !strings.Contains(err.Error(), "2025-11-25") {
		t.Errorf("got %v", err)
	}
}

var update = flag.Bool("update", false, "regenerate schema/*.json from schema/*.yaml")

// TestSchemaJSON keeps each generated schema/<revision>.json, which runs
// load, equal to its YAML source.
func TestSchemaJSON(t *testing.T) {
	for _, rev := range Revisions {
		src, err := schemaFiles.ReadFile("schema/" + rev + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := yamlDoc(src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		path := "schema/" + rev + ".json"
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not generated from %s.yaml (%v); run go test ./engine/wire -run TestSchemaJSON -update", path, rev, err)
		}
	}
}

// yamlDoc turns the YAML source of a schema into the JSON document
// jsonschema reads (for the generated JSON: TestSchemaJSON).
func yamlDoc(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// TestOwnSchemaIsMetaValid: For compiles the embedded schemas without the
// library's metaschema check (trustedBase), so this test makes it: each
// file compiles where the library checks it, and a document that breaks
// the metaschema does not, so the check is known to run there.
func TestOwnSchemaIsMetaValid(t *testing.T) {
	for _, rev := range Revisions {
		data, err := schemaFiles.ReadFile("schema/" + rev + ".json")
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Compile(rev, doc); err != nil {
			t.Errorf("schema/%s.json under the metaschema check: %v", rev, err)
		}
	}
	bad := map[string]any{"$defs": map[string]any{"JSONRPCRequest": map[string]any{"minLength": -1}}}
	if _, err := Compile("bad", bad); err == nil {
		t.Error("a schema with minLength -1 compiled under the metaschema check: the check does not run there")
	}
	if _, err := compile("bad", bad, trustedBase); err != nil {
		t.Errorf("under trustedBase the metaschema is checked after all (%v): For could skip nothing", err)
	}
}
