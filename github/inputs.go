package github

import (
	"errors"
	"fmt"
	"io"
	"strings"

	githubactions "github.com/sethvargo/go-githubactions"

	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// Defaults the code relies on when an input is empty. Inside a workflow the
// runner fills inputs from action.yml's defaults; these apply to local runs
// and keep the behaviour the same if action.yml leaves a default out.
const (
	DefaultArtifactName = "mcp-eval-report"
	DefaultEvalLabel    = "run-evals"
)

// InputNames lists every input the Action reads, as declared in action.yml.
// A test in main keeps action.yml, this list and the README in sync.
var InputNames = []string{
	"server-url",
	"server-cmd",
	"server-start",
	"headers",
	"layers",
	"golden",
	"models",
	"runs",
	"max-drop",
	"baseline-artifact",
	"eval-label",
	"github-token",
	"comment",
	"comment-key",
	"shard",
	"strict",
	"safe-tools",
	"protocol-version",
	"timeout",
	"config",
	"drift",
	"require-significance",
	"waivers",
	"out",
	"report",
}

// Inputs are the Action's inputs. Most map one to one onto a CLI flag of
// the same name (see Flags), so that the Action is the CLI with another
// front door; the others steer the Action itself.
type Inputs struct {
	ServerURL   string
	ServerCmd   string
	ServerStart string
	// Headers are 'Name: value' lines (one per line, since values may hold
	// commas); their values are secrets and are masked by MaskInputs.
	Headers             []string
	Layers              string // "auto" or a comma list; resolved by SelectLayers
	Golden              string
	Models              string // comma list (newlines accepted too)
	Runs                string
	MaxDrop             string
	BaselineArtifact    string // artifact holding the baseline report.json
	EvalLabel           string // the label that runs the model layers on a pull request
	GitHubToken         string
	Comment             bool // upsert the sticky pull request comment
	CommentKey          string
	Shard               string
	Strict              *bool // nil when the input is empty
	SafeTools           []string
	ProtocolVersion     string
	Timeout             string
	Config              string
	Drift               string
	RequireSignificance *bool
	Waivers             string
	Out                 string
	// Report, when set, is a report.json to gate and publish instead of
	// running (the merged report of sharded jobs).
	Report string
}

// ReadInputs reads the inputs through go-githubactions, which maps a name
// to INPUT_<NAME> with hyphens kept (INPUT_SERVER-URL) exactly as the runner
// does. The runner enforces neither required inputs nor types, so booleans
// are checked here; whether a server was named at all is left to the CLI's
// validation, because the config file may name it.
func ReadInputs(getenv func(string) string) (Inputs, error) {
	a := githubactions.New(githubactions.WithGetenv(getenv))
	get := a.GetInput
	var errs []error
	boolean := func(name string) *bool {
		v, err := parseBool(name, get(name))
		if err != nil {
			errs = append(errs, err)
		}
		return v
	}
	in := Inputs{
		ServerURL:           get("server-url"),
		ServerCmd:           get("server-cmd"),
		ServerStart:         get("server-start"),
		Headers:             lines(get("headers")),
		Layers:              get("layers"),
		Golden:              get("golden"),
		Models:              strings.Join(list(get("models")), ","),
		Runs:                get("runs"),
		MaxDrop:             get("max-drop"),
		BaselineArtifact:    get("baseline-artifact"),
		EvalLabel:           get("eval-label"),
		GitHubToken:         get("github-token"),
		Comment:             true,
		CommentKey:          get("comment-key"),
		Shard:               get("shard"),
		Strict:              boolean("strict"),
		SafeTools:           list(get("safe-tools")),
		ProtocolVersion:     get("protocol-version"),
		Timeout:             get("timeout"),
		Config:              get("config"),
		Drift:               get("drift"),
		RequireSignificance: boolean("require-significance"),
		Waivers:             get("waivers"),
		Out:                 get("out"),
		Report:              get("report"),
	}
	if c := boolean("comment"); c != nil {
		in.Comment = *c
	}
	if in.BaselineArtifact == "" {
		in.BaselineArtifact = DefaultArtifactName
	}
	if in.EvalLabel == "" {
		in.EvalLabel = DefaultEvalLabel
	}
	return in, errors.Join(errs...)
}

// parseBool accepts the spellings of the YAML 1.2 core schema that the
// official toolkit's getBooleanInput accepts, and nothing else, so that a
// typo such as "ture" is an error rather than a silent false.
func parseBool(name, v string) (*bool, error) {
	var b bool
	switch v {
	case "":
		return nil, nil
	case "true", "True", "TRUE":
		b = true
	case "false", "False", "FALSE":
		b = false
	default:
		return nil, fmt.Errorf("input %s: %q is not a boolean (want true or false)", name, v)
	}
	return &b, nil
}

// lines splits a multi-line input, dropping blank lines.
func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// list splits an input on newlines and commas: YAML block scalars are the
// natural way to write long lists in a workflow.
func list(s string) []string {
	var out []string
	for _, l := range lines(s) {
		for _, f := range strings.Split(l, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// Flags turns the inputs into CLI arguments (--name=value, so that values
// starting with "-" stay values), with the layers and cache choice of sel.
// Empty inputs are left out so that the CLI's defaults and the config file
// apply; action.yml should therefore default flag-backed inputs to "".
func (in Inputs) Flags(sel Selection) []string {
	var args []string
	add := func(name, v string) {
		if v != "" {
			args = append(args, "--"+name+"="+v)
		}
	}
	addBool := func(name string, v *bool) {
		if v != nil {
			args = append(args, fmt.Sprintf("--%s=%t", name, *v))
		}
	}
	add("config", in.Config)
	add("server-url", in.ServerURL)
	add("server-cmd", in.ServerCmd)
	add("server-start", in.ServerStart)
	for _, h := range in.Headers {
		add("header", h)
	}
	add("layers", strings.Join(sel.Layers, ","))
	add("golden", in.Golden)
	add("models", in.Models)
	add("runs", in.Runs)
	add("max-drop", in.MaxDrop)
	add("shard", in.Shard)
	addBool("strict", in.Strict)
	add("safe-tools", strings.Join(in.SafeTools, ","))
	add("protocol-version", in.ProtocolVersion)
	add("timeout", in.Timeout)
	add("drift", in.Drift)
	addBool("require-significance", in.RequireSignificance)
	add("waivers", in.Waivers)
	add("out", in.Out)
	if sel.NoCache {
		args = append(args, "--no-cache")
	}
	return args
}

// MaskInputs tells the runner to mask the secrets among the inputs before
// anything else is printed. The runner already masks values that came from
// ${{ secrets.* }} verbatim, but not what is derived from them. The
// headers that carry a credential by their name (redact.CredentialHeader)
// are masked whole and in their parts (redact.HeaderCredentials: the
// credential after its scheme, a Basic password, each cookie); a value
// written as $VAR is masked once expanded (the action's maskHeaders), and
// other headers (X-Trace: on) are no secret. Values under four characters
// are not masked: the runner would blank every occurrence in the log.
func MaskInputs(w io.Writer, in Inputs) error {
	secrets := []string{in.GitHubToken}
	for _, h := range in.Headers {
		name, v, ok := strings.Cut(h, ":")
		if !ok || !redact.CredentialHeader(name) {
			continue
		}
		v = strings.TrimSpace(v)
		secrets = append(append(secrets, v), redact.HeaderCredentials(name, v)...)
	}
	for _, s := range secrets {
		if len(strings.TrimSpace(s)) < 4 {
			continue
		}
		if err := Mask(w, s); err != nil {
			return err
		}
	}
	return nil
}
