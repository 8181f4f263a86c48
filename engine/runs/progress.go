package runs

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
)

// Progress pacing. A terminal line is redrawn at most ten times a second,
// which looks live without flooding a slow terminal; a CI log gets a line
// per tenth of the suite and at least one every ten seconds, enough to show
// a long run is alive without burying the log.
const (
	ttyRedraw     = 100 * time.Millisecond
	logLineEvery  = 10 * time.Second
	progressSteps = 10
	// progressTick is how often the elapsed time is refreshed between
	// finished jobs.
	progressTick = time.Second
)

// runProgress reports a Runner's progress. A nil *runProgress is silent.
type runProgress struct {
	w     io.Writer
	tty   bool
	total int
	now   func() time.Time
	start time.Time

	mu         sync.Mutex
	done       int
	cached     int
	errored    int
	modelCalls int
	lastPrint  time.Time
	printed    int // done at the last line, -1 before the first
	lastStep   int
	onScreen   bool // TTY: a progress line is drawn without a newline
	warned     map[string]bool
}

func newRunProgress(w io.Writer, tty bool, total int, now func() time.Time) *runProgress {
	if w == nil {
		return nil
	}
	t := now()
	return &runProgress{w: w, tty: tty, total: total, now: now, start: t, lastPrint: t, printed: -1, warned: map[string]bool{}}
}

// record counts one finished job and warns, once per tool, about tools that
// really ran on the server although they are not read-only.
func (p *runProgress) record(res Result) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	tr := res.Transcript
	switch {
	case res.Cached:
		p.cached++
	case tr != nil:
		p.modelCalls += tr.ModelCalls
	}
	if tr != nil && tr.Stop == agent.StopError {
		p.errored++
	}
	if !res.Cached && tr != nil {
		for _, c := range tr.Calls {
			if c.Executed && !c.ReadOnly {
				p.warnLocked("write:"+c.Name, fmt.Sprintf(
					"warning: %s is not marked readOnlyHint and was really executed on the server (case %s); stub it with stub_results to keep it from running",
					c.Name, res.Job.CaseID))
			}
		}
	}
	now := p.now()
	if p.tty {
		if p.done == p.total || now.Sub(p.lastPrint) >= ttyRedraw {
			p.drawLocked(now)
		}
		return
	}
	step := p.done * progressSteps / p.total
	if step > p.lastStep || now.Sub(p.lastPrint) >= logLineEvery {
		p.lastStep = step
		p.lineLocked(now)
	}
}

// tick is called periodically so the elapsed time moves on a terminal and
// a CI log hears from a run whose jobs are all slow.
func (p *runProgress) tick() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	switch {
	case p.tty:
		p.drawLocked(now)
	case now.Sub(p.lastPrint) >= logLineEvery:
		p.lineLocked(now)
	}
}

// finish writes the final state: ends the terminal line, or adds a last
// log line when the last one printed is out of date (a cancelled run).
func (p *runProgress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.tty {
		p.drawLocked(now)
		fmt.Fprintln(p.w)
		p.onScreen = false
		return
	}
	if p.printed != p.done {
		p.lineLocked(now)
	}
}

// warnOnce prints msg the first time key is seen.
func (p *runProgress) warnOnce(key, msg string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.warnLocked(key, msg)
}

func (p *runProgress) warnLocked(key, msg string) {
	if p.warned[key] {
		return
	}
	p.warned[key] = true
	if p.onScreen {
		// Clear the progress line so the warning does not trail it; the
		// next redraw puts it back below.
		fmt.Fprint(p.w, "\r\x1b[K")
		p.onScreen = false
	}
	fmt.Fprintln(p.w, msg)
}

func (p *runProgress) drawLocked(now time.Time) {
	fmt.Fprint(p.w, "\r"+p.statusLocked(now)+"\x1b[K")
	p.onScreen = true
	p.lastPrint = now
	p.printed = p.done
}

func (p *runProgress) lineLocked(now time.Time) {
	fmt.Fprintln(p.w, p.statusLocked(now))
	p.lastPrint = now
	p.printed = p.done
}

func (p *runProgress) statusLocked(now time.Time) string {
	s := fmt.Sprintf("behavior: %d/%d runs (%d%%), %s elapsed, %d model calls",
		p.done, p.total, p.done*100/p.total, now.Sub(p.start).Round(time.Second), p.modelCalls)
	if p.cached > 0 {
		s += fmt.Sprintf(", %d cached", p.cached)
	}
	if p.errored > 0 {
		s += fmt.Sprintf(", %d errored", p.errored)
	}
	return s
}
