//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/report"
)

// TestSignalWritesPartialReport runs the mcp-eval binary on the example
// server, stops it with SIGINT or SIGTERM halfway, and wants the exit code
// a shell reports for that signal (130, 143), the partial report of what
// finished under --out (marked interrupted, its gate failed, the checks
// that had not finished skipped as such), and one line on stderr saying so.
func TestSignalWritesPartialReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mcp-eval and the example server")
	}
	dir := t.TempDir()
	bin, server := filepath.Join(dir, "mcp-eval"), filepath.Join(dir, "weather-server")
	for _, b := range [][]string{{bin, "."}, {server, "./examples/weather-server"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	// interrupt runs mcp-eval and sends sig after wait; it returns what the
	// run printed and the command.
	interrupt := func(t *testing.T, sig syscall.Signal, out string, wait time.Duration) (*exec.Cmd, string, string) {
		// Enough runs that the run is still going when the signal comes.
		cmd := exec.Command(bin, "conformance", "--server-cmd", server, "--runs", "1000", "--out", out)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
			t.Fatalf("ended before the signal: %v\n%s", cmd.ProcessState, stderr.String())
		case <-time.After(wait):
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("still running 60 s after the signal\n%s", stderr.String())
		}
		return cmd, stdout.String(), stderr.String()
	}
	for _, tt := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGINT, "SIGINT", 130}, {syscall.SIGTERM, "SIGTERM", 143}} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name)
			// The terminal shows nothing before the end, so the signal
			// comes a while after the start, later again on a machine so
			// slow that no check had finished.
			var cmd *exec.Cmd
			var stdout, stderr string
			for _, wait := range []time.Duration{1500 * time.Millisecond, 5 * time.Second, 15 * time.Second} {
				cmd, stdout, stderr = interrupt(t, tt.sig, out, wait)
				if !strings.Contains(stderr, "before any check finished") {
					break
				}
			}
			if got := cmd.ProcessState.ExitCode(); got != tt.code {
				t.Errorf("exit %d after %s, want %d\n%s\n%s", got, tt.name, tt.code, stdout, stderr)
			}
			if want := "mcp-eval: interrupted by " + tt.name + " after"; !strings.Contains(stderr, want) || !strings.Contains(stderr, "the partial report of what finished is in "+out) {
				t.Errorf("stderr does not say the report is partial and where:\n%s", stderr)
			}
			b, err := os.ReadFile(filepath.Join(out, "report.json"))
			if err != nil {
				t.Fatalf("no partial report: %v", err)
			}
			var r report.Report
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.Interrupted, tt.name+" after") || r.Gate == nil || r.Gate.Passed {
				t.Errorf("report: interrupted %q, gate %+v; want it marked and failed", r.Interrupted, r.Gate)
			}
			var finished, notFinished int
			for _, c := range r.Checks {
				switch {
				case c.Status == report.StatusSkip && strings.HasPrefix(c.Message, "not finished: interrupted by "+tt.name):
					notFinished++
				case c.Status == report.StatusError:
					t.Errorf("%s: error %q; an interrupted run is not finished, not an error", c.ID, c.Message)
				case c.Status != report.StatusSkip:
					finished++
				}
			}
			if finished == 0 || notFinished == 0 {
				t.Errorf("%d checks finished, %d not finished; want some of each", finished, notFinished)
			}
			if !strings.Contains(stdout, "interrupted by "+tt.name) {
				t.Errorf("the terminal report does not say it was interrupted:\n%s", stdout)
			}
		})
	}
}
