package github

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/option"
)

// testFlags stand for the option registry's flag-backed inputs (app/config
// declares the real ones; app/action's tests read them): one of each kind.
func testFlags() *option.Set {
	var v struct {
		url, models, runs, drop, shard, version string
		strict, sig                             bool
		headers, safe                           []string
	}
	s := &option.Set{}
	s.Add(option.Def{Name: "server-url", Input: &option.Input{}}, option.String(&v.url, ""))
	s.Add(option.Def{Name: "server-cmd", Input: &option.Input{}}, option.String(&v.url, ""))
	s.Add(option.Def{Name: "header", Input: &option.Input{Name: "headers", Lines: true}}, option.List(&v.headers, false))
	s.Add(option.Def{Name: "layers", Input: &option.Input{Own: true}}, option.String(&v.url, "auto"))
	s.Add(option.Def{Name: "models", Input: &option.Input{List: true}}, option.String(&v.models, ""))
	s.Add(option.Def{Name: "runs", Input: &option.Input{}}, option.String(&v.runs, ""))
	s.Add(option.Def{Name: "max-drop", Input: &option.Input{}}, option.String(&v.drop, ""))
	s.Add(option.Def{Name: "shard", Input: &option.Input{}}, option.String(&v.shard, ""))
	s.Add(option.Def{Name: "strict", Input: &option.Input{}}, option.Bool(&v.strict, false))
	s.Add(option.Def{Name: "safe-tools", Input: &option.Input{List: true}}, option.List(&v.safe, true))
	s.Add(option.Def{Name: "protocol-version", Input: &option.Input{}}, option.String(&v.version, ""))
	s.Add(option.Def{Name: "require-significance", Input: &option.Input{}}, option.Bool(&v.sig, false))
	return s
}

func TestReadInputs(t *testing.T) {
	t.Parallel()
	// As the runner sets them: upper case, hyphens kept, surrounding space
	// possible from YAML block scalars.
	env := map[string]string{
		"INPUT_SERVER-URL":           " http://mcp:8080/mcp ",
		"INPUT_HEADERS":              "Authorization: Bearer abc123\n\nX-Tenant: acme, eu\nX-Region: eu\n",
		"INPUT_LAYERS":               "auto",
		"INPUT_MODELS":               "openai:gpt-4.1-mini\nanthropic:claude-sonnet-4-5",
		"INPUT_RUNS":                 "3",
		"INPUT_MAX-DROP":             "0.05",
		"INPUT_GITHUB-TOKEN":         "ghs_abc",
		"INPUT_COMMENT":              "False",
		"INPUT_STRICT":               "TRUE",
		"INPUT_SAFE-TOOLS":           "get_forecast, list_cities\nping",
		"INPUT_PROTOCOL-VERSION":     "2026-07-28",
		"INPUT_REQUIRE-SIGNIFICANCE": "",
		"INPUT_SHARD":                "2/4",
	}
	in, err := ReadInputs(mapEnv(env), testFlags())
	if err != nil {
		t.Fatal(err)
	}
	if in.ServerURL != "http://mcp:8080/mcp" || in.Comment || in.GitHubToken != "ghs_abc" {
		t.Errorf("inputs = %+v", in)
	}
	if in.BaselineArtifact != DefaultArtifactName || in.EvalLabel != DefaultEvalLabel {
		t.Errorf("defaults: artifact %q label %q", in.BaselineArtifact, in.EvalLabel)
	}
	if !slices.Equal(in.Headers, []string{"Authorization: Bearer abc123", "X-Tenant: acme, eu", "X-Region: eu"}) {
		t.Errorf("Headers = %q", in.Headers)
	}
	if in.Models != "openai:gpt-4.1-mini,anthropic:claude-sonnet-4-5" {
		t.Errorf("Models = %q", in.Models)
	}

	got := in.Flags(Selection{Layers: full, NoCache: true})
	want := []string{
		"--server-url=http://mcp:8080/mcp",
		"--header=Authorization: Bearer abc123",
		"--header=X-Tenant: acme, eu",
		"--header=X-Region: eu",
		"--models=openai:gpt-4.1-mini,anthropic:claude-sonnet-4-5",
		"--runs=3",
		"--max-drop=0.05",
		"--shard=2/4",
		"--strict=true",
		"--safe-tools=get_forecast,list_cities,ping",
		"--protocol-version=2026-07-28",
		"--layers=conformance,behavior,resilience,telemetry",
		"--no-cache",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Flags =\n%q\nwant\n%q", got, want)
	}

	var out bytes.Buffer
	if err := MaskInputs(&out, in); err != nil {
		t.Fatal(err)
	}
	// X-Tenant and X-Region carry no credential: they are shown.
	wantMask := "::add-mask::ghs_abc\n::add-mask::Bearer abc123\n::add-mask::abc123\n"
	if out.String() != wantMask {
		t.Errorf("masks =\n%s\nwant\n%s", out.String(), wantMask)
	}
}

func TestReadInputsDefaults(t *testing.T) {
	t.Parallel()
	in, err := ReadInputs(mapEnv(nil), testFlags())
	if err != nil {
		t.Fatal(err)
	}
	if !in.Comment || in.BaselineArtifact != DefaultArtifactName || in.EvalLabel != DefaultEvalLabel {
		t.Errorf("defaults = %+v", in)
	}
	if got := in.Flags(Selection{}); len(got) != 0 {
		t.Errorf("Flags of empty inputs = %q, want none (CLI defaults and config apply)", got)
	}
}

func TestReadInputsBadBoolean(t *testing.T) {
	t.Parallel()
	_, err := ReadInputs(mapEnv(map[string]string{"INPUT_COMMENT": "yes", "INPUT_STRICT": "ture"}), testFlags())
	if err == nil {
		t.Fatal("no error for non-boolean inputs")
	}
	for _, s := range []string{`input comment: "yes" is not a boolean`, `input strict: "ture"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
}

// Every input is read under the name the runner gives it: an input
// declared in action.yml but never read would be a silent no-op for users.
func TestInputNamesAreRead(t *testing.T) {
	t.Parallel()
	var read []string
	getenv := func(k string) string {
		read = append(read, k)
		return ""
	}
	s := testFlags()
	var own Inputs
	own.Declare(s)
	if _, err := ReadInputs(getenv, testFlags()); err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Inputs() {
		if n := d.InputName(); !slices.Contains(read, "INPUT_"+strings.ToUpper(n)) {
			t.Errorf("input %s is declared but never read", n)
		}
	}
	for _, k := range read {
		if n := strings.ToLower(strings.TrimPrefix(k, "INPUT_")); s.Input(n) == nil {
			t.Errorf("%s is read but %s is not declared", k, n)
		}
	}
}
