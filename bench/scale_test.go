package bench

// The Layer 0 scale requirement ("Speed"): the cost of a
// conformance run grows linearly with the server. A correct fixture server
// with N generated tools (realistic descriptions and schemas, 50 per page,
// internal/mcptest bigTools) is judged by the mcp-eval binary at the
// defaults (5 runs, concurrency 8); the targets on the 2-core CI machine are
// N = 1 000 in ≤ 3 s and N = 5 000 in ≤ 15 s, ≤ 100 MB peak RSS.
//
//	MCP_EVAL_BENCH_SCALE=1 go test ./bench -run TestConformanceScale -v
//	MCP_EVAL_BENCH_SCALE=1 BENCH_SCALE_N=1000 go test ./bench -run TestConformanceScale -v
//	MCP_EVAL_BENCH_SCALE=1 BENCH_SCALE_N=20000 BENCH_SCALE_PAGE=50,1000 go test ./bench -run TestConformanceScale -v
//
// BENCH_SCALE_PAGE lists the page sizes (default 50; 1 000 is the Go SDK's
// default, where one page is a few hundred KB); each size is measured at
// every N, side by side. BENCH_SCALE_BIN names a binary to measure instead
// of building the working tree (another revision's, for a before/after).
//
// It builds the binary (CGO_ENABLED=0, as released), serves the fixture in
// this process over loopback HTTP, and measures the child's wall time and
// peak RSS (getrusage). It is opt-in: at N = 5 000 it takes longer than the
// rest of the package.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// scaleTargets are the bounds per N (wall time at the default 5 runs);
// sizes without a bound are measured and printed only.
var scaleTargets = map[int]time.Duration{1000: 3 * time.Second, 5000: 15 * time.Second}

const maxScaleRSS = 100 << 20

func TestConformanceScale(t *testing.T) {
	if os.Getenv("MCP_EVAL_BENCH_SCALE") != "1" {
		t.Skip("scale bench: set MCP_EVAL_BENCH_SCALE=1 to run it")
	}
	if raceEnabled() {
		t.Skip("speed test: meaningless under -race")
	}
	sizes := envInts(t, "BENCH_SCALE_N", []int{10, 100, 1000, 5000}, 0)
	pages := envInts(t, "BENCH_SCALE_PAGE", []int{50}, 1)
	bin := benchBinary(t)
	t.Logf("%6s %5s %10s %10s %s", "tools", "page", "wall", "peak RSS", "result")
	for _, n := range sizes {
		for _, page := range pages {
			scaleRun(t, bin, n, page)
		}
	}
}

// scaleRun measures one conformance run of the binary against the fixture
// with n extra tools, page to a page.
func scaleRun(t *testing.T, bin string, n, page int) {
	t.Helper()
	{
		srv := httptest.NewServer(mcptest.NewHandler(mcptest.Options{ExtraTools: n, PageSize: page}))
		out := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		cmd := exec.CommandContext(ctx, bin, "conformance", "--server-url", srv.URL+"/mcp", "--format", "json", "--out", out)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		// The longest silence on stderr, start to exit: the heartbeat
		// (internal/progress) keeps it near 4 s whatever the server's size.
		silence := &silenceMeter{}
		cmd.Stderr = silence
		start := time.Now()
		silence.mark(start)
		err := cmd.Start()
		var peak *peakRSS
		if err == nil {
			peak = watchRSS(cmd.Process.Pid)
			err = cmd.Wait()
		}
		wall := time.Since(start)
		silence.mark(time.Now())
		cancel()
		srv.Close()
		rss := peak.bytes(cmd.ProcessState)
		verdict := judgeScaleReport(stdout.String())
		if err != nil {
			verdict = fmt.Sprintf("exit %v; %s", err, verdict)
		}
		t.Logf("%6d %5d %9.2fs %8.1fMB longest stderr silence %.1fs %s", n, page, wall.Seconds(), float64(rss)/(1<<20), silence.longest.Seconds(), verdict)
		if err != nil || verdict != "ok" {
			t.Errorf("N=%d, page %d: a correct server must pass every hard check: %s", n, page, verdict)
		}
		if want, ok := scaleTargets[n]; ok && wall > want && page == 50 {
			overLimit(t, "N=%d: %.2fs, want ≤ %v", n, wall.Seconds(), want)
		}
		if rss > maxScaleRSS {
			t.Errorf("N=%d, page %d: peak RSS %.1f MB, want ≤ %d MB", n, page, float64(rss)/(1<<20), maxScaleRSS>>20)
		}
	}
}

// judgeScaleReport returns "ok" when the report lists no failed or errored
// hard check, else the ids that did.
func judgeScaleReport(s string) string {
	var r struct {
		Checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
			Hard   bool   `json:"hard"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return "no report: " + err.Error()
	}
	if len(r.Checks) == 0 {
		return "no checks in the report"
	}
	var bad []string
	for _, c := range r.Checks {
		if c.Hard && (c.Status == "fail" || c.Status == "error") {
			bad = append(bad, c.ID+" "+c.Status)
		}
	}
	if len(bad) > 0 {
		return strings.Join(bad, ", ")
	}
	return "ok"
}

// peakRSS follows a child's VmHWM in /proc (Linux). The child's rusage
// cannot be used here: a process started by one that holds a big fixture
// inherits the parent's resident size in ru_maxrss at the fork, so a run
// against 20 000 tools read as the test process's 250 MB, not its own.
type peakRSS struct {
	mu   sync.Mutex
	kib  int64
	done chan struct{}
}

// watchRSS samples pid's VmHWM every 20 ms until bytes is called.
func watchRSS(pid int) *peakRSS {
	p := &peakRSS{done: make(chan struct{})}
	path := fmt.Sprintf("/proc/%d/status", pid)
	go func() {
		for {
			if b, err := os.ReadFile(path); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
						var kib int64
						fmt.Sscanf(strings.TrimSpace(v), "%d", &kib)
						p.mu.Lock()
						p.kib = max(p.kib, kib)
						p.mu.Unlock()
					}
				}
			}
			select {
			case <-p.done:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return p
}

// bytes is the peak seen, or the rusage figure where /proc gave none.
func (p *peakRSS) bytes(ps *os.ProcessState) int64 {
	if p != nil {
		close(p.done)
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.kib > 0 {
			return p.kib << 10
		}
	}
	if ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			return int64(ru.Maxrss) << 10 // KiB on Linux
		}
	}
	return 0
}

// silenceMeter is a child's stderr that remembers the longest time between
// two writes (or the start and the first, the last and the exit).
type silenceMeter struct {
	mu      sync.Mutex
	last    time.Time
	longest time.Duration
}

func (s *silenceMeter) mark(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.last.IsZero() {
		s.longest = max(s.longest, now.Sub(s.last))
	}
	s.last = now
}

func (s *silenceMeter) Write(b []byte) (int, error) {
	s.mark(time.Now())
	return len(b), nil
}
