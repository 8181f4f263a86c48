package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/cmdline"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/proc"
	"github.com/mcp-eval/mcp-eval/internal/redact"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// startServer runs --server-start through the system shell where there is
// one (serverStartCommand), waits until url answers (mcp.StartServer), and
// returns what stops it and names on its writer the processes it had left
// outside its process group.
func startServer(ctx context.Context, line, url string, timeout time.Duration, log, stderr io.Writer) (stop func(io.Writer), err error) {
	argv, err := serverStartCommand(line, os.Getenv)
	if err != nil {
		return nil, err
	}
	s, err := mcp.StartServer(ctx, argv, url, timeout, log, serverStartProgress(stderr, url))
	switch {
	case ctx.Err() != nil:
		return nil, errors.New("interrupted while starting the server")
	case err != nil:
		return nil, fmt.Errorf("--server-start: %v", err)
	}
	return func(w io.Writer) { warnLeftovers(w, "--server-start", s.Stop()) }, nil
}

// warnLeftovers names on w the processes a server started by flag left
// outside its process group, which were found by their tag and killed
// (README: "killed and named in a warning").
func warnLeftovers(w io.Writer, flag string, left []int) {
	if len(left) == 0 {
		return
	}
	pids := make([]string, len(left))
	for i, pid := range left {
		pids[i] = strconv.Itoa(pid)
		if c := proc.KilledCommand(pid); c != "" {
			// What it was, since the pid is gone: the warning goes to
			// stderr through the run's redactor, like every line.
			pids[i] += " (" + c + ")"
		}
	}
	fmt.Fprintf(w, "mcp-eval: warning: the %s server left %d process(es) outside its process group; killed pid %s\n",
		flag, len(left), strings.Join(pids, ", "))
}

// serverStartCommand is the argv --server-start runs for its command line:
// the system shell where there is one (so `npm start` or `PORT=8080
// ./server` work), else the line split in Go and run directly, which is
// what the Docker action's shell-less image needs for a static binary.
func serverStartCommand(line string, getenv func(string) string) ([]string, error) {
	if runtime.GOOS == "windows" {
		return []string{"cmd", "/C", line}, nil
	}
	if _, err := os.Stat("/bin/sh"); err == nil {
		return []string{"/bin/sh", "-c", line}, nil
	}
	argv, err := cmdline.Split(line)
	if err != nil {
		return nil, exitcode.Configf("--server-start: %v", err)
	}
	return argv, findProgram("--server-start", argv, getenv)
}

// serverCommand is --server-cmd split into words (internal/cmdline), its
// program checked to exist.
func serverCommand(line string, getenv func(string) string) ([]string, error) {
	argv, err := cmdline.Split(line)
	if err != nil {
		return nil, exitcode.Usagef("--server-cmd: %v", err)
	}
	return argv, findProgram("--server-cmd", argv, getenv)
}

// findProgram checks that a server command's program exists before it is
// started, so that a missing runtime is one clear line naming the input and
// the program rather than a failed connection (exit 3, DESIGN.md). input is
// the flag as the user gave it ("--server-cmd"); getenv tells whether this
// is the Docker action's container, whose image holds mcp-eval and nothing
// else.
func findProgram(input string, argv []string, getenv func(string) string) error {
	if _, err := exec.LookPath(argv[0]); err == nil {
		return nil
	}
	where := "on PATH"
	if strings.ContainsAny(argv[0], `/\`) {
		where = "as a file (or it is not executable)"
	}
	name := input
	if getenv("GITHUB_ACTIONS") == "true" {
		name = fmt.Sprintf("input %s (%s)", strings.TrimPrefix(input, "--"), input)
	}
	msg := fmt.Sprintf("%s: program %q not found %s", name, argv[0], where)
	if inDockerAction(getenv) {
		msg += "; the Docker action's image holds only mcp-eval (no shell, no node, no python): a static server binary in the workspace works, " +
			"anything needing a runtime runs in host mode (uses: mcp-eval/mcp-eval/setup@v1, then `mcp-eval action` in a run step; see the README)"
	}
	// Exit 3, as for any server that cannot be reached: nothing ran.
	return exitcode.New(exitcode.NoEval, msg)
}

// inDockerAction reports whether mcp-eval runs as the Docker action: the
// runner mounts the workspace at /github/workspace only there.
func inDockerAction(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true" && getenv("GITHUB_WORKSPACE") == "/github/workspace"
}

// connectError turns a failed mcp.Connect into exit 3 with one line: what
// is at the target is not something to evaluate, and no check list would
// say more (README §Exit codes). see, appended, points at server.log.
func connectError(ctx context.Context, cfg *config.Config, err error, red *redact.Redactor, see string) error {
	if ctx.Err() != nil {
		return exitcode.New(exitcode.NoEval, "interrupted")
	}
	// https:// to a plain-HTTP server: Go's TLS client names the symptom
	// ("server gave HTTP response to HTTPS client"); the fix is the scheme.
	if rest, ok := strings.CutPrefix(cfg.ServerURL, "https://"); ok && strings.Contains(err.Error(), "HTTP response to HTTPS client") {
		see = "; the server speaks plain HTTP: try --server-url http://" + rest + see
	}
	var ue *mcp.UnauthorizedError
	var nm *mcp.NotMCPError
	switch {
	case errors.Is(err, mcp.ErrAuthorization):
		// --oauth-*: no metadata, a mismatch, a refusal; one line that
		// says which (README §Reaching a protected server).
		return exitcode.New(exitcode.NoEval, red.String(err.Error()))
	case errors.As(err, &ue):
		return exitcode.New(exitcode.NoEval, red.String(ue.Error()))
	case errors.As(err, &nm):
		msg := nm.Error()
		if nm.Stderr != "" && cfg.ServerCmd != "" {
			url := nm.URL
			if url == "" {
				url = "<its URL>"
			}
			msg = fmt.Sprintf("no MCP server on stdio: the process printed %q on stderr — did you mean --server-start '%s' --server-url %s?",
				nm.Stderr, cfg.ServerCmd, url)
		}
		return exitcode.New(exitcode.NoEval, red.String(msg+see))
	}
	return exitcode.New(exitcode.NoEval, "could not reach the server: "+red.String(err.Error())+see)
}

// serverStartProgress reports on stderr while a --server-start server does
// not answer at url yet (README: progress every 5 s), with the URL the
// server printed when that is another one.
func serverStartProgress(stderr io.Writer, url string) mcp.StartWaiting {
	return func(d time.Duration, printed string) {
		msg := fmt.Sprintf("mcp-eval: waiting for the server to answer at %s… %d s", url, int(d.Round(time.Second).Seconds()))
		if printed != "" && !strings.Contains(printed, strings.TrimSuffix(url, "/")) {
			msg += fmt.Sprintf(" (it printed %q: is --server-url right?)", printed)
		}
		fmt.Fprintln(stderr, msg)
	}
}

// startProgress reports on stderr while a stdio server starts, so that a
// slow first build (`go run`, `npx`) is not mistaken for a hang.
func startProgress(stderr io.Writer) func(time.Duration) {
	return func(d time.Duration) {
		fmt.Fprintf(stderr, "mcp-eval: waiting for the server to start… %d s\n", int(d.Round(time.Second).Seconds()))
	}
}
