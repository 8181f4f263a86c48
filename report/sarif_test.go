package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-eval/mcp-eval/internal/spectest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifDoc is what the tests read back from results.sarif.
type sarifDoc struct {
	Schema  string `json:"$schema"`
	Version string `json:"version"`
	Runs    []struct {
		Tool struct {
			Driver struct {
				Name    string `json:"name"`
				Version string `json:"version"`
				Rules   []struct {
					ID               string    `json:"id"`
					ShortDescription sarifText `json:"shortDescription"`
					HelpURI          string    `json:"helpUri"`
					Default          struct {
						Level string `json:"level"`
					} `json:"defaultConfiguration"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string    `json:"ruleId"`
			RuleIndex *int      `json:"ruleIndex"`
			Level     string    `json:"level"`
			Message   sarifText `json:"message"`
			Locations []struct {
				PhysicalLocation *struct {
					ArtifactLocation *struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
					Region *struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
				LogicalLocations []sarifLogical `json:"logicalLocations"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, b []byte) sarifDoc {
	t.Helper()
	var d sarifDoc
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("results.sarif is not JSON: %v", err)
	}
	return d
}

// checkSARIF validates by hand what SARIF 2.1.0 requires of our output and
// what GitHub code scanning adds to it (each result located by a
// physicalLocation with a relative artifact URI, rules referenced by id and
// index, fingerprints), since the official schema cannot be fetched in CI;
// TestSARIFSchema validates against it where it is available.
func checkSARIF(t *testing.T, name string, b []byte) sarifDoc {
	t.Helper()
	d := readSARIF(t, b)
	if d.Schema != sarifSchema || d.Version != "2.1.0" || len(d.Runs) != 1 {
		t.Fatalf("%s: $schema %q, version %q, %d runs", name, d.Schema, d.Version, len(d.Runs))
	}
	run := d.Runs[0]
	if run.Tool.Driver.Name != "mcp-eval" {
		t.Errorf("%s: driver name %q", name, run.Tool.Driver.Name)
	}
	ids := map[string]int{}
	for i, rule := range run.Tool.Driver.Rules {
		if rule.ID == "" || rule.ShortDescription.Text == "" {
			t.Errorf("%s: rule %d has no id or description: %+v", name, i, rule)
		}
		if _, dup := ids[rule.ID]; dup {
			t.Errorf("%s: rule %q twice", name, rule.ID)
		}
		ids[rule.ID] = i
		if l := rule.Default.Level; l != "error" && l != "warning" {
			t.Errorf("%s: rule %q level %q", name, rule.ID, l)
		}
		if rule.HelpURI != "" {
			if u, err := url.Parse(rule.HelpURI); err != nil || !u.IsAbs() {
				t.Errorf("%s: rule %q helpUri %q is not an absolute URI", name, rule.ID, rule.HelpURI)
			}
		}
	}
	for i, res := range run.Results {
		idx, ok := ids[res.RuleID]
		if !ok || res.RuleIndex == nil || *res.RuleIndex != idx {
			t.Errorf("%s: result %d names rule %q at %v, which is not in the rules", name, i, res.RuleID, res.RuleIndex)
		}
		if res.Level != "error" && res.Level != "warning" {
			t.Errorf("%s: result %d level %q", name, i, res.Level)
		}
		if strings.TrimSpace(res.Message.Text) == "" || len(res.Message.Text) > 4*sarifMessageMax+200 {
			t.Errorf("%s: result %d message has %d bytes", name, i, len(res.Message.Text))
		}
		if len(res.Locations) == 0 {
			t.Errorf("%s: result %d has no location: GitHub rejects the upload", name, i)
		}
		for _, loc := range res.Locations {
			if loc.PhysicalLocation == nil || loc.PhysicalLocation.ArtifactLocation == nil || loc.PhysicalLocation.ArtifactLocation.URI == "" {
				t.Errorf("%s: result %d has a location without physicalLocation.artifactLocation.uri: GitHub rejects the upload", name, i)
				continue
			}
			uri := loc.PhysicalLocation.ArtifactLocation.URI
			if u, err := url.Parse(uri); err != nil || u.IsAbs() || u.Host != "" || strings.HasPrefix(uri, "/") || strings.ContainsAny(uri, " \\") {
				t.Errorf("%s: result %d artifact URI %q is not a relative URI reference", name, i, uri)
			}
			if r := loc.PhysicalLocation.Region; r == nil || r.StartLine < 1 {
				t.Errorf("%s: result %d has no region start line", name, i)
			}
			if len(loc.LogicalLocations) == 0 {
				t.Errorf("%s: result %d has no logical location", name, i)
			}
		}
		if res.PartialFingerprints["mcpEvalFinding/v1"] == "" || res.PartialFingerprints["primaryLocationLineHash"] == "" {
			t.Errorf("%s: result %d has no fingerprints", name, i)
		}
	}
	return d
}

func TestSARIFStructure(t *testing.T) {
	t.Parallel()
	for _, name := range inputs(t) {
		r := loadReport(t, name)
		checkSARIF(t, name, render(t, WriteSARIF, r))
		checkSARIF(t, name+" with artifact", renderSARIF(t, r, SARIFOptions{ArtifactURI: `servers\weather server\main.py`}))
	}
	// An empty report is a valid log with no rules and no results.
	d := checkSARIF(t, "empty", render(t, WriteSARIF, &Report{}))
	if d.Runs[0].Tool.Driver.Rules == nil || d.Runs[0].Results == nil {
		t.Errorf("rules and results must be arrays, not null")
	}
}

func renderSARIF(t *testing.T, r *Report, o SARIFOptions) []byte {
	t.Helper()
	return render(t, func(w io.Writer, r *Report) error { return WriteSARIFWith(w, r, o) }, r)
}

// TestSARIFSchema validates every golden SARIF file against the official
// SARIF 2.1.0 JSON schema. The schema is not kept in the repository; point
// MCP_EVAL_SARIF_SCHEMA at a copy, for example the sarif-2.1.0.json that
// the npm package @microsoft/sarif-multitool-linux ships:
//
//	cd /tmp && npm pack @microsoft/sarif-multitool-linux && tar xzf microsoft-sarif-multitool-linux-*.tgz package/sarif-2.1.0.json
//	MCP_EVAL_SARIF_SCHEMA=/tmp/package/sarif-2.1.0.json go test ./report -run TestSARIFSchema
func TestSARIFSchema(t *testing.T) {
	t.Parallel()
	path := os.Getenv("MCP_EVAL_SARIF_SCHEMA")
	if path == "" {
		t.Skip("MCP_EVAL_SARIF_SCHEMA is not set (TestSARIFStructure checks the structure by hand); to validate against the official SARIF schema: " +
			"cd /tmp && npm pack @microsoft/sarif-multitool-linux && tar xzf microsoft-sarif-multitool-linux-*.tgz package/sarif-2.1.0.json, then MCP_EVAL_SARIF_SCHEMA=/tmp/package/sarif-2.1.0.json")
	}
	s := spectest.CompileFile(t, path, "https://json.schemastore.org/sarif-2.1.0.json", "", (*jsonschema.Compiler).AssertFormat)
	validateFiles(t, s, filepath.Join("testdata", "*.sarif"))
	if err := validate(t, s, renderSARIF(t, loadReport(t, "hostile-tool"), SARIFOptions{ArtifactURI: "servers/a b:c.py"})); err != nil {
		t.Errorf("with an artifact: %v", err)
	}
}

func TestSARIFLevelsAndRules(t *testing.T) {
	t.Parallel()
	r := &Report{
		Server: Server{Target: "http://127.0.0.1:8931/mcp"},
		Checks: []Check{
			{ID: "caching/tools-list", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusFail, Message: "no ttlMs", Title: "ttlMs on tools/list",
				SpecRef: "https://modelcontextprotocol.io/specification/2026-07-28/basic/caching"},
			{ID: "http/get-not-allowed", Layer: LayerConformance, Level: LevelShould, Status: StatusFail, Message: "GET got 200", SpecRef: "spec §4"},
			{ID: "errors/unsupported-version", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusError, Message: "timed out"},
			{ID: "result-type/tools-call", Layer: LayerConformance, Level: LevelMust, Hard: true, Status: StatusFail, Message: "partial"},
			{ID: "discover/responds", Layer: LayerConformance, Hard: true, Status: StatusPass},
			{ID: "caching/prompts-list", Layer: LayerConformance, Hard: true, Status: StatusSkip},
			{ID: "resilience/oversized-request", Layer: LayerResilience, Level: LevelMust, Status: StatusFail, Message: "HTTP 500"},
			{ID: "behavior/x", Layer: LayerBehavior, Status: StatusFail},
		},
		Gate: &Gate{Waived: []GateItem{{Kind: "check", ID: "result-type/tools-call", WaiverReason: "SDK bug"}}},
	}
	d := checkSARIF(t, "levels", render(t, WriteSARIF, r))
	// Each rule as "id level helpUri", each result as "rule level text".
	type listing struct{ Rules, Results []string }
	var got listing
	for _, rule := range d.Runs[0].Tool.Driver.Rules {
		got.Rules = append(got.Rules, rule.ID+" "+rule.Default.Level+" "+rule.HelpURI)
	}
	for _, res := range d.Runs[0].Results {
		got.Results = append(got.Results, res.RuleID+" "+res.Level+" "+res.Message.Text)
	}
	want := listing{Rules: []string{
		"caching/prompts-list error ",
		"caching/tools-list error https://modelcontextprotocol.io/specification/2026-07-28/basic/caching",
		"discover/responds error ",
		"errors/unsupported-version error ",
		"http/get-not-allowed warning ",
		"resilience/oversized-request warning ",
		"result-type/tools-call error ",
	}, Results: []string{
		"caching/tools-list error no ttlMs",
		"errors/unsupported-version error The check could not complete: timed out",
		"http/get-not-allowed warning GET got 200",
		"resilience/oversized-request warning HTTP 500",
		"result-type/tools-call warning partial (waived: SDK bug)",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules and results (-want +got):\n%s", diff)
	}

	// --strict makes every failure an error.
	r.Strict = true
	for _, res := range readSARIF(t, render(t, WriteSARIF, r)).Runs[0].Results {
		if res.Level != "error" && res.RuleID != "result-type/tools-call" {
			t.Errorf("strict: %s is %s", res.RuleID, res.Level)
		}
	}
}

func TestSARIFLocations(t *testing.T) {
	t.Parallel()
	r := &Report{
		Server:  Server{Target: "node server.js --port 3000"},
		Surface: Surface{Tools: []SurfaceItem{{Name: "get"}, {Name: "get_weather"}, {Name: "search"}}},
		Checks: []Check{
			{ID: "schema/input-schema-valid", Hard: true, Status: StatusFail, Message: "invalid",
				Evidence: json.RawMessage(`{"problems":["get_weather inputSchema: bad type","search: no inputSchema","unknown: x"]}`)},
			{ID: "lint/tool-description", Status: StatusFail, Message: "short", Evidence: json.RawMessage(`{"tool":"get","description":"hi"}`)},
			{ID: "lint/tool-name-pattern", Status: StatusFail, Message: "bad names", Evidence: json.RawMessage(`{"tools":["a b","a b","\u202ex"]}`)},
			{ID: "caching/tools-list", Hard: true, Status: StatusFail, Message: "no ttlMs", Evidence: json.RawMessage(`["not an object"]`)},
		},
	}
	d := checkSARIF(t, "locations", renderSARIF(t, r, SARIFOptions{ArtifactURI: "./servers/weather/"}))
	got := map[string][]string{}
	for _, res := range d.Runs[0].Results {
		loc := res.Locations[0]
		if uri := loc.PhysicalLocation.ArtifactLocation.URI; uri != "servers/weather" {
			t.Errorf("%s: artifact %q", res.RuleID, uri)
		}
		for _, l := range loc.LogicalLocations {
			got[res.RuleID] = append(got[res.RuleID], l.Kind+":"+l.Name)
		}
	}
	want := map[string][]string{
		"schema/input-schema-valid": {"function:get_weather", "function:search"},
		"lint/tool-description":     {"function:get"},
		"lint/tool-name-pattern":    {"function:a b", "function:x"},
		"caching/tools-list":        {"module:node server.js --port 3000"},
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s: logical locations %q, want %q", k, got[k], w)
		}
	}
}

func TestSARIFArtifactURI(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", ""},
		{"mcp-eval.yaml", "mcp-eval.yaml"},
		{"./src/server.ts", "src/server.ts"},
		{`src\server.py`, "src/server.py"},
		{"src/my server/[main].py", "src/my%20server/%5Bmain%5D.py"},
		{"src/ünï.py", "src/%C3%BCn%C3%AF.py"},
		{"/etc/passwd", ""},
		{"../outside.yaml", ""},
		{"a/../../outside.yaml", ""},
		{"C:/repo/x.py", ""},
		{"file:///repo/x.py", ""},
		{".", ""},
	}
	for _, tt := range tests {
		if got := sarifArtifactURI(tt.in); got != tt.want {
			t.Errorf("sarifArtifactURI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSARIFFingerprints checks that a finding keeps its fingerprint across
// runs whose messages differ only in numbers, and that different findings
// do not share one.
func TestSARIFFingerprints(t *testing.T) {
	t.Parallel()
	fp := func(target, msg, evidence string) string {
		r := &Report{Server: Server{Target: target}, Checks: []Check{
			{ID: "errors/unsupported-version", Hard: true, Status: StatusFail, Runs: 5, Passed: 2, Message: msg, Evidence: json.RawMessage(evidence)},
		}}
		d := readSARIF(t, render(t, WriteSARIF, r))
		return d.Runs[0].Results[0].PartialFingerprints["mcpEvalFinding/v1"]
	}
	base := fp("http://127.0.0.1:8931/mcp", "request timed out after 10s (id 4f3a9c2e1b7d)", `{}`)
	same := []string{
		fp("http://127.0.0.1:40123/mcp", "request timed out after 12s (id 9a8b7c6d5e4f)", `{}`),
		fp("http://127.0.0.1:8931/mcp", "Request  timed out after 9s (id 00112233)", `{}`),
	}
	for i, s := range same {
		if s != base {
			t.Errorf("variant %d: fingerprint %s, want %s", i, s, base)
		}
	}
	for i, d := range []string{
		fp("http://other.example/mcp", "request timed out after 10s (id 4f3a9c2e1b7d)", `{}`),
		fp("http://127.0.0.1:8931/mcp", "connection refused", `{}`),
		fp("http://127.0.0.1:8931/mcp", "request timed out after 10s (id 4f3a9c2e1b7d)", `{"tool":"x"}`),
	} {
		if d == base {
			t.Errorf("different finding %d shares the fingerprint", i)
		}
	}
}

func TestSARIFMessageHasNoLinks(t *testing.T) {
	t.Parallel()
	r := &Report{Checks: []Check{{ID: "lint/tool-description", Status: StatusFail,
		Message: `see [here](https://evil.example) and [there](0) \[x]`}}}
	d := readSARIF(t, render(t, WriteSARIF, r))
	want := `see \[here\](https://evil.example) and \[there\](0) \\\[x\]`
	if got := d.Runs[0].Results[0].Message.Text; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestPlainText(t *testing.T) {
	t.Parallel()
	testCut(t, "plainText", plainText, []cutCase{
		{"plain </details> @org/team `x`", 100, "plain </details> @org/team `x`"},
		{"a\r\nb\rc\x00d\x1b[31me\u202ef\u2028g", 100, "a\nb\ncd[31mefg"},
		{"  trim\n", 100, "trim"},
		{"bad\xffutf8", 100, "bad\ufffdutf8"},
		{"abcdef", 3, "abc…"},
	})
}

// TestSARIFPointsWhereKnown: a result points at a file where one is known
// (a waived failure at its waiver's line, a case at its golden file line),
// else at the server itself as a relative reference (code scanning refuses
// an http URI), never at a config file that may not exist; a message says
// its runs once.
func TestSARIFPointsWhereKnown(t *testing.T) {
	t.Parallel()
	fail := func(id, msg string) Check {
		return Check{ID: id, Layer: LayerConformance, Level: "MUST", Hard: true, Status: StatusFail, Runs: 5, Passed: 0, Message: msg + " (0 of 5 runs passed)"}
	}
	r := &Report{
		Server: Server{Target: "http://127.0.0.1:8080/mcp", Transport: "http"},
		Checks: []Check{fail("caching/tools-list", "no ttlMs"), fail("result-type/tools-list", "no resultType")},
		Cases: []Case{
			{ID: "weather", Model: "openai:m", Kind: "soft", Runs: 5, Passed: 1, PassRate: 0.2, Floor: 0.8, Status: StatusFail,
				File: "golden/tasks.yaml", Line: 14, Failures: []string{"run 1: called no tool, want get_weather"}},
			{ID: "weather#fault-http_500", Model: "openai:m", Kind: "soft", Runs: 5, Passed: 5, PassRate: 1, Floor: 0.8, Status: StatusPass, File: "golden/tasks.yaml", Line: 14},
		},
		Gate: &Gate{Waived: []GateItem{{Kind: ItemCheck, ID: "result-type/tools-list", Waived: true, WaiverReason: "SDK bug",
			WaiverFile: ".mcp-eval/waivers.yaml", WaiverLine: 7}}},
	}
	d := checkSARIF(t, "places", renderSARIF(t, r, SARIFOptions{}))
	got := map[string]string{}
	for _, res := range d.Runs[0].Results {
		p := res.Locations[0].PhysicalLocation
		got[res.RuleID] = fmt.Sprintf("%s:%d", p.ArtifactLocation.URI, p.Region.StartLine)
		if n := strings.Count(res.Message.Text, "runs passed"); res.RuleID != "case/weather" && n != 1 {
			t.Errorf("%s: message %q says its runs %d times", res.RuleID, res.Message.Text, n)
		}
	}
	want := map[string]string{
		"caching/tools-list":     "127.0.0.1%3A8080/mcp:1",
		"result-type/tools-list": ".mcp-eval/waivers.yaml:7",
		"case/weather":           "golden/tasks.yaml:14",
	}
	if !maps.Equal(got, want) {
		t.Errorf("locations %v, want %v", got, want)
	}

	for _, tt := range []struct{ target, want string }{
		{"http://127.0.0.1:8080/mcp", "127.0.0.1%3A8080/mcp"},
		{"https://mcp.example.com", "mcp.example.com"},
		{"node build/index.js --stdio", "build/index.js"},
		{"go run ./examples/weather-server", "examples/weather-server"},
		{"uv run my-server", "uv%20run%20my-server"},
		{"/usr/local/bin/server", "%2Fusr%2Flocal%2Fbin%2Fserver"},
		{"", "mcp-server"},
	} {
		if got := sarifServerURI(tt.target); got != tt.want {
			t.Errorf("sarifServerURI(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}
