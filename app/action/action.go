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
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
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
		readOnly, why := ev.ReadOnly()
		switch {
		case readOnly:
			// A fork's or Dependabot's token is read-only whatever the
			// workflow's permissions: say, and the run has no secrets, so
			// the label cannot run the model layers here: it is not read
			// (a 403 on it would suggest a permission that cannot help).
			// https://docs.github.com/en/actions/security-for-github-actions/security-guides/automatic-token-authentication#permissions-for-the-github_token
			if labelPresent {
				a.notes = append(a.notes, markdownNote(forkLabelNote(why, in.EvalLabel)))
			}
		case a.client != nil:
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

// forkLabelNote says why the eval label runs no model layer on a
// read-only pull request, and what does.
func forkLabelNote(why, label string) string {
	return fmt.Sprintf("The `%s` label does not run the model layers here: %s, whatever the workflow's `permissions:` say, so no permission can change it. "+
		"To comment on fork pull requests, add the `workflow_run` workflow of examples/workflows/mcp-eval-fork-comment.yml (it never runs the fork's code); "+
		"to run the model layers on the change, push it to a branch of this repository after review and label that pull request, or run the workflow by hand (`workflow_dispatch`).",
		label, why)
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
				carriedRun(base, bs)
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
	a.defaultSelect(cfg)
	return bs, baselineURL
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

// dryRun is the dry-run input (layer1): the model layers' plan
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
