package resilience

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// Defaults of ProbeOptions.
const (
	// DefaultMaxRequestBytes is the size of the oversized request.
	DefaultMaxRequestBytes = 4 << 20
	// DefaultBurstSize is how many concurrent tools/list the burst sends.
	DefaultBurstSize = 50
	// DefaultProbeRuns is how many times each probe runs.
	DefaultProbeRuns = 5
)

// maxProbedTools bounds how many safe tools a probe calls.
const maxProbedTools = 10

// ProbeOptions configure Probe.
type ProbeOptions struct {
	// Runs is how many times each probe runs (default DefaultProbeRuns); a
	// probe passes only if every run passes.
	Runs int
	// SafeTools may be called by probes besides the tools the server marks
	// readOnlyHint.
	SafeTools []string
	// MaxRequestBytes is the size of the oversized request, in bytes of
	// JSON (default DefaultMaxRequestBytes).
	MaxRequestBytes int64
	// BurstSize is how many concurrent tools/list the burst sends, each on
	// its own connection (default DefaultBurstSize).
	BurstSize int
	// Timeout bounds each probe request; a request that gets no answer in
	// time counts as a hang. Zero means the client's per-request timeout,
	// which also caps requests sent through the client.
	Timeout time.Duration
}

func (o ProbeOptions) withDefaults(c *mcp.Client) ProbeOptions {
	if o.Runs <= 0 {
		o.Runs = DefaultProbeRuns
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.BurstSize <= 0 {
		o.BurstSize = DefaultBurstSize
	}
	if o.Timeout <= 0 {
		o.Timeout = c.Timeout()
	}
	return o
}

// probeDef is one robustness probe: a check.Def whose environment is the
// Probe call's prober. Its id is "resilience/" + its name.
type probeDef = check.Def[*prober]

func specRef(path string) string {
	return "https://modelcontextprotocol.io/specification/2026-07-28/" + path
}

// Probe runs the deterministic robustness probes against the server behind
// c, one after another (each probe is a deliberate stress, so that the one
// that broke the server is known), each o.Runs times, and returns one check
// per probe plus resilience/server-survives, sorted by id.
//
// After every run it checks that the server still answers tools/list. A
// stdio server whose process exited is detected, reported with its exit
// status and the tail of its stderr, and restarted for the remaining
// probes, as the spec tells a client to do after a crash; restarted
// processes are closed before Probe returns, and c is left as it was. An
// HTTP server that stops answering cannot be restarted: the probes after
// it are skipped with the reason.
//
// Probes call tools only when the server marks them readOnlyHint or
// o.SafeTools lists them.
func Probe(ctx context.Context, c *mcp.Client, o ProbeOptions) []report.Check {
	o = o.withDefaults(c)
	p := &prober{o: o, c: c, kind: c.Target().Kind(), safe: map[string]bool{}}
	for _, n := range o.SafeTools {
		p.safe[n] = true
	}
	defer p.close()
	defs := probeDefs()
	checks := make([]report.Check, 0, len(defs)+1)
	if err := p.alive(ctx); err != nil {
		// Liveness is how every probe is judged; without it none can be.
		msg := "the server did not answer tools/list before any probe, so no probe can tell whether it survived: " + describeErr(err)
		for _, d := range append(defs, survivesDef) {
			checks = append(checks, check.Fold(d, report.LayerResilience, []check.Outcome{{Status: report.StatusError, Message: msg}}))
		}
		return sortChecks(checks)
	}
	lctx, cancel := context.WithTimeout(ctx, check.RunTimeout(o.Timeout))
	p.tools, p.toolsErr = c.ListTools(lctx)
	cancel()
	// One probe after another, each run followed by the liveness check:
	// each probe is a deliberate stress, so that the one that broke the
	// server is known.
	r := &check.Runner[*prober]{Env: p, Runs: o.Runs, Concurrency: 1, Timeout: o.Timeout,
		Skip: func(d *probeDef) string {
			if d.Transport != "" && d.Transport != p.kind {
				return transportSkip[d.ID]
			}
			return ""
		},
		Ready: p.ensure,
		Then:  p.check,
	}
	for i, outs := range r.Run(ctx, defs) {
		checks = append(checks, check.Fold(defs[i], report.LayerResilience, outs))
	}
	checks = append(checks, p.survives())
	return sortChecks(checks)
}

func sortChecks(cs []report.Check) []report.Check {
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	return cs
}

// prober is the state of one Probe call.
type prober struct {
	o    ProbeOptions
	kind string
	// c is the client in use; after a stdio restart it is a new client.
	c        *mcp.Client
	owned    []*mcp.Client
	safe     map[string]bool
	tools    []mcp.Tool
	toolsErr error

	// down names the probe run after which the server stopped answering
	// for good (HTTP, or a stdio process that hangs or cannot restart).
	down string
	// liveness counts the liveness checks; incidents are those that failed.
	liveness  int
	incidents []incident

	// Set by the prepare steps.
	badArgs []toolArgs
	stream  *streamTarget
}

// incident is one liveness check that failed: evidence of
// resilience/server-survives.
type incident struct {
	After     string `json:"after"`
	Run       int    `json:"run"`
	Error     string `json:"error"`
	Exit      string `json:"exit,omitempty"`
	Stderr    string `json:"stderrTail,omitempty"`
	Restarted bool   `json:"restarted,omitempty"`
	said      string // Error in words, for the message
}

func (p *prober) close() {
	for _, c := range p.owned {
		c.Close()
	}
}

// do sends a call through cl under the probe timeout.
func (p *prober) do(ctx context.Context, cl *mcp.Client, call *mcp.Call) (*mcp.Exchange, error) {
	ctx, cancel := mcp.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	return cl.Do(ctx, call)
}

// alive reports whether the server answers tools/list with a JSON-RPC
// message and no server error. Any JSON-RPC answer proves it alive, even an
// error (a server without tools answers -32601). A transport error other
// than a timeout is retried once, so that a pooled connection the server
// closed while idle is not taken for a dead server.
func (p *prober) alive(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return err
			case <-time.After(200 * time.Millisecond):
			}
		}
		call := p.c.NewCall("tools/list", nil)
		var x *mcp.Exchange
		x, err = p.do(ctx, p.c, call)
		switch {
		case err != nil:
			var te *mcp.TimeoutError
			if errors.As(err, &te) || errors.Is(err, mcp.ErrClosed) {
				return err
			}
			continue
		case x.Response == nil:
			return fmt.Errorf("tools/list got no JSON-RPC answer (HTTP %d)", x.Status)
		case x.Status >= 500:
			return fmt.Errorf("tools/list got HTTP %d", x.Status)
		}
		return nil
	}
	return err
}

// stdio returns the stdio transport in use, if any.
func (p *prober) stdio() (*mcp.Stdio, bool) {
	s, ok := p.c.Transport().(*mcp.Stdio)
	return s, ok
}

// ensure makes the server ready for the next run: it restarts a stdio
// server whose process exited (basic/transports/stdio.mdx §Crash: the
// client SHOULD restart the server), and reports why not when the server
// is down for good.
func (p *prober) ensure(ctx context.Context) string {
	if p.down != "" {
		return "not run: the server stopped answering after " + p.down
	}
	st, ok := p.stdio()
	if !ok {
		return ""
	}
	if exited, _ := st.Exited(); !exited {
		return ""
	}
	// A restart starts up again: the start-up budget as at the first start.
	opts := mcp.Options{Timeout: p.c.Timeout(), StartTimeout: p.c.StartTimeout(), NoFallback: true}
	if p.c.Era() == mcp.EraLegacy {
		opts = mcp.Options{Timeout: p.c.Timeout(), StartTimeout: p.c.StartTimeout(), Version: mcp.LegacyVersion}
	}
	nc, err := mcp.Connect(ctx, p.c.Target(), opts)
	if err != nil {
		p.down = "the process exited and a restart failed (" + err.Error() + ")"
		return "not run: the server process exited and could not be restarted: " + err.Error()
	}
	p.c = nc
	p.owned = append(p.owned, nc)
	if n := len(p.incidents); n > 0 {
		p.incidents[n-1].Restarted = true
	}
	return ""
}

// transportSkip says why a probe does not apply to the other transport.
var transportSkip = map[string]string{
	"resilience/burst":      "stdio: one process serves one client, so there is no balancer to spread a burst over replicas",
	"resilience/cut-stream": "stdio: answers are lines on a pipe, not response streams that a client can cut",
}

// check is the liveness check after every run: the server must still
// answer tools/list. A failure fails the run and is kept as an incident.
func (p *prober) check(ctx context.Context, d *probeDef, run int, r *check.Outcome) {
	if r.Status == report.StatusSkip {
		return
	}
	run++ // the evidence counts runs from 1
	p.liveness++
	err := p.alive(ctx)
	if err == nil {
		return
	}
	inc := incident{After: d.ID, Run: run, Error: err.Error(), said: describeErr(err)}
	exited := false
	var te *mcp.TimeoutError
	if st, ok := p.stdio(); ok && !errors.As(err, &te) {
		// The process may need a moment to be reaped after closing stdout.
		deadline := time.Now().Add(2 * time.Second)
		for {
			var exitErr error
			if exited, exitErr = st.Exited(); exited {
				inc.Exit = exitText(exitErr)
				inc.Stderr = clip.Bytes(strings.TrimSpace(st.StderrTail()), 1000)
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	p.incidents = append(p.incidents, inc)
	if !exited {
		p.down = fmt.Sprintf("%s (run %d)", d.ID, run)
	}
	what := "the server stopped answering tools/list (" + describeErr(err) + ")"
	if exited {
		what = "the server process exited (" + inc.Exit + ")"
	}
	if r.Status == report.StatusPass {
		r.Status = report.StatusFail
		r.Message = "after this probe " + what
		r.Evidence = inc
	} else if !strings.Contains(r.Message, "stopped answering") && !strings.Contains(r.Message, "process exited") {
		r.Message += "; afterwards " + what
	}
}

// describeErr says in words what a transport error means for a probe: a
// timeout is a hang, a closed connection or an exited process a dead
// server. The raw error stays in the evidence.
func describeErr(err error) string {
	var te *mcp.TimeoutError
	switch {
	case errors.As(err, &te):
		return fmt.Sprintf("no answer within %v", te.After.Round(time.Millisecond))
	case errors.As(err, new(*mcp.ExitError)):
		return "the server process exited (" + exitText(err) + ")"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return "the connection was closed without an answer"
	}
	return err.Error()
}

// exitText returns why a stdio process ended, without the package's
// "server closed the connection" prefix.
func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	if ee, ok := errors.AsType[*mcp.ExitError](err); ok {
		return ee.State
	}
	return err.Error()
}

// survivesDef is the aggregate liveness check.
var survivesDef = &probeDef{
	ID: "resilience/server-survives",
	// MUST: JSON-RPC 2.0 §4 (which MCP messages follow) requires a response
	// to every request, and a server that died or hangs answers none. The
	// stdio transport leaves shutdown to the client (§Shutdown); a crash is
	// something a client must recover from (§Crash), not a behaviour.
	Level:   report.LevelMust,
	SpecRef: specRef("basic/transports/stdio") + "#shutdown",
	Title:   "the server keeps answering through every probe (a stdio process that exits is detected and reported)",
}

// survives folds the liveness checks into resilience/server-survives.
func (p *prober) survives() report.Check {
	if p.liveness == 0 {
		return check.Fold(survivesDef, report.LayerResilience, []check.Outcome{check.Skip("no probe ran")})
	}
	rc := check.Fold(survivesDef, report.LayerResilience, []check.Outcome{check.Pass()})
	rc.Runs, rc.Passed = p.liveness, p.liveness-len(p.incidents)
	if len(p.incidents) == 0 {
		rc.Info = fmt.Sprintf("answered tools/list after each of %d probe runs", p.liveness)
		return rc
	}
	first := p.incidents[0]
	rc.Status = report.StatusFail
	if first.Exit != "" {
		rc.Message = fmt.Sprintf("the server process exited (%s) during %s run %d", first.Exit, first.After, first.Run)
		if first.Stderr != "" {
			rc.Message += "; last stderr: " + clip.Bytes(lastLine(first.Stderr), 200)
		}
	} else {
		rc.Message = fmt.Sprintf("the server stopped answering tools/list after %s run %d: %s", first.After, first.Run, first.said)
	}
	if n := len(p.incidents); n > 1 {
		rc.Message += fmt.Sprintf(" (%d incidents in all)", n)
	}
	rc.Evidence = check.JSON(map[string]any{"incidents": p.incidents})
	return rc
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// safeTools returns the tools probes may call: readOnlyHint or listed
// safe, sorted by name, at most maxProbedTools.
func (p *prober) safeTools() []mcp.Tool {
	var out []mcp.Tool
	for _, t := range p.tools {
		if t.ReadOnly() || p.safe[t.Name] {
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	out = slices.CompactFunc(out, func(a, b mcp.Tool) bool { return a.Name == b.Name })
	if len(out) > maxProbedTools {
		out = out[:maxProbedTools]
	}
	return out
}

// noSafeTool is the reason a probe that must call a tool does not run.
const noSafeTool = "no tool is marked readOnlyHint or listed in --safe-tools, and calling any other tool could change data"
