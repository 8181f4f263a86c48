package bench

// Own CPU on a big server: mcp-eval's conformance run against a
// correct fixture of N generated tools, next to a minimal client replaying
// the very same HTTP requests (recorded from that run: method, headers and
// body, in the order they arrived) with as many at once as mcp-eval's
// --concurrency (and, for scale, one at a time), reading each answer to its
// end and parsing nothing. The
// difference is mcp-eval's own work: parsing, judging, schema compiling,
// linting, the report. Both talk to a fixture served in this process, and
// alternate run by run so that a loaded machine slows both alike; the
// medians and their ratio are printed, and the test fails above
// maxReplayRatio at N = 1 000.
//
// It prints the CPU each side used too (mcp-eval's, the fixture's while it
// served mcp-eval, and the replay's: fixture and client), and the floor:
// (mcp-eval's CPU + the fixture's) / cores / the replay's wall time, the
// least ratio any run could reach on this machine, however well it
// overlapped its work. Where the replay keeps every core busy, the floor
// is 1 + mcp-eval's CPU over the fixture's: the ratio falls only with
// mcp-eval's CPU per answer.
//
//	MCP_EVAL_BENCH_REPLAY=1 go test ./bench -run TestReplayRatio -v
//	MCP_EVAL_BENCH_REPLAY=1 BENCH_REPLAY_N=1000,5000 BENCH_REPLAY_RUNS=9 go test ./bench -run TestReplayRatio -v
//
// BENCH_SCALE_BIN names a binary to measure instead of building the
// working tree, as for TestConformanceScale.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
)

// maxReplayRatio is the bound at N = 1 000 tools: mcp-eval's median wall
// time over the replay's.
const maxReplayRatio = 1.5

// recorded is one request as the fixture received it.
type recorded struct {
	method string
	header http.Header
	body   []byte
}

// recorder serves the fixture and keeps every request.
type recorder struct {
	h    http.Handler
	mu   sync.Mutex
	reqs []recorded
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.reqs = append(r.reqs, recorded{req.Method, req.Header.Clone(), b})
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	r.h.ServeHTTP(w, req)
}

func TestReplayRatio(t *testing.T) {
	if os.Getenv("MCP_EVAL_BENCH_REPLAY") != "1" {
		t.Skip("replay bench: set MCP_EVAL_BENCH_REPLAY=1 to run it")
	}
	if raceEnabled() {
		t.Skip("speed test: meaningless under -race")
	}
	sizes := envInts(t, "BENCH_REPLAY_N", []int{1000}, 1)
	runs := envInts(t, "BENCH_REPLAY_RUNS", []int{7}, 1)[0]
	bin := benchBinary(t)
	cores := runtime.NumCPU()
	t.Logf("%6s %10s %10s %8s %12s %8s %9s %12s %12s %10s %8s", "tools", "mcp-eval", "replay", "ratio", "replay, 1 at", "ratio", "requests", "mcp-eval CPU", "fixture CPU", "replay CPU", "floor")
	for _, n := range sizes {
		opts := mcptest.Options{ExtraTools: n, PageSize: 50}
		var evals, replays, serial, cpus, fixtureCPUs, replayCPUs, floors []float64
		requests := 0
		for range runs {
			rec := &recorder{h: mcptest.NewHandler(opts)}
			srv := httptest.NewServer(rec)
			// This process serves the fixture: its CPU while mcp-eval
			// runs is the fixture's (the test itself is idle).
			before := selfCPU(t)
			start := time.Now()
			cmd := exec.Command(bin, "conformance", "--server-url", srv.URL+"/mcp", "--quiet", "--out", t.TempDir())
			if out, err := cmd.CombinedOutput(); err != nil {
				if _, ok := err.(*exec.ExitError); !ok {
					t.Fatalf("mcp-eval: %v\n%s", err, out)
				}
			}
			evals = append(evals, time.Since(start).Seconds())
			fixture := selfCPU(t) - before
			fixtureCPUs = append(fixtureCPUs, fixture)
			var own float64
			if ps := cmd.ProcessState; ps != nil {
				own = (ps.UserTime() + ps.SystemTime()).Seconds()
				cpus = append(cpus, own)
			}
			srv.Close()
			requests = len(rec.reqs)

			srv = httptest.NewServer(mcptest.NewHandler(opts))
			before = selfCPU(t)
			r := replay(t, srv.URL+"/mcp", rec.reqs, 8).Seconds()
			replays = append(replays, r)
			replayCPUs = append(replayCPUs, selfCPU(t)-before)
			// The least ratio this machine allows: mcp-eval's run needs
			// its own CPU and the fixture's, on `cores` cores at best,
			// against the replay's wall time.
			floors = append(floors, (own+fixture)/float64(cores)/r)
			srv.Close()
			srv = httptest.NewServer(mcptest.NewHandler(opts))
			serial = append(serial, replay(t, srv.URL+"/mcp", rec.reqs, 1).Seconds())
			srv.Close()
		}
		e, r, r1 := median(evals), median(replays), median(serial)
		t.Logf("%6d %9.3fs %9.3fs %7.2fx %11.3fs %7.2fx %9d %11.3fs %11.3fs %9.3fs %7.2fx", n, e, r, e/r, r1, e/r1, requests, median(cpus), median(fixtureCPUs), median(replayCPUs), median(floors))
		if n == 1000 && e/r > maxReplayRatio {
			overLimit(t, "N=%d: mcp-eval %.3fs is %.2f× the replay's %.3fs, want ≤ %.1f× (no run can beat the floor of %.2f× here: mcp-eval's CPU and the fixture's on %d cores)",
				n, e, e/r, r, maxReplayRatio, median(floors), cores)
		}
	}
}

// replay sends reqs to url, workers at a time in their recorded order,
// reading every answer to its end, and returns the wall time. A
// subscriptions/listen stream stays open until the other requests are
// done, as mcp-eval keeps its one subscription open for the run.
func replay(t *testing.T, url string, reqs []recorded, workers int) time.Duration {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: 32}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	send := func(ctx context.Context, r recorded) {
		req, err := http.NewRequestWithContext(ctx, r.method, url, bytes.NewReader(r.body))
		if err != nil {
			return
		}
		req.Header = r.header.Clone()
		if resp, err := client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	streams, endStreams := context.WithCancel(context.Background())
	var open sync.WaitGroup
	next := make(chan recorded)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				send(ctx, r)
				cancel()
			}
		}()
	}
	for _, r := range reqs {
		if r.header.Get("Mcp-Method") == "subscriptions/listen" {
			open.Add(1)
			go func() { defer open.Done(); send(streams, r) }()
			continue
		}
		next <- r
	}
	close(next)
	wg.Wait()
	endStreams()
	open.Wait()
	return time.Since(start)
}

// selfCPU is this process's user and system CPU so far, in seconds.
func selfCPU(t *testing.T) float64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// envInts reads a comma-separated list of integers of at least least from
// the environment variable name, or returns def.
func envInts(t *testing.T, name string, def []int, least int) []int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < least {
			t.Fatalf("%s: %q is not a list of integers of at least %d", name, s, least)
		}
		out = append(out, n)
	}
	return out
}

// benchBinary is the mcp-eval binary to measure: BENCH_SCALE_BIN, else the
// working tree built as released (CGO_ENABLED=0, -trimpath, stripped).
func benchBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("BENCH_SCALE_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "mcp-eval")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "..")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
