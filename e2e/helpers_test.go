package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// notInstalled is the message of a skip (or, under CI=true, a failure) when
// the real servers are missing.
const notInstalled = "real servers not installed: run bash .ci/install-deps.sh and source .cache/deps/env.sh"

// deps are the real servers and tools that .ci/install-deps.sh installs and
// names in .cache/deps/env.sh.
type deps struct {
	Node             string // node >= 20, for the TS server and server-everything
	Node22           string // node 22, for the conformance suite
	ConformanceCLI   string // @modelcontextprotocol/conformance dist/index.js
	GoEverything     string // go-sdk conformance everything-server binary
	TSServer         string // testdata/servers/ts-v2/server.mjs
	ServerEverything string // @modelcontextprotocol/server-everything dist/index.js
}

func loadDeps() (deps, []string) {
	var d deps
	var missing []string
	for _, v := range []struct {
		name string
		dst  *string
	}{
		{"MCP_EVAL_NODE", &d.Node},
		{"MCP_EVAL_NODE22", &d.Node22},
		{"MCP_EVAL_CONFORMANCE_CLI", &d.ConformanceCLI},
		{"MCP_EVAL_GO_EVERYTHING", &d.GoEverything},
		{"MCP_EVAL_TS_SERVER", &d.TSServer},
		{"MCP_EVAL_SERVER_EVERYTHING", &d.ServerEverything},
	} {
		*v.dst = os.Getenv(v.name)
		if *v.dst == "" {
			missing = append(missing, v.name)
		}
	}
	return d, missing
}

// requireDeps returns the installed servers, or skips the test when they are
// not installed; under CI=true it fails instead, since CI must never skip
// silently.
func requireDeps(t *testing.T) deps {
	t.Helper()
	d, missing := loadDeps()
	if len(missing) > 0 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true; unset: %s)", notInstalled, strings.Join(missing, ", "))
		}
		t.Skip(notInstalled)
	}
	for name, p := range map[string]string{
		"MCP_EVAL_NODE": d.Node, "MCP_EVAL_NODE22": d.Node22, "MCP_EVAL_CONFORMANCE_CLI": d.ConformanceCLI,
		"MCP_EVAL_GO_EVERYTHING": d.GoEverything, "MCP_EVAL_TS_SERVER": d.TSServer,
		"MCP_EVAL_SERVER_EVERYTHING": d.ServerEverything,
	} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s: %v (re-run bash .ci/install-deps.sh)", name, p, err)
		}
	}
	if mcpEvalBin == "" {
		t.Fatal("the mcp-eval binary was not built (TestMain)")
	}
	return d
}

// requireInstalled returns the file the environment variable env names,
// one that .ci/install-deps.sh installs beside the core servers: it skips
// the test when env is unset, fails under CI=true (CI never skips
// silently), and fails when the file is gone.
func requireInstalled(t *testing.T, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true; unset: %s)", notInstalled, env)
		}
		t.Skip(notInstalled + " (" + env + ")")
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s=%s: %v (re-run bash .ci/install-deps.sh)", env, p, err)
	}
	return p
}

// shellQuote quotes s for mcp-eval's --server-cmd, which splits words the
// POSIX way.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func commandLine(args ...string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpServerSpec says how to start one HTTP server on a given port.
type httpServerSpec struct {
	Name string
	// Command returns argv and extra environment for the port.
	Command func(port int) (argv []string, env []string)
	// Path is the endpoint path ("/" or "/mcp").
	Path string
}

type httpServer struct {
	URL  string
	Port int
	Log  string // its stdout and stderr
}

// startHTTPServer starts spec in its own process group on a free loopback
// port, its output going to a file in t.TempDir(), and waits until the port
// accepts TCP connections. The whole group is stopped at cleanup. A server
// that exits before it listens (a port taken in the meantime) is retried on
// another port.
func startHTTPServer(t *testing.T, spec httpServerSpec) *httpServer {
	t.Helper()
	const attempts = 3
	var lastErr error
	for i := 0; i < attempts; i++ {
		port := freePort(t)
		s, err := tryStartHTTPServer(t, spec, port)
		if err == nil {
			return s
		}
		lastErr = err
		t.Logf("%s: attempt %d on port %d: %v", spec.Name, i+1, port, err)
	}
	t.Fatalf("%s did not start: %v", spec.Name, lastErr)
	return nil
}

func tryStartHTTPServer(t *testing.T, spec httpServerSpec, port int) (*httpServer, error) {
	argv, env := spec.Command(port)
	logPath := filepath.Join(t.TempDir(), spec.Name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = moduleRoot
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	ownProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(done)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			terminateGroup(cmd)
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				_ = killGroup(cmd)
				<-done
			}
			// Children that outlived the leader (none expected) go too.
			_ = killGroup(cmd)
		})
	}
	// Registered after t.TempDir, so it runs before the log's directory goes.
	t.Cleanup(stop)

	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	// A readiness wait (it ends when the port answers), long enough for a
	// loaded machine.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case <-done:
			return nil, fmt.Errorf("exited before listening; its output:\n%s", tail(logPath, 20))
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
		if err == nil {
			c.Close()
			// Another process may have taken the port between freePort and
			// the server's bind; then the server exits at once.
			select {
			case <-done:
				return nil, fmt.Errorf("exited right after the port answered (taken by another process?); its output:\n%s", tail(logPath, 20))
			case <-time.After(150 * time.Millisecond):
			}
			return &httpServer{URL: "http://" + addr + spec.Path, Port: port, Log: logPath}, nil
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("no listener on %s after 2 min; its output:\n%s", addr, tail(logPath, 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The three servers.

func goEverythingHTTP(d deps) httpServerSpec {
	return httpServerSpec{Name: "go-everything", Path: "/", Command: func(port int) ([]string, []string) {
		return []string{d.GoEverything, "-http", fmt.Sprintf("127.0.0.1:%d", port)}, nil
	}}
}

func tsServerHTTP(d deps) httpServerSpec {
	return httpServerSpec{Name: "ts-v2", Path: "/mcp", Command: func(port int) ([]string, []string) {
		return []string{d.Node, d.TSServer, "--port", strconv.Itoa(port)}, nil
	}}
}

func serverEverythingHTTP(d deps) httpServerSpec {
	return httpServerSpec{Name: "server-everything", Path: "/mcp", Command: func(port int) ([]string, []string) {
		return []string{d.Node, "--require", filepath.Join(moduleRoot, "testdata", "servers", "loopback.cjs"),
			d.ServerEverything, "streamableHttp"}, []string{"PORT=" + strconv.Itoa(port)}
	}}
}

// report is the part of mcp-eval's report.json (docs/report.schema.json)
// that these tests read.
type report struct {
	Server struct {
		Target            string   `json:"target"`
		Transport         string   `json:"transport"`
		Era               string   `json:"era"`
		ProtocolVersion   string   `json:"protocolVersion"`
		SupportedVersions []string `json:"supportedVersions"`
		Migration         []string `json:"migration"`
	} `json:"server"`
	Checks []check `json:"checks"`
}

type check struct {
	ID       string          `json:"id"`
	Group    string          `json:"group"`
	Level    string          `json:"level"`
	Hard     bool            `json:"hard"`
	Status   string          `json:"status"`
	Runs     int             `json:"runs"`
	Passed   int             `json:"passed"`
	Message  string          `json:"message"`
	Info     string          `json:"info"`
	Evidence json.RawMessage `json:"evidence"`
}

func (r *report) check(id string) (check, bool) {
	for _, c := range r.Checks {
		if c.ID == id {
			return c, true
		}
	}
	return check{}, false
}

// describe renders a check for a failure message: id, status, message and
// (shortened) evidence.
func (c check) describe() string {
	s := fmt.Sprintf("%s: %s (%d/%d runs passed, hard=%v): %s", c.ID, c.Status, c.Passed, c.Runs, c.Hard, c.Message)
	if c.Info != "" {
		s += " [info: " + c.Info + "]"
	}
	if len(c.Evidence) > 0 && string(c.Evidence) != "null" {
		s += "\n        evidence: " + clip.Bytes(string(c.Evidence), 1500)
	}
	return s
}

// wantFailed fails the test unless the checks that failed or errored are
// exactly want (sorted), the ones pinned for the server named by label; the
// message describes each check that fails anew and each pinned one that no
// longer fails.
func (r *report) wantFailed(t *testing.T, label string, want []string) {
	t.Helper()
	var failed []string
	for _, c := range r.Checks {
		if c.Status == "fail" || c.Status == "error" {
			failed = append(failed, c.ID)
		}
	}
	sort.Strings(failed)
	if slices.Equal(failed, want) {
		return
	}
	var detail []string
	for _, id := range failed {
		if !slices.Contains(want, id) {
			c, _ := r.check(id)
			detail = append(detail, "  new: "+c.describe())
		}
	}
	for _, id := range want {
		if !slices.Contains(failed, id) {
			c, _ := r.check(id)
			detail = append(detail, "  no longer fails: "+c.describe())
		}
	}
	t.Errorf("%s: failed checks %v, pinned %v\n%s", label, failed, want, strings.Join(detail, "\n"))
}

// evalRun is one run of mcp-eval.
type evalRun struct {
	Exit   int
	Report *report // nil when mcp-eval wrote none (exit 2 or 3)
	Wall   time.Duration
	Dir    string // --out, with stdout.txt and stderr.txt next to it
}

// runMCPEval runs `mcp-eval conformance ARGS --out DIR --format json` and
// returns its exit code and report.
func runMCPEval(t *testing.T, args ...string) evalRun {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "report")
	args = append([]string{"conformance"}, args...)
	args = append(args, "--out", out, "--format", "json")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	stdout, stderr := filepath.Join(dir, "stdout.txt"), filepath.Join(dir, "stderr.txt")
	start := time.Now()
	err := runLogged(ctx, exec.CommandContext(ctx, mcpEvalBin, args...), stdout, stderr)
	wall := time.Since(start)
	if ctx.Err() != nil {
		t.Fatalf("mcp-eval %s: timed out after %v; stderr:\n%s", strings.Join(args, " "), wall, tail(stderr, 20))
	}
	run := evalRun{Exit: exitCode(t, err), Wall: wall, Dir: out}
	if b, err := os.ReadFile(filepath.Join(out, "report.json")); err == nil {
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("mcp-eval wrote an unreadable report.json: %v", err)
		}
		run.Report = &r
	}
	return run
}

// mustReport fails the test when the run wrote no report.
func (r evalRun) mustReport(t *testing.T) *report {
	t.Helper()
	if r.Report == nil {
		t.Fatalf("mcp-eval exited %d without a report.json in %s; stderr:\n%s", r.Exit, r.Dir,
			tail(filepath.Join(filepath.Dir(r.Dir), "stderr.txt"), 20))
	}
	return r.Report
}

// runLogged runs cmd in its own process group with its output in files; the
// group is killed if ctx ends first.
func runLogged(ctx context.Context, cmd *exec.Cmd, stdoutPath, stderrPath string) error {
	so, err := os.Create(stdoutPath)
	if err != nil {
		return err
	}
	defer so.Close()
	se, err := os.Create(stderrPath)
	if err != nil {
		return err
	}
	defer se.Close()
	cmd.Stdout, cmd.Stderr = so, se
	cmd.Dir = moduleRoot
	ownProcessGroup(cmd)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		return ee.ExitCode()
	}
	t.Fatalf("running a command: %v", err)
	return -1
}

// suiteCheck is one entry of a conformance-suite checks.json.
type suiteCheck struct {
	Scenario     string          `json:"-"`
	ID           string          `json:"id"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Status       string          `json:"status"` // SUCCESS, FAILURE, WARNING, SKIPPED, INFO
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// suiteRun is one run of the official conformance suite.
type suiteRun struct {
	Exit   int
	Checks []suiteCheck
	Wall   time.Duration
}

var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$`)

// runSuite runs `conformance server --url URL --requirements 2026-07-28` and
// parses every checks.json it wrote. Its stdout (which ends in a "Total: N
// passed, N failed" line that CI's log reader would take for the test
// result) goes to a file and is never copied to the test output.
func runSuite(t *testing.T, d deps, url string) suiteRun {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stdout, stderr := filepath.Join(dir, "suite-stdout.txt"), filepath.Join(dir, "suite-stderr.txt")
	cmd := exec.CommandContext(ctx, d.Node22, d.ConformanceCLI, "server", "--url", url, "--requirements", "2026-07-28", "-o", out)
	start := time.Now()
	err := runLogged(ctx, cmd, stdout, stderr)
	run := suiteRun{Wall: time.Since(start)}
	if ctx.Err() != nil {
		t.Fatalf("conformance suite on %s: timed out after %v; stderr:\n%s", url, run.Wall, tail(stderr, 20))
	}
	run.Exit = exitCode(t, err)
	if run.Exit != 0 && run.Exit != 1 {
		t.Fatalf("conformance suite on %s exited %d; stderr:\n%s", url, run.Exit, tail(stderr, 20))
	}
	files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
	sort.Strings(files)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cs []suiteCheck
		if err := json.Unmarshal(b, &cs); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		scenario := filepath.Base(filepath.Dir(f))
		if m := scenarioDir.FindStringSubmatch(scenario); m != nil {
			scenario = m[1]
		}
		for i := range cs {
			cs[i].Scenario = scenario
		}
		run.Checks = append(run.Checks, cs...)
	}
	if len(run.Checks) == 0 {
		t.Fatalf("conformance suite on %s (exit %d) wrote no checks.json under %s; stderr:\n%s", url, run.Exit, out, tail(stderr, 20))
	}
	return run
}

// checksDoc is one row of docs/checks.md, the registry's generated table.
type checksDoc struct {
	ID, Level, Transport, Revision string
	Hard                           bool
}

// loadChecksDoc reads docs/checks.md: which checks exist, for which
// transport and which revision.
func loadChecksDoc(t *testing.T) map[string]checksDoc {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "checks.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Columns are found by their header names, and cells may be in
	// backticks, so that a reordered or restyled table still reads.
	cell := func(s string) string { return strings.Trim(strings.TrimSpace(s), "`") }
	out := map[string]checksDoc{}
	col := map[string]int{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "|") {
			continue
		}
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(col) == 0 {
			for i, c := range cells {
				col[cell(c)] = i
			}
			for _, name := range []string{"id", "level", "hard", "transport", "revision"} {
				if _, ok := col[name]; !ok {
					col = map[string]int{}
					break
				}
			}
			continue
		}
		get := func(name string) string {
			if i := col[name]; i < len(cells) {
				return cell(cells[i])
			}
			return ""
		}
		id := get("id")
		if !strings.Contains(id, "/") || strings.Contains(id, " ") {
			continue
		}
		out[id] = checksDoc{ID: id, Level: get("level"), Hard: get("hard") == "yes",
			Transport: get("transport"), Revision: get("revision")}
	}
	if len(out) < 40 {
		t.Fatalf("docs/checks.md: found only %d check rows; has the table's format changed?", len(out))
	}
	return out
}

// inapplicable reports whether a check cannot run on a transport at all.
func (d checksDoc) inapplicable(transport string) bool {
	return d.Transport != "any" && d.Transport != transport
}

func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return sanitize(strings.Join(lines, "\n"))
}

// totalLine is the suite's summary line; CI's log reader must never see it.
var totalLine = regexp.MustCompile(`(?m)^.*Total:\s*\d+\s+passed.*$`)

func sanitize(s string) string {
	return totalLine.ReplaceAllString(s, "(suite summary line removed)")
}
