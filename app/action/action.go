// Package action is `mcp-eval action`, the GitHub Action's orchestration:
// it reads INPUT_* (or host mode's flags) and the GITHUB_* environment,
// selects the layers of this event (selectLayers), builds the run's Config
// (configure), composes the per-layer baselines of the last green runs
// (baselines), runs pipeline.Evaluate (or gates a given merged report,
// pipeline.Publish), and publishes: annotations, the sticky pull request
// comment, the job summary, the outputs (publish). Everything published
// goes through the run's redactor. It drives the pipeline and package
// github; no layer imports it.
package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/option"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// Command is `mcp-eval action`, the container's entry point (and
// host mode's): the same run as the CLI, configured from INPUT_* (or
// flags) and the GITHUB_* environment, plus the per-layer baselines, the
// job summary, outputs, annotations and the pull request comment. API
// trouble (no baseline, a 403 on the comment, an outage) is a warning in
// the summary, never a failed job by itself. A run that cannot evaluate
// (exit 2 or 3) still writes the summary, the outputs, an annotation and
// the comment, saying so and why, so that nothing keeps claiming the last
// result. Everything published goes through the run's redactor.
func Command(ctx context.Context, args []string, env pipeline.Env) error {
	getenv, err := actionFlags(args, env.Getenv)
	if err != nil {
		return err
	}
	env.Getenv = getenv
	stdout, stderr := env.Stdout, env.Stderr
	ghEnv, err := github.ReadEnv(getenv)
	if err != nil {
		return exitcode.Config(err)
	}
	ev, err := github.ReadEvent(ghEnv)
	if err != nil {
		return exitcode.Config(err)
	}
	in, err := github.ReadInputs(getenv, config.Options())
	if err != nil {
		return exitcode.Config(err)
	}
	if in.GitHubToken == "" {
		// Host mode has no action.yml default of ${{ github.token }}; a
		// run step passes it as GITHUB_TOKEN, the gh CLI's convention.
		in.GitHubToken = getenv("GITHUB_TOKEN")
	}
	// Secrets are masked before anything else is printed.
	if err := github.MaskInputs(stdout, in); err != nil {
		return err
	}
	a := &action{run: env, env: ghEnv, ev: ev, in: in, stdout: stdout, stderr: stderr, red: tokenRedactor(in.GitHubToken), pause: &pause{w: stdout}}
	a.key = github.NormalizeKey(in.CommentKey)
	if a.key == "" {
		a.key = github.DefaultCommentKey(getenv)
	}
	a.client, err = github.NewClient(ghEnv, ev, github.Config{Token: in.GitHubToken, ArtifactName: in.BaselineArtifact})
	if err != nil {
		a.warn(err)
		a.client = nil
	}
	if err := a.runAction(ctx); err != nil {
		if code := exitcode.Of(err); code != exitcode.OK && !a.published {
			a.couldNotEvaluate(ctx, code, err)
		}
		return err
	}
	return nil
}

// action is one run of the action: what it publishes, and where.
type action struct {
	run       pipeline.Env // the run's program environment
	env       github.Env
	ev        github.Event
	in        github.Inputs
	client    *github.Client
	key       string // the comment key
	notes     []note
	sel       github.Selection
	red       *redact.Redactor
	stdout    io.Writer
	stderr    io.Writer
	pause     *pause // workflow commands while the run prints what the server sent
	ws        string
	out       string
	published bool // the report's summary, outputs and comment are written
}

// warn records API trouble as a note of the job summary and, when the token
// lacked a permission (a 403 naming the permissions: line the workflow
// needs, or no token at all), as a ::warning:: annotation too: a line in
// the log is read by nobody, an annotation is shown on the run.
func (a *action) warn(err error) {
	a.notes = append(a.notes, plainNote(err.Error()))
	var w *github.Warning
	if errors.As(err, &w) && w.Kind == github.Forbidden {
		if aerr := a.annotate([]github.Annotation{{Level: github.LevelWarning, Title: "mcp-eval: permission", Message: err.Error()}}); aerr != nil {
			fmt.Fprintf(a.stderr, "mcp-eval: annotation: %v\n", aerr)
		}
	}
}

// note is a line of the job summary's Notes: md is Markdown, text the same
// for the terminal. Our own notes are written in Markdown (code spans for
// names); text from elsewhere (an API error, a branch name) is escaped once
// here and never again, so a code span or a URL renders as one.
type note struct{ md, text string }

func plainNote(s string) note { return note{md: report.EscapeMarkdown(s), text: s} }

func markdownNote(s string) note { return note{md: s, text: s} }

func (a *action) runAction(ctx context.Context) error {
	flags, given, err := a.selectLayers(ctx)
	if err != nil {
		return err
	}
	cfg, err := a.configure(flags)
	if err != nil {
		return err
	}
	if cfg.DryRun {
		return a.dryRun(ctx, cfg)
	}
	baselines, baselineURL := a.baselines(ctx, cfg)
	var r *report.Report
	// What the run prints quotes the server: no line of it is a workflow
	// command (pause).
	err = a.pause.quiet(func() (err error) {
		if given != nil {
			r, err = pipeline.Publish(cfg, given, a.red, a.stdout)
			return err
		}
		run := a.run
		// One redactor for the run and what the Action publishes, so that
		// a token obtained during the run is masked in the comment and
		// summary too, and the runner's log masks it as well.
		run.Redactor = a.red
		run.MaskSecret = a.pause.mask
		r, err = pipeline.Evaluate(ctx, cfg, run)
		return err
	})
	if err != nil {
		return err
	}
	return a.publish(ctx, cfg, r, baselines, baselineURL)
}

// selectLayers decides the layers of this run from the event, the label
// (confirmed through the API: payload labels are frozen on a re-run) and
// the models input, and returns the flags the inputs make. With the report
// input, the given report's layers are published instead of running any.
func (a *action) selectLayers(ctx context.Context) (flags []string, given *report.Report, err error) {
	in, ev := a.in, a.ev
	labelPresent := false
	if ev.PullRequest != nil {
		for _, l := range ev.PullRequest.Labels {
			labelPresent = labelPresent || strings.EqualFold(l, in.EvalLabel)
		}
		if a.client != nil {
			if ok, err := a.client.LabelPresent(ctx, ev.PullRequest.Number, in.EvalLabel); err != nil {
				a.warn(err)
			} else {
				labelPresent = ok
			}
		}
	}
	sel, err := github.SelectLayers(in.Layers, ev, in.EvalLabel, labelPresent)
	if err != nil {
		return nil, nil, exitcode.Usagef("layers: %v", err)
	}
	if strings.TrimSpace(in.Models) == "" {
		// Without models the model layers cannot run; auto drops them,
		// and the reason must not promise them.
		if only := onlyConformance(sel.Layers); len(only) < len(sel.Layers) {
			sel.Layers = only
			sel.Reason = "Conformance only: this " + orEvent(ev.Name) + " run would include the model layers, but the models input is empty."
		}
	}
	flags = in.Flags(sel)
	if in.Report != "" {
		// Publish mode: the merged report of sharded jobs is gated and
		// published as one run, with one comment; no server is contacted.
		if given, err = pipeline.ReadReport("input report", in.Report); err != nil {
			return nil, nil, err
		}
		sel.Layers = given.Layers
		sel.Reason = fmt.Sprintf("Layers of the given report %s: %s (not run here: gated and published).", in.Report, strings.Join(given.Layers, ", "))
		if in.ServerURL == "" && in.ServerCmd == "" {
			// The configuration wants a server; the report names the one
			// it evaluated, which is never contacted.
			if given.Server.Transport == "stdio" {
				flags = append(flags, "--server-cmd="+given.Server.Target)
			} else {
				flags = append(flags, "--server-url="+given.Server.Target)
			}
		}
	}
	a.sel = sel
	a.notes = append([]note{markdownNote(sel.Reason)}, a.notes...)
	return flags, given, nil
}

// configure parses the flags into the run's Config, builds its redactor,
// masks the expanded header values and puts --out in the workspace.
func (a *action) configure(flags []string) (*config.Config, error) {
	getenv := a.run.Getenv
	cfg, err := config.Parse("action", flags, getenv)
	if err != nil {
		return nil, err
	}
	if a.red, err = cfg.Redactor(getenv); err != nil {
		return nil, err
	}
	// The runner masks the header input as written ($VAR templates); the
	// secret is the expanded value.
	if err := maskHeaders(a.stdout, cfg, getenv); err != nil {
		return nil, err
	}
	a.ws = getenv("GITHUB_WORKSPACE")
	if !filepath.IsAbs(cfg.Out) && a.ws != "" {
		cfg.Out = filepath.Join(a.ws, cfg.Out)
	}
	a.out = cfg.Out
	return cfg, nil
}

// baselines finds each layer's baseline from the newest green run that
// produced it (DESIGN.md "GitHub Action"), composes them into one report
// for the gate and points cfg.Baseline at it. Trouble is a note, never a
// failure: the run then applies absolute floors only.
func (a *action) baselines(ctx context.Context, cfg *config.Config) (bs *github.Baselines, baselineURL string) {
	layers := a.sel.Layers
	if a.client != nil && cfg.Baseline == "" {
		var err error
		bs, err = a.client.FetchBaselines(ctx, layers)
		if err != nil {
			a.warn(err)
		} else {
			for _, l := range bs.Lines(layers, time.Now()) {
				a.notes = append(a.notes, plainNote("Baseline: "+l))
			}
			if base := github.Compose(bs.Parts, layers); base != nil {
				if path, err := writeTemp(a.env.RunnerTemp, "mcp-eval-baseline-*.json", base); err != nil {
					a.warn(err)
				} else {
					cfg.Baseline, cfg.BaselineLabel = path, baselineLabel(bs, layers)
					for _, l := range layers {
						if d, ok := bs.From[l]; ok {
							baselineURL = d.HTMLURL
							break
						}
					}
				}
			}
		}
	}
	if cfg.Baseline == "" {
		a.notes = append(a.notes, markdownNote("No baseline report was found, so only absolute floors and waivers were applied."))
	}
	return bs, baselineURL
}

// publish carries the layers this run did not produce forward in its
// artifact, and writes the annotations, the PR comment, the job summary,
// the notes and the outputs; the exit code follows the report's verdict.
func (a *action) publish(ctx context.Context, cfg *config.Config, r *report.Report, baselines *github.Baselines, baselineURL string) error {
	passed := r.Passed()
	if carried, err := github.CarryForward(cfg.Out, r, baselines, a.red.JSON); err != nil {
		a.warn(err)
	} else if len(carried) > 0 {
		a.notes = append(a.notes, plainNote(fmt.Sprintf("Carried forward into this run's report artifact (%s/): the %s baseline, so the next run still finds it.", github.CarriedDir, strings.Join(carried, ", "))))
	}
	summaryPath := filepath.Join(cfg.Out, "summary.md")

	// The comment and annotations render from a redacted copy: rendering
	// escapes text (a_b as a\_b in Markdown), which would respell a
	// secret past a redactor applied afterwards.
	pub := pipeline.Mask(r, a.red)
	if err := a.annotate(github.ReportAnnotationsAt(pub, annotationSources(cfg, pub))); err != nil {
		return err
	}
	if err := a.comment(ctx, pub, baselineURL); err != nil {
		return err
	}
	if a.env.SummaryPath != "" {
		summary, err := os.ReadFile(summaryPath)
		if err != nil {
			return err
		}
		if err := a.summary(summary); err != nil {
			return err
		}
	}
	for _, n := range a.notes[1:] {
		fmt.Fprintf(a.stderr, "mcp-eval: %s\n", a.red.String(n.text))
	}
	if err := a.outputs(a.reportOutputs(cfg, r, passed, baselineURL)); err != nil {
		return err
	}
	a.published = true
	if !passed {
		return exitcode.New(exitcode.Failed, "")
	}
	return nil
}

// comment upserts the pull request's sticky comment, rendered from pub
// (the redacted report), when this run comments.
func (a *action) comment(ctx context.Context, pub *report.Report, baselineURL string) error {
	pr := a.ev.PullRequest
	if pr == nil || !a.in.Comment || a.sel.ReadOnly || a.client == nil {
		return nil
	}
	var body bytes.Buffer
	if err := report.WriteComment(&body, pub, report.CommentOptions{RunURL: a.env.RunURL(), BaselineURL: baselineURL, Key: a.key}); err != nil {
		return err
	}
	if _, err := a.client.UpsertKeyedComment(ctx, pr.Number, a.key, a.red.String(body.String())); err != nil {
		a.warn(err)
	}
	return nil
}

// reportOutputs are the outputs of a finished run (github.Outputs), the
// paths relative to the workspace.
func (a *action) reportOutputs(cfg *config.Config, r *report.Report, passed bool, baselineURL string) map[string]string {
	outputs := github.ReportOutputs(r, passed, workspacePath(a.ws, filepath.Join(cfg.Out, "report.json")), workspacePath(a.ws, filepath.Join(cfg.Out, "summary.md")), baselineURL)
	outputs["sarif-path"] = workspacePath(a.ws, filepath.Join(cfg.Out, "results.sarif"))
	outputs["exit-code"], outputs["error"] = strconv.Itoa(exitcode.OK), ""
	if !passed {
		outputs["exit-code"] = strconv.Itoa(exitcode.Failed)
	}
	if rel := workspacePath(a.ws, cfg.Out); filepath.IsAbs(rel) && a.ws != "" {
		fmt.Fprintf(a.stderr, "mcp-eval: out %s is outside the workspace %s: inside the Docker action it is gone after the step (use a path in the workspace)\n", cfg.Out, a.ws)
	}
	return outputs
}

// summary appends the run's summary and the notes to the job summary.
func (a *action) summary(md []byte) error {
	var b bytes.Buffer
	b.Write(md)
	b.WriteString("\n### Notes\n\n")
	for _, n := range a.notes {
		// Redacted in the text, before escaping: Markdown escaping would
		// respell a secret (a_b as a\_b) past the redactor.
		md := n.md
		if red := a.red.String(n.text); red != n.text {
			md = report.EscapeMarkdown(red)
		}
		fmt.Fprintf(&b, "- %s\n", md)
	}
	return github.AppendSummary(a.env.SummaryPath, a.red.Bytes(b.Bytes()))
}

func (a *action) outputs(outputs map[string]string) error {
	if a.env.OutputPath == "" {
		return nil
	}
	for k, v := range outputs {
		outputs[k] = a.red.String(v)
	}
	return github.WriteOutputs(a.env.OutputPath, outputs)
}

func (a *action) annotate(anns []github.Annotation) error {
	for i := range anns {
		anns[i].Title, anns[i].Message = a.red.String(anns[i].Title), a.red.String(anns[i].Message)
	}
	return github.WriteAnnotations(a.stdout, anns)
}

// couldNotEvaluate publishes a run that ended without a verdict (exit 2 or
// 3, or an unexpected error): the comment, the summary, the outputs and an
// annotation say so and why, replacing whatever the last run said.
// Failures here are only printed: the run's own error is what counts.
func (a *action) couldNotEvaluate(ctx context.Context, code int, cause error) {
	why := strings.TrimSpace(a.red.String(cause.Error()))
	if why == "" {
		why = "no reason given"
	}
	head := fmt.Sprintf("mcp-eval could not evaluate the server (exit %d)", code)
	if err := a.annotate([]github.Annotation{{Level: github.LevelError, Title: "mcp-eval", Message: head + ": " + why}}); err != nil {
		fmt.Fprintf(a.stderr, "mcp-eval: annotation: %v\n", err)
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "## ⚠️ %s\n\n%s\n\nNo result was produced: no check ran to the end, so nothing passed or failed. Earlier results of this pull request no longer apply.\n", head, report.EscapeMarkdown(why))
	if a.env.SummaryPath != "" {
		if err := a.summary(md.Bytes()); err != nil {
			fmt.Fprintf(a.stderr, "mcp-eval: job summary: %v\n", err)
		}
	}
	outputs := map[string]string{"passed": "false", "exit-code": strconv.Itoa(code), "error": why, "layers": strings.Join(a.sel.Layers, ",")}
	if err := a.outputs(outputs); err != nil {
		fmt.Fprintf(a.stderr, "mcp-eval: outputs: %v\n", err)
	}
	if pr := a.ev.PullRequest; pr != nil && a.in.Comment && !a.sel.ReadOnly && a.client != nil {
		body := md.String()
		if u := a.env.RunURL(); u != "" {
			body += "\n[The run](" + u + ") has the details.\n"
		}
		if _, err := a.client.UpsertKeyedComment(ctx, pr.Number, a.key, a.red.String(body)); err != nil {
			fmt.Fprintf(a.stderr, "mcp-eval: %s\n", a.red.String(err.Error()))
		}
	}
}

// tokenRedactor masks the GitHub token until the run's full redactor
// (headers, model keys) exists.
func tokenRedactor(token string) *redact.Redactor {
	if len(strings.TrimSpace(token)) < redact.MinLen {
		return nil
	}
	r, err := redact.New(redact.Secret{Source: "github-token", Value: strings.TrimSpace(token)})
	if err != nil {
		return nil
	}
	redact.MaskLogs(r)
	return r
}

// maskHeaders registers the secrets of each expanded header (config.Header
// Secrets) with the runner's log masking.
func maskHeaders(w io.Writer, cfg *config.Config, getenv func(string) string) error {
	hs, err := cfg.ExpandHeaders(getenv)
	if err != nil {
		return err
	}
	for _, h := range hs {
		for _, s := range h.Secrets() {
			if len(s.Value) < redact.MinLen {
				continue
			}
			if err := github.Mask(w, s.Value); err != nil {
				return err
			}
		}
	}
	return nil
}

func orEvent(name string) string {
	if name == "" {
		return "unknown"
	}
	return name
}

func onlyConformance(layers []string) []string {
	var out []string
	for _, l := range layers {
		if l == report.LayerConformance {
			out = append(out, l)
		}
	}
	if out == nil {
		out = []string{report.LayerConformance}
	}
	return out
}

func writeTemp(dir, pattern string, r *report.Report) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("baseline: %w", err)
	}
	werr := report.WriteJSON(f, r)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return "", fmt.Errorf("baseline: %w", err)
	}
	return f.Name(), nil
}

// workspacePath turns a path the action wrote into the form its outputs
// carry: relative to the workspace, slash-separated. Inside the Docker
// action GITHUB_WORKSPACE is /github/workspace, a bind mount of the host's
// workspace, and the runner translates environment values into the
// container but never translates file-command values back out
// (actions/runner ContainerActionHandler: AddPathTranslateMapping applies
// to the container's environment only), so an absolute path would name a
// file that does not exist for the next step on the host. Every later step
// starts in the workspace by default, and actions such as upload-artifact
// and codeql-action/upload-sarif resolve relative paths against it, so the
// relative path works in both the Docker action and host mode. A path
// outside the workspace stays absolute: it only exists in host mode.
func workspacePath(workspace, p string) string {
	if workspace == "" {
		return p
	}
	rel, err := filepath.Rel(workspace, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// actionFlags lets a host-mode run step give the inputs as flags
// (mcp-eval action --server-cmd 'node build/index.js'): --NAME=VALUE or
// --NAME VALUE for each input of action.yml, which then wins over
// INPUT_NAME. Windows shells and YAML env blocks both handle flags more
// easily than variable names with hyphens.
func actionFlags(args []string, getenv func(string) string) (func(string) string, error) {
	if len(args) == 0 {
		return getenv, nil
	}
	set := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "--")
		if !ok || name == "" {
			return nil, exitcode.Usagef("action: unexpected argument %q (inputs are flags: --server-url URL, …)", a)
		}
		name, val, hasVal := strings.Cut(name, "=")
		if Inputs().Input(name) == nil {
			names := InputNames()
			return nil, exitcode.Usagef("action: unknown flag --%s%s (the inputs are %s)", name, suggestInput(name, names), strings.Join(names, ", "))
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, exitcode.Usagef("action: flag --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		set["INPUT_"+strings.ToUpper(name)] = val
	}
	return func(k string) string {
		if v, ok := set[k]; ok {
			return v
		}
		return getenv(k)
	}, nil
}

// Inputs are every input of the Action, in action.yml's order: the
// flag-backed ones of the option registry, then the action's own.
func Inputs() *option.Set {
	s := &option.Set{}
	for _, d := range config.Options().Inputs() {
		s.Add(*d, d.Value)
	}
	var in github.Inputs
	in.Declare(s)
	return s
}

// InputNames are the names of Inputs.
func InputNames() []string {
	var names []string
	for _, d := range Inputs().Inputs() {
		names = append(names, d.InputName())
	}
	return names
}

// PrintHelp is mcp-eval action --help: the synopsis and every input, with
// its default and meaning, as action.yml has them; host mode takes each as
// a flag of the same name.
func PrintHelp(w io.Writer) {
	config.PrintHelp("action", w)
	fmt.Fprint(w, "\nInputs (INPUT_<NAME> in the environment; in host mode also --<name> VALUE):\n")
	for _, d := range Inputs().Inputs() {
		def := d.Input.Default
		if def == "" && d.Name != "" {
			def = strings.ReplaceAll(d.DocDefault(), "`", "")
		}
		if def != "" {
			def = " (default " + def + ")"
		}
		doc := d.Input.Doc
		if doc == "" {
			doc = d.Text()
		}
		fmt.Fprintf(w, "  %s%s\n    \t%s\n", d.InputName(), def, doc)
	}
}

// suggestInput names the input closest to a mistyped flag, if one is close.
func suggestInput(name string, names []string) string {
	if n := suggest.Nearest(name, names); n != "" {
		return " (did you mean --" + n + "?)"
	}
	return ""
}

// baselineLabel names the baseline in the gate's own words (report.json,
// summary, comment): the run or runs it came from, never the temporary
// file the gate read.
func baselineLabel(bs *github.Baselines, layers []string) string {
	var parts []string
	seen := map[int64][]string{}
	var order []int64
	for _, l := range layers {
		d, ok := bs.From[l]
		if !ok {
			continue
		}
		if _, ok := seen[d.RunID]; !ok {
			order = append(order, d.RunID)
		}
		seen[d.RunID] = append(seen[d.RunID], l)
	}
	for _, id := range order {
		ls := seen[id]
		d := bs.From[ls[0]]
		desc := fmt.Sprintf("run #%d", d.RunNumber)
		if d.Branch != "" {
			desc += " on " + d.Branch
		}
		if d.Event != "" {
			desc += " (" + d.Event + ")"
		}
		if len(order) > 1 {
			desc = strings.Join(ls, ", ") + ": " + desc
		}
		parts = append(parts, desc)
	}
	return strings.Join(parts, "; ")
}

// annotationSources says where annotations can point: each golden case's
// line (the file was already read and checked by the run, so an error
// here only loses the line) and the waiver file.
func annotationSources(cfg *config.Config, r *report.Report) github.Sources {
	var src github.Sources
	if len(r.Cases) > 0 && cfg.Golden != "" {
		if suite, err := tasks.Load(cfg.Golden); err == nil {
			src.Golden = filepath.ToSlash(cfg.Golden)
			src.CaseLines = map[string]int{}
			for _, c := range suite.Cases {
				src.CaseLines[c.ID] = c.Line
			}
		}
	}
	src.Waivers = cfg.Gate.Waivers
	if src.Waivers == "" {
		if _, err := os.Stat(gate.DefaultWaiverFile); err == nil {
			src.Waivers = gate.DefaultWaiverFile
		}
	}
	return src
}

// dryRun is the dry-run input (layer1, issue 20): the model layers' plan
// whatever the event, since it calls no model; the plan goes to the log
// and the job summary, and the outputs say whether it passed. Nothing is
// commented and no baseline is fetched.
func (a *action) dryRun(ctx context.Context, cfg *config.Config) error {
	cfg.Layers = cmp.Or(a.in.Layers, "auto")
	a.sel.Layers = strings.Split(cfg.Layers, ",")
	var plan *pipeline.DryRunPlan
	var text bytes.Buffer
	// The plan names the server's tools: no line of it is a command.
	err := a.pause.quiet(func() (err error) {
		if plan, err = pipeline.DryRunPlanOf(ctx, cfg, a.run, a.red); err != nil {
			return err
		}
		pipeline.WriteDryRun(&text, plan)
		_, err = fmt.Fprint(a.stdout, a.red.String(text.String()))
		return err
	})
	if err != nil {
		return err
	}
	budgetErr := plan.BudgetError()
	if a.env.SummaryPath != "" {
		md := "## mcp-eval dry run\n\nNo model was called.\n\n```\n" + text.String() + "```\n"
		if err := a.summary([]byte(md)); err != nil {
			a.warn(err)
		}
	}
	code := exitcode.Of(budgetErr)
	outputs := map[string]string{"passed": strconv.FormatBool(budgetErr == nil), "exit-code": strconv.Itoa(code), "layers": strings.Join(a.sel.Layers, ",")}
	if err := a.outputs(outputs); err != nil {
		a.warn(err)
	}
	a.published = true
	return budgetErr
}
