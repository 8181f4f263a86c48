package pipeline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/report"
)

// Render writes the outputs of a run, r already masked (Mask): the files
// under --out (writeOutputs) and the report on stdout as --format says.
func Render(cfg *config.Config, r *report.Report, red *redact.Redactor, env Env) error {
	if err := writeOutputs(cfg, r, red); err != nil {
		return err
	}
	return writeStdout(cfg, r, red, env.Stdout, env.Getenv)
}

// writeStdout writes the report to stdout as --format says, masked.
func writeStdout(cfg *config.Config, r *report.Report, red *redact.Redactor, stdout io.Writer, getenv func(string) string) error {
	var out bytes.Buffer
	var err error
	mask := red.Bytes
	if cfg.Format == config.FormatJSON {
		err, mask = report.WriteJSON(&out, r), red.JSON
	} else {
		err = report.WriteText(&out, r, report.TextOptions{Color: useColor(cfg.Color, stdout, getenv), Verbose: cfg.Verbose, Quiet: cfg.Quiet})
	}
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	_, err = stdout.Write(mask(out.Bytes()))
	return err
}

// Mask returns a copy of r with every secret masked in every string,
// the raw JSON from the server (serverInfo, capabilities, evidence)
// included, however its strings are escaped: the report goes through JSON
// and Redactor.JSON, which decodes each escaped string before masking it
// (\u0074ok is no spelling a byte replace would know). Renderers then work
// from clean data, and so does the caller (the Action's comment).
func Mask(r *report.Report, red *redact.Redactor) *report.Report {
	if red.Empty() {
		return r
	}
	if b, err := json.Marshal(r); err == nil {
		var c report.Report
		if json.Unmarshal(red.JSON(b), &c) == nil {
			return &c
		}
	}
	// Unreachable for a report this program built; mask the raw JSON alone.
	c := *r
	c.Server.ServerInfo = red.JSON(r.Server.ServerInfo)
	c.Server.Capabilities = red.JSON(r.Server.Capabilities)
	c.Checks = slices.Clone(r.Checks)
	for i := range c.Checks {
		c.Checks[i].Evidence = red.JSON(c.Checks[i].Evidence)
	}
	return &c
}

// writeOutputs writes report.json, summary.md, junit.xml, results.sarif
// and report.html under --out, with every secret
// masked in each rendered file in every spelling (red.JSON for the JSON
// files, red.Bytes for the others); r is already masked (Mask).
func writeOutputs(cfg *config.Config, r *report.Report, red *redact.Redactor) error {
	type outputFile struct {
		name   string
		render func(io.Writer, *report.Report) error
		mask   func([]byte) []byte
	}
	// report.json goes straight to its file, masked piece by piece: on a
	// big server it is tens of MB, which a buffer and its masked copy
	// would hold twice more.
	if err := writeReportJSON(filepath.Join(cfg.Out, "report.json"), r, red); err != nil {
		return err
	}
	files := []outputFile{
		{"summary.md", report.WriteMarkdown, red.Bytes},
		{"junit.xml", report.WriteJUnit, red.Bytes},
		{"results.sarif", report.WriteSARIF, red.JSON},
	}
	// One page for people who would rather look than read, for every run,
	// with the transcripts the model layers wrote (already masked).
	files = append(files, outputFile{"report.html", func(w io.Writer, r *report.Report) error {
		return report.WriteHTML(w, r, report.HTMLOptions{Transcripts: readTranscripts(cfg.Out, r)})
	}, red.Bytes})
	// The files are rendered side by side: each reads r and writes its own
	// buffer, and at the end of a run nothing else is working (the server
	// is idle), so on two cores this halves the last step's wall time.
	bufs := make([][]byte, len(files))
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			var buf bytes.Buffer
			if errs[i] = f.render(&buf, r); errs[i] == nil {
				bufs[i] = f.mask(buf.Bytes())
			}
		})
	}
	wg.Wait()
	for i, f := range files {
		if errs[i] != nil {
			return fmt.Errorf("render %s: %w", f.name, errs[i])
		}
		if err := os.WriteFile(filepath.Join(cfg.Out, f.name), bufs[i], 0o644); err != nil {
			return exitcode.Configf("--out: %v", err)
		}
	}
	return nil
}

// writeReportJSON writes report.json at path through a buffer, each
// piece masked (report.WriteJSONMasked).
func writeReportJSON(path string, r *report.Report, red *redact.Redactor) error {
	f, err := os.Create(path)
	if err != nil {
		return exitcode.Configf("--out: %v", err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = report.WriteJSONMasked(bw, r, red.JSON)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = exitcode.Configf("--out: %v", cerr)
	}
	if err != nil {
		return fmt.Errorf("render report.json: %w", err)
	}
	return nil
}

// readTranscripts reads the transcript files the cases list, for
// report.html; one that cannot be read is left out (the page then links
// to it instead).
func readTranscripts(out string, r *report.Report) map[string]string {
	m := map[string]string{}
	for _, c := range r.Cases {
		for _, rel := range c.Transcripts {
			if b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(rel))); err == nil {
				m[rel] = string(b)
			}
		}
	}
	return m
}

// useColor decides on ANSI colour: never when NO_COLOR is set
// (no-color.org) or stdout is not a terminal, unless --color always.
func useColor(mode string, stdout io.Writer, getenv func(string) string) bool {
	switch mode {
	case "always":
		return true
	case "never":
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(stdout)
}

// IsTerminal reports whether w is a terminal, looking through redacting
// writers.
func IsTerminal(w io.Writer) bool {
	f, ok := fileOf(w)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// fileOf returns the file behind w, looking through redacting writers, so
// that a masked stderr still says whether it is a terminal.
func fileOf(w io.Writer) (*os.File, bool) {
	for {
		switch x := w.(type) {
		case *os.File:
			return x, true
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil, false
		}
	}
}
