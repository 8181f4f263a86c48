package github

import (
	"flag"
	"io"
	"slices"
	"strings"

	githubactions "github.com/sethvargo/go-githubactions"

	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// Defaults the code relies on when an input is empty. Inside a workflow the
// runner fills inputs from action.yml's defaults; these apply to local runs
// and keep the behaviour the same if action.yml leaves a default out.
const (
	DefaultArtifactName = "mcp-eval-report"
	DefaultEvalLabel    = "run-evals"
)

// Inputs are the Action's inputs as the action reads them: its own, which
// no command takes as a flag (Declare), the few flag-backed ones it looks
// at itself, and Args, every flag-backed input as the CLI flag it stands
// for, so that the Action is the CLI with another front door. The inputs
// themselves are declared once, in the option registry (app/config) and
// in Declare; action.yml and the README's table are made from them.
type Inputs struct {
	ServerURL, ServerCmd string
	// Headers are 'Name: value' lines (one per line, since values may hold
	// commas); their values are secrets and are masked by MaskInputs.
	Headers []string
	Layers  string // "auto" or a comma list; resolved by SelectLayers
	Models  string // comma list (newlines accepted too)
	// Args are the flags of every flag-backed input that was given.
	Args             []string
	BaselineArtifact string // artifact holding the baseline report.json
	EvalLabel        string // the label that runs the model layers on a pull request
	GitHubToken      string
	Comment          bool // upsert the sticky pull request comment
	CommentKey       string
	// Report, when set, is a report.json to gate and publish instead of
	// running (the merged report of sharded jobs).
	Report string
	// Secrets are the values of the other inputs the registry marks secret
	// (oauth-client-secret), for MaskInputs; a $VAR reference is no value.
	Secrets []string
}

// Declare declares the action's own inputs, bound to in, with their
// defaults (action.yml's too).
func (in *Inputs) Declare(s *option.Set) {
	own := func(name, def, doc string, v flag.Value, secret bool) {
		s.Add(option.Def{Secret: secret, Input: &option.Input{Name: name, Default: def, Doc: doc}}, v)
	}
	own("baseline-artifact", DefaultArtifactName, "Artifact holding report.json in earlier runs of this workflow; the baseline is the newest successful run on the base branch that has it.",
		option.String(&in.BaselineArtifact, DefaultArtifactName), false)
	own("eval-label", DefaultEvalLabel, "Pull request label that runs the model layers (confirmed through the API, since payload labels are frozen on re-runs).",
		option.String(&in.EvalLabel, DefaultEvalLabel), false)
	own("github-token", "${{ github.token }}", "Token for the baseline artifact, the label check and the PR comment (needs actions: read and pull-requests: write).",
		option.String(&in.GitHubToken, ""), true)
	own("comment", "true", "Upsert one sticky PR comment with the score deltas (true or false).",
		option.Bool(&in.Comment, true), false)
	own("comment-key", "${{ github.workflow }} / ${{ github.job }} / ${{ toJSON(matrix) }}", "What makes this job's comment its own: one comment per key per pull request, found by a hidden marker (a hash of the key) and by the token's own identity. The default tells workflows, jobs and matrix entries apart; shards of one run should share a key and comment once, through merge.",
		option.String(&in.CommentKey, ""), false)
	own("report", "", "A report.json to gate and publish instead of running (e.g. mcp-eval merge's output for sharded jobs: one summary, one comment). No server is contacted.",
		option.String(&in.Report, ""), false)
}

// ReadInputs reads the inputs through go-githubactions, which maps a name
// to INPUT_<NAME> with hyphens kept (INPUT_SERVER-URL) exactly as the runner
// does: the action's own (Declare) and the flag-backed ones of flags (the
// option registry). The runner enforces neither required inputs nor types,
// so booleans are checked here; whether a server was named at all is left
// to the CLI's validation, because the config file may name it.
func ReadInputs(getenv func(string) string, flags *option.Set) (Inputs, error) {
	a := githubactions.New(githubactions.WithGetenv(getenv))
	var in Inputs
	s := &option.Set{}
	in.Declare(s)
	s.Include(flags)
	var err error
	in.Args, err = s.ReadInputs(a.GetInput)
	in.ServerURL, in.ServerCmd = a.GetInput("server-url"), a.GetInput("server-cmd")
	in.Headers = option.Lines(a.GetInput("headers"))
	in.Layers = a.GetInput("layers")
	in.Models = strings.Join(option.SplitList(a.GetInput("models")), ",")
	for _, d := range s.Inputs() {
		if v := a.GetInput(d.InputName()); d.Secret && !d.Input.Lines && d.InputName() != "github-token" && v != "" && !option.IsRef(v) {
			in.Secrets = append(in.Secrets, v)
		}
	}
	return in, err
}

// Flags turns the inputs into CLI arguments (--name=value, so that values
// starting with "-" stay values), with the layers and cache choice of sel.
// Empty inputs are left out so that the CLI's defaults and the config file
// apply; action.yml therefore defaults flag-backed inputs to "".
func (in Inputs) Flags(sel Selection) []string {
	args := slices.Clone(in.Args)
	if len(sel.Layers) > 0 {
		args = append(args, "--layers="+strings.Join(sel.Layers, ","))
	}
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
	secrets := append([]string{in.GitHubToken}, in.Secrets...)
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
