package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/gate"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/report"
	"github.com/mcp-eval/mcp-eval/tasks"
)

// Publishing a run: the job summary, the outputs, the annotations and the
// pull request comment, of a verdict or of a run that could not evaluate.

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
	if err := report.WriteComment(&body, pub, report.CommentOptions{RunURL: a.env.RunURL(), BaselineURL: baselineURL, Key: github.KeyLabel(a.key)}); err != nil {
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
	// A path in the workspace as the next step sees it: relative, like the
	// path outputs (in the Docker action the workspace is
	// /github/workspace, which the host does not have).
	if ws := strings.TrimSuffix(a.ws, string(filepath.Separator)); ws != "" {
		why = strings.ReplaceAll(why, ws+string(filepath.Separator), "")
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
		// The Job line after the heading, as in a verdict's comment.
		body := md.String()
		if h, rest, ok := strings.Cut(body, "\n\n"); ok {
			body = h + "\n\n" + report.JobLine(github.KeyLabel(a.key)) + rest
		}
		if u := a.env.RunURL(); u != "" {
			body += "\n[The run](" + u + ") has the details.\n"
		}
		if _, err := a.client.UpsertKeyedComment(ctx, pr.Number, a.key, a.red.String(body)); err != nil {
			fmt.Fprintf(a.stderr, "mcp-eval: %s\n", a.red.String(err.Error()))
		}
	}
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
