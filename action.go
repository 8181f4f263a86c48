package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/suggest"
	"github.com/mcp-eval/mcp-eval/report"
)

// actionCommand is `mcp-eval action`, the container's entry point: the
// same run as the CLI, configured from INPUT_* and the GITHUB_* environment,
// plus the baseline from the last green run, the job summary, outputs,
// annotations and the sticky pull request comment. API trouble (no
// baseline, a 403 on the comment, an outage) is a warning in the summary,
// never a failed job by itself.
func actionCommand(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	getenv, err := actionFlags(args, getenv)
	if err != nil {
		return err
	}
	env, err := github.ReadEnv(getenv)
	if err != nil {
		return &configError{err.Error()}
	}
	ev, err := github.ReadEvent(env)
	if err != nil {
		return &configError{err.Error()}
	}
	in, err := github.ReadInputs(getenv)
	if err != nil {
		return &configError{err.Error()}
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
	var notes []string
	warn := func(err error) { notes = append(notes, err.Error()) }

	client, err := github.NewClient(env, ev, github.Config{Token: in.GitHubToken, ArtifactName: in.BaselineArtifact})
	if err != nil {
		warn(err)
		client = nil
	}
	labelPresent := false
	if ev.PullRequest != nil {
		for _, l := range ev.PullRequest.Labels {
			labelPresent = labelPresent || strings.EqualFold(l, in.EvalLabel)
		}
		// Payload labels are frozen when a run is re-run: ask the API.
		if client != nil {
			if ok, err := client.LabelPresent(ctx, ev.PullRequest.Number, in.EvalLabel); err != nil {
				warn(err)
			} else {
				labelPresent = ok
			}
		}
	}
	sel, err := github.SelectLayers(in.Layers, ev, in.EvalLabel, labelPresent)
	if err != nil {
		return usagef("layers: %v", err)
	}
	if strings.TrimSpace(in.Models) == "" {
		// Without models the model layers cannot run; auto drops them.
		sel.Layers = onlyConformance(sel.Layers)
	}
	notes = append([]string{sel.Reason}, notes...)

	cfg, err := parseConfig("action", in.Flags(sel), getenv, stderr)
	if err != nil {
		return err
	}
	if !filepath.IsAbs(cfg.Out) && getenv("GITHUB_WORKSPACE") != "" {
		cfg.Out = filepath.Join(getenv("GITHUB_WORKSPACE"), cfg.Out)
	}
	baselineURL := ""
	var baselines *github.Baselines
	if client != nil && cfg.Baseline == "" {
		// Each layer's baseline from the newest green run that produced it
		// (DESIGN.md "GitHub Action"), composed into one report for the gate.
		bs, err := client.FetchBaselines(ctx, sel.Layers)
		baselines = bs
		switch {
		case err != nil:
			warn(err)
		default:
			for _, l := range bs.Lines(sel.Layers, time.Now()) {
				notes = append(notes, "Baseline: "+l)
			}
			base := github.Compose(bs.Parts, sel.Layers)
			if base == nil {
				break
			}
			path, werr := writeTemp(env.RunnerTemp, "mcp-eval-baseline-*.json", base)
			if werr != nil {
				warn(werr)
				break
			}
			cfg.Baseline, cfg.BaselineLabel = path, baselineLabel(bs, sel.Layers)
			for _, l := range sel.Layers {
				if d, ok := bs.From[l]; ok {
					baselineURL = d.HTMLURL
					break
				}
			}
		}
	}
	if cfg.Baseline == "" {
		notes = append(notes, "No baseline report was found, so only absolute floors and waivers were applied.")
	}

	r, err := evaluate(ctx, cfg, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	passed := r.Passed()
	// The layers this run did not produce travel on in its artifact.
	if carried, err := github.CarryForward(cfg.Out, r, baselines, nil); err != nil {
		warn(err)
	} else if len(carried) > 0 {
		notes = append(notes, fmt.Sprintf("Carried forward into this run's report artifact (%s/): the %s baseline, so the next run still finds it.", github.CarriedDir, strings.Join(carried, ", ")))
	}
	reportPath := filepath.Join(cfg.Out, "report.json")
	summaryPath := filepath.Join(cfg.Out, "summary.md")
	ws := getenv("GITHUB_WORKSPACE")

	if err := github.WriteAnnotations(stdout, github.ReportAnnotations(r)); err != nil {
		return err
	}
	if ev.PullRequest != nil && in.Comment && !sel.ReadOnly && client != nil {
		var body bytes.Buffer
		if err := report.WriteComment(&body, r, report.CommentOptions{RunURL: env.RunURL(), BaselineURL: baselineURL}); err != nil {
			return err
		}
		if _, err := client.UpsertComment(ctx, ev.PullRequest.Number, body.String()); err != nil {
			warn(err)
		}
	}
	if env.SummaryPath != "" {
		summary, err := os.ReadFile(summaryPath)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		b.Write(summary)
		b.WriteString("\n### Notes\n\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "- %s\n", report.EscapeMarkdown(n))
		}
		if err := github.AppendSummary(env.SummaryPath, b.Bytes()); err != nil {
			return err
		}
	}
	for _, n := range notes[1:] {
		fmt.Fprintf(stderr, "mcp-eval: %s\n", n)
	}
	outputs := github.ReportOutputs(r, passed, workspacePath(ws, reportPath), workspacePath(ws, summaryPath), baselineURL)
	outputs["sarif-path"] = workspacePath(ws, filepath.Join(cfg.Out, "results.sarif"))
	if rel := workspacePath(ws, cfg.Out); filepath.IsAbs(rel) && ws != "" {
		fmt.Fprintf(stderr, "mcp-eval: out %s is outside the workspace %s: inside the Docker action it is gone after the step (use a path in the workspace)\n", cfg.Out, ws)
	}
	if env.OutputPath != "" {
		if err := github.WriteOutputs(env.OutputPath, outputs); err != nil {
			return err
		}
	}
	if !passed {
		return &exitError{code: 1}
	}
	return nil
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
			return nil, usagef("action: unexpected argument %q (inputs are flags: --server-url URL, …)", a)
		}
		name, val, hasVal := strings.Cut(name, "=")
		if !slices.Contains(github.InputNames, name) {
			return nil, usagef("action: unknown flag --%s%s (the inputs are %s)", name, suggestInput(name), strings.Join(github.InputNames, ", "))
		}
		if !hasVal {
			if i+1 == len(args) {
				return nil, usagef("action: flag --%s needs a value", name)
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

// suggestInput names the input closest to a mistyped flag, if one is close.
func suggestInput(name string) string {
	if n := suggest.Nearest(name, github.InputNames); n != "" {
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
