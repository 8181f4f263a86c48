// Package review is a hostile review of mcp-eval made reproducible: the
// built mcp-eval binary against a few hundred hostile cases (HTTP servers,
// stdio servers, files, signals, secrets echoed back), each judged by the
// same four oracles, and a table of what held and what broke.
//
//	MCP_EVAL_BENCH_REVIEW=1 go test ./bench/review -run TestHostileReview -v -timeout 30m
//
// Env: MCP_EVAL_BIN (a built binary; default: built from this tree),
// MCP_EVAL_REVIEW_CASES (a regular expression: only the cases whose
// category/name matches), MCP_EVAL_REVIEW_PARALLEL (cases at once, default
// 2), MCP_EVAL_REVIEW_TIMEOUT (the --timeout given, default 2s),
// MCP_EVAL_REVIEW_MIN (fail below this many held). The table is printed
// and written to bench/out/review.md.
//
// The oracles, for every case:
//
//	(a) no planted secret (a --header value, $VAR headers, OPENAI_API_KEY,
//	    the OAuth client secret, a --secrets variable) in stdout, stderr, or
//	    any file the run wrote under its working, output, cache and
//	    temporary directories, in any of the spellings detect.go knows;
//	(b) no process left: mcp-eval runs in a process group of its own with a
//	    marker in its environment, which every process it starts inherits,
//	    and after it exits /proc is scanned for the marker;
//	(c) bounded time: the run ends within 3 × --timeout + 2 s (a case may
//	    name a larger bound, e.g. a server that is slow to start);
//	(d) a truthful end: an exit code from the case's set, no panic or
//	    goroutine dump, the words the case expects (what happened), none
//	    it forbids ("no MCP server" after an MCP server answered), and after
//	    a signal 128+signal with the report marked interrupted.
package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// markEnv carries a case's marker to mcp-eval and every process it starts.
const markEnv = "MCP_EVAL_REVIEW_MARK"

// sigAt is a signal sent to mcp-eval (its pid, as a terminal's or CI
// runner's would be) after a delay from the start.
type sigAt struct {
	sig   syscall.Signal
	after time.Duration
}

// spec is one case as run: the arguments, the environment and what the
// run must do besides the four oracles' common part.
type spec struct {
	args []string // after the binary: subcommand first
	env  []string
	// secretsFlag adds --secrets R27_SVC (the flag is refused by no
	// command, but kept off where the case tests parsing).
	sigs []sigAt
	// exits are the acceptable exit codes (default 1 or 3: a hostile
	// server's check failed or the server was unusable).
	exits []int
	// mention: each regular expression must match stdout+stderr.
	mention []string
	// forbid: none may match stdout+stderr.
	forbid []string
	// interrupted: report.json under --out exists and says interrupted.
	interrupted bool
	// noControl: no raw ESC, BEL, NUL or bidi override in stdout, stderr,
	// report.html or summary.md.
	noControl bool
	// bound overrides 3 × --timeout + 2 s.
	bound time.Duration
	// skip says the case cannot run here (and why); it counts as neither.
	skip string
}

// kase is a case: a category, a name, and how to set it up.
type kase struct {
	cat, name string
	setup     func(c *cc) spec
}

// cc is what a case's setup gets: its directory, and helpers that start
// servers closed when the case ends.
type cc struct {
	t       *testing.T
	dir     string
	out     string
	marker  string
	timeout time.Duration
	inputs  map[string]bool // files the case made (not scanned as output)
	cleanup []func()
}

// result is a case's outcome.
type result struct {
	k    kase
	held bool
	why  string
	wall time.Duration
	exit int
	skip string
	// timeOnly: the case broke on its time alone.
	timeOnly bool
}

var (
	reviewBin     string
	reviewHostile string
	reviewTimeout = 2 * time.Second
)

func TestHostileReview(t *testing.T) {
	if os.Getenv("MCP_EVAL_BENCH_REVIEW") == "" {
		t.Skip("a bench: MCP_EVAL_BENCH_REVIEW=1 go test ./bench/review -run TestHostileReview -v -timeout 30m")
	}
	if runtime.GOOS != "linux" {
		t.Skip("scans /proc")
	}
	if v := os.Getenv("MCP_EVAL_REVIEW_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("MCP_EVAL_REVIEW_TIMEOUT: %v", err)
		}
		reviewTimeout = d
	}
	build := t.TempDir()
	reviewBin = os.Getenv("MCP_EVAL_BIN")
	if reviewBin == "" {
		reviewBin = filepath.Join(build, "mcp-eval")
		gobuild(t, reviewBin, "../..")
	}
	reviewHostile = filepath.Join(build, "hostile")
	gobuild(t, reviewHostile, "../hostile")

	cases := allCases()
	if re := os.Getenv("MCP_EVAL_REVIEW_CASES"); re != "" {
		rx, err := regexp.Compile(re)
		if err != nil {
			t.Fatalf("MCP_EVAL_REVIEW_CASES: %v", err)
		}
		var keep []kase
		for _, k := range cases {
			if rx.MatchString(k.cat + "/" + k.name) {
				keep = append(keep, k)
			}
		}
		cases = keep
	}
	seen := map[string]bool{}
	for _, k := range cases {
		if seen[k.cat+"/"+k.name] {
			t.Fatalf("two cases named %s/%s", k.cat, k.name)
		}
		seen[k.cat+"/"+k.name] = true
	}
	par := 2
	if v := os.Getenv("MCP_EVAL_REVIEW_PARALLEL"); v != "" {
		par, _ = strconv.Atoi(v)
		par = max(par, 1)
	}
	results := make([]result, len(cases))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	start := time.Now()
	for i, k := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = runCase(t, i, k)
			r := results[i]
			state := "held"
			switch {
			case r.skip != "":
				state = "skip"
			case !r.held:
				state = "BROKE"
			}
			t.Logf("%-5s %-8s %-44s %5.1fs exit %3d %s", state, k.cat, k.name, r.wall.Seconds(), r.exit, r.why)
		}()
	}
	wg.Wait()
	// A case whose only break was its time is run again with nothing
	// beside it: the shared machine's load is not mcp-eval's. The row
	// keeps both times.
	for i, r := range results {
		if r.held || !r.timeOnly {
			continue
		}
		again := runCase(t, i, cases[i])
		again.why = fmt.Sprintf("%s (alone; beside another case: %.1f s)", again.why, r.wall.Seconds())
		t.Logf("again %-8s %-44s %5.1fs exit %3d held=%v %s", r.k.cat, r.k.name, again.wall.Seconds(), again.exit, again.held, again.why)
		results[i] = again
	}
	table, held, ran := render(results, time.Since(start))
	fmt.Println(table)
	if err := os.MkdirAll("../out", 0o755); err == nil {
		_ = os.WriteFile("../out/review.md", []byte(table), 0o644)
	}
	if v := os.Getenv("MCP_EVAL_REVIEW_MIN"); v != "" {
		if n, _ := strconv.Atoi(v); held < n {
			t.Errorf("held in %d of %d cases, below MCP_EVAL_REVIEW_MIN=%d", held, ran, n)
		}
	}
}

func gobuild(t *testing.T, out, pkg string) {
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
}

// render is the report: totals by category, then one row per case.
func render(rs []result, took time.Duration) (string, int, int) {
	var b strings.Builder
	type tally struct{ held, ran, skip int }
	cats := map[string]*tally{}
	var order []string
	held, ran := 0, 0
	for _, r := range rs {
		c := cats[r.k.cat]
		if c == nil {
			c = &tally{}
			cats[r.k.cat] = c
			order = append(order, r.k.cat)
		}
		if r.skip != "" {
			c.skip++
			continue
		}
		c.ran++
		ran++
		if r.held {
			c.held++
			held++
		}
	}
	fmt.Fprintf(&b, "# Hostile review: held in %d of %d cases (%s, --timeout %s)\n\n", held, ran, took.Round(time.Second), reviewTimeout)
	b.WriteString("| category | held | cases | skipped |\n|---|---|---|---|\n")
	for _, c := range order {
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", c, cats[c].held, cats[c].ran, cats[c].skip)
	}
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | |\n\n", held, ran)
	b.WriteString("| case | category | verdict | wall | exit | why |\n|---|---|---|---|---|---|\n")
	sorted := append([]result(nil), rs...)
	sort.SliceStable(sorted, func(i, j int) bool { return !sorted[i].held && sorted[j].held })
	for _, r := range sorted {
		v := "held"
		switch {
		case r.skip != "":
			v, r.why = "skipped", r.skip
		case !r.held:
			v = "**broke**"
		}
		why := strings.ReplaceAll(r.why, "|", `\|`)
		fmt.Fprintf(&b, "| %s | %s | %s | %.1f s | %d | %s |\n", r.k.name, r.k.cat, v, r.wall.Seconds(), r.exit, why)
	}
	return b.String(), held, ran
}

// runCase sets a case up, runs mcp-eval and judges it.
func runCase(t *testing.T, i int, k kase) (res result) {
	res.k = k
	dir, err := os.MkdirTemp("", "mcp-eval-review-")
	if err != nil {
		res.why = err.Error()
		return res
	}
	defer os.RemoveAll(dir)
	c := &cc{t: t, dir: dir, out: filepath.Join(dir, "out"), timeout: reviewTimeout, inputs: map[string]bool{},
		marker: fmt.Sprintf("r27mark%d-%d", i, rand.Int64())}
	for _, d := range []string{"tmp", "home", "cache"} {
		os.MkdirAll(filepath.Join(dir, d), 0o755)
	}
	defer func() {
		for i := len(c.cleanup) - 1; i >= 0; i-- {
			c.cleanup[i]()
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			res.held, res.why = false, fmt.Sprintf("review setup panicked: %v", p)
		}
	}()
	s := k.setup(c)
	if s.skip != "" {
		res.skip = s.skip
		return res
	}
	if s.exits == nil {
		s.exits = []int{1, 3}
	}
	bound := 3*c.timeout + 2*time.Second
	if s.bound > 0 {
		bound = s.bound
	}
	args := append([]string(nil), s.args...)
	args = append(args, "--color", "never")
	if !hasFlag(args, "--out") {
		args = append(args, "--out", c.out)
	}
	if !hasFlag(args, "--timeout") {
		args = append(args, "--timeout", c.timeout.String())
	}
	if args[0] == "run" && !hasFlag(args, "--cache-dir") {
		args = append(args, "--cache-dir", filepath.Join(dir, "cache"))
	}
	cmd := exec.Command(reviewBin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + filepath.Join(dir, "tmp"),
		"LANG=C.UTF-8",
		markEnv + "=" + c.marker,
		"OPENAI_API_KEY=" + apiKey,
		"R27_BEARER=" + bearerSecret,
		"R27_CLIENT_SECRET=" + clientSecret,
		"R27_SVC=" + svcSecret,
	}, s.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &stdout}, &limited{b: &stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	begin := time.Now()
	if err := cmd.Start(); err != nil {
		res.why = "start: " + err.Error()
		return res
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, sg := range s.sigs {
		go func() {
			select {
			case <-time.After(sg.after):
				cmd.Process.Signal(sg.sig)
			case <-ctx.Done():
			case <-done:
			}
		}()
	}
	var why []string
	hard := bound + 10*time.Second
	select {
	case <-done:
	case <-time.After(hard):
		// SIGTERM first, as a CI runner's cancel does: mcp-eval may still
		// stop its servers; SIGKILL to its group 5 s later.
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
			why = append(why, fmt.Sprintf("still running %s after its start: ended by SIGTERM", hard.Round(time.Second)))
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			why = append(why, fmt.Sprintf("still running %s after its start, and 5 s after SIGTERM: killed", hard.Round(time.Second)))
		}
	}
	res.wall = time.Since(begin)
	cancel()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	res.exit = ws.ExitStatus()
	if ws.Signaled() {
		res.exit = 128 + int(ws.Signal())
	}
	if res.wall > bound && len(why) == 0 {
		why = append(why, fmt.Sprintf("took %.1f s (bound %.0f s)", res.wall.Seconds(), bound.Seconds()))
	}

	// (b) processes left: what carries the marker, after a short settle
	// (a process killed just before mcp-eval exited may still be dying).
	time.Sleep(300 * time.Millisecond)
	if left := leftovers(c.marker); len(left) > 0 {
		why = append(why, fmt.Sprintf("%d process(es) left: %s", len(left), strings.Join(left, "; ")))
	}

	// (d) a truthful end.
	both := stdout.String() + "\n" + stderr.String()
	if !contains(s.exits, res.exit) {
		why = append(why, fmt.Sprintf("exit %d, want %v: %s", res.exit, s.exits, lastLine(stderr.String())))
	}
	for _, p := range []string{"panic:", "goroutine [0-9]+ \\[", "SIGQUIT: quit"} {
		if regexp.MustCompile(p).MatchString(both) {
			why = append(why, "a panic or goroutine dump: "+firstMatchLine(both, p))
		}
	}
	for _, m := range s.mention {
		if !regexp.MustCompile(m).MatchString(both) {
			why = append(why, fmt.Sprintf("does not say /%s/: %s", m, lastLine(both)))
		}
	}
	for _, f := range s.forbid {
		if regexp.MustCompile(f).MatchString(both) {
			why = append(why, "says "+firstMatchLine(both, f))
		}
	}
	if s.interrupted {
		why = append(why, interrupted(c.out)...)
	}

	// (a) secrets, and raw control characters where the case asks.
	sinks := map[string][]byte{"stdout": stdout.Bytes(), "stderr": stderr.Bytes()}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || c.inputs[p] || !d.Type().IsRegular() {
			return nil
		}
		b, err := readUpTo(p, 64<<20)
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			sinks[rel] = b
		}
		return nil
	})
	names := make([]string, 0, len(sinks))
	for n := range sinks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, l := range leaks(sinks[n]) {
			why = append(why, fmt.Sprintf("secret in %s: %s", n, l))
		}
		if s.noControl && (n == "stdout" || n == "stderr" || strings.HasSuffix(n, "report.html") || strings.HasSuffix(n, "summary.md")) {
			if cc := rawControl(sinks[n]); cc != "" {
				why = append(why, fmt.Sprintf("raw %s in %s", cc, n))
			}
		}
	}
	res.held = len(why) == 0
	res.timeOnly = len(why) == 1 && strings.HasPrefix(why[0], "took ")
	res.why = strings.Join(why, "; ")
	if res.held {
		res.why = lastLine(stderr.String())
	}
	if len(res.why) > 400 {
		res.why = res.why[:400] + "…"
	}
	return res
}

// limited keeps the first 64 MiB of a stream (a flood is a finding of its
// own: the case's bound and the review's memory stay sane).
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	if room := 64<<20 - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func readUpTo(p string, n int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, 0, 1<<16)
	buf := bytes.NewBuffer(b)
	_, err = buf.ReadFrom(&limitReader{f: f, n: n})
	return buf.Bytes(), err
}

type limitReader struct {
	f *os.File
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errors.New("EOF")
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.f.Read(p)
	l.n -= int64(n)
	return n, err
}

// leftovers lists the processes whose environment or command line carries
// marker, and kills them (each by its pid: they are this case's).
func leftovers(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var left []string
	m := []byte(marker)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, _ := os.ReadFile("/proc/" + e.Name() + "/environ")
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !bytes.Contains(env, m) && !bytes.Contains(cmdline, m) {
			continue
		}
		name := strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		left = append(left, fmt.Sprintf("%d %s", pid, name))
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return left
}

// interrupted checks the partial report of a signalled run.
func interrupted(out string) []string {
	b, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		return []string{"no report.json after the signal"}
	}
	if !regexp.MustCompile(`"interrupted":\s*"[^"]+"`).Match(b) {
		return []string{"report.json not marked interrupted"}
	}
	return nil
}

// rawControl names a raw terminal control or bidi override in b.
func rawControl(b []byte) string {
	for _, c := range []struct{ s, name string }{{"\x1b", "ESC"}, {"\x07", "BEL"}, {"\x00", "NUL"}, {"\u202e", "U+202E"}, {"\u2066", "U+2066"}, {"\x9b", "CSI"}} {
		if bytes.Contains(b, []byte(c.s)) {
			return c.name
		}
	}
	return ""
}

func hasFlag(args []string, f string) bool {
	for _, a := range args {
		if a == f || strings.HasPrefix(a, f+"=") {
			return true
		}
	}
	return false
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

func firstMatchLine(s, re string) string {
	for _, l := range strings.Split(s, "\n") {
		if regexp.MustCompile(re).MatchString(l) {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return strconv.Quote(l)
		}
	}
	return ""
}

// TestCases checks the review's case list without running it: at least
// the 217 cases of the review it repeats, names unique, every category of
// the hostile review present.
func TestCases(t *testing.T) {
	cases := allCases()
	seen := map[string]bool{}
	cats := map[string]int{}
	for _, k := range cases {
		if seen[k.cat+"/"+k.name] {
			t.Errorf("two cases named %s/%s", k.cat, k.name)
		}
		seen[k.cat+"/"+k.name] = true
		cats[k.cat]++
	}
	if len(cases) < 217 {
		t.Errorf("%d cases, want at least 217", len(cases))
	}
	for _, c := range []string{"http", "stdio", "file", "signal", "secret"} {
		if cats[c] == 0 {
			t.Errorf("no %s case", c)
		}
	}
	t.Logf("%d cases: %v", len(cases), cats)
}
