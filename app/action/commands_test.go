package action_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/action"
	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// runnerCommand is a workflow command as actions/runner reads it from a
// step's log: its name, what stands between the command key and the data
// (the name and properties), and the data.
type runnerCommand struct{ name, info, data string }

// runnerCommands reads a step's log (stdout and stderr in the order
// written: the runner hands both streams to one ActionCommandManager) as
// actions/runner does (src/Runner.Worker/ActionCommandManager.cs and
// src/Runner.Common/ActionCommand.cs): a line is a command when, leading
// space trimmed, it starts "::INFO::DATA" (TryParseV2), or when
// "##[INFO]DATA" appears anywhere in it (TryParse, the older form), the
// first word of INFO being a registered command. ::stop-commands::TOKEN
// pauses every command until a line ::TOKEN:: (the token is registered
// while paused). It returns the commands processed, not those ignored.
func runnerCommands(log string) []runnerCommand {
	registered := map[string]bool{}
	for _, c := range []string{"stop-commands", "add-mask", "error", "warning", "notice", "debug", "group", "endgroup",
		"echo", "save-state", "set-output", "set-env", "add-path", "add-matcher", "remove-matcher"} {
		registered[c] = true
	}
	parse := func(line string) (runnerCommand, bool) {
		if l := strings.TrimLeft(line, " \t"); strings.HasPrefix(l, "::") {
			if info, data, ok := strings.Cut(l[2:], "::"); ok {
				n, _, _ := strings.Cut(info, " ")
				if registered[strings.ToLower(n)] {
					return runnerCommand{strings.ToLower(n), info, data}, true
				}
			}
		}
		if _, rest, ok := strings.Cut(line, "##["); ok {
			if info, data, ok := strings.Cut(rest, "]"); ok {
				n, _, _ := strings.Cut(info, " ")
				if registered[strings.ToLower(n)] {
					return runnerCommand{strings.ToLower(n), info, data}, true
				}
			}
		}
		return runnerCommand{}, false
	}
	var out []runnerCommand
	token := ""
	for _, line := range strings.Split(log, "\n") {
		c, ok := parse(line)
		switch {
		case !ok:
		case token != "":
			if c.name == token {
				delete(registered, token)
				token = ""
			}
		case c.name == "stop-commands":
			token = strings.ToLower(c.data)
			registered[token] = true
		default:
			out = append(out, c)
		}
	}
	return out
}

// lockedLog is stdout and stderr in one buffer, in the order written.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestServerTextFormsNoCommand: a server whose tool names and tool results
// carry workflow commands (::error::, ##[error], ::add-mask::, a
// ::stop-commands:: of its own), or whose 404 page does, gets them printed
// in the log (the terminal report, the error the run ends with) yet the
// runner processes none of them: the Action pauses commands
// (github.StopCommands) while the run prints, and its own commands (the
// masks, the annotations) are processed.
func TestServerTextFormsNoCommand(t *testing.T) {
	forged := []string{"\n::error title=forged::forged-v2\n", "##[error]forged-v1", "\n::add-mask::forged-mask\n", "\n::stop-commands::forged-pause\n"}
	fixture := mcptest.Serve(t, mcptest.Options{Echo: &mcptest.Echo{Texts: forged}, Defects: mcptest.ParseDefects("caching/tools-list")})
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "##[error]forged-body ##[add-mask]forged-body-mask", http.StatusNotFound)
	}))
	t.Cleanup(page.Close)
	for _, tt := range []struct {
		name, url string
		code      int
		shows     []string // what the log must show, so that the test tests something
	}{
		{"the terminal report quotes the server", fixture.URL, 1, []string{"forged-v2", "forged-v1", "forged-mask"}},
		{"the error quotes its 404 page", page.URL + "/mcp", 3, []string{"forged-body"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const token = "ghs_0123456789abcdefPAUSED"
			vars, _, _ := scheduleStep(t.TempDir(), map[string]string{"INPUT_SERVER-URL": tt.url, "INPUT_GITHUB-TOKEN": token})
			var log lockedLog
			err := action.Command(t.Context(), nil, pipeline.Env{Getenv: apptest.Env(vars), Stdout: &log, Stderr: &log, Version: "dev"})
			if code := exitcode.Of(err); code != tt.code {
				t.Fatalf("exit %d, want %d: %v", code, tt.code, err)
			}
			if err.Error() != "" {
				action.PrintError(&log, err) // as the program ends
			}
			text := log.b.String()
			for _, f := range tt.shows {
				if !strings.Contains(text, f) {
					t.Fatalf("the log never shows %q, so this tests nothing:\n%s", f, text)
				}
			}
			var masks, errors int
			for _, c := range runnerCommands(text) {
				// mcp-eval's own annotations may quote the server in their
				// data; a command the server formed has it in its name or
				// starts its data.
				if strings.Contains(c.info, "forged") || strings.HasPrefix(c.data, "forged") {
					t.Errorf("the runner processes the server's %s command: %q", c.name, "::"+c.info+"::"+c.data)
				}
				switch c.name {
				case "add-mask":
					masks++
				case "error":
					errors++
				}
			}
			if masks == 0 || errors == 0 {
				t.Errorf("the runner processes %d masks and %d error annotations of mcp-eval's own; want both:\n%s", masks, errors, text)
			}
		})
	}
}
