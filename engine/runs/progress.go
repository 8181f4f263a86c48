package runs

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/progress"
	"github.com/mcp-eval/mcp-eval/llm"
)

// Progress pacing. A terminal line is redrawn at most ten times a second,
// which looks live without flooding a slow terminal; a CI log gets a line
// per tenth of the suite and at least one every progress.LogSilence (3 s:
// with the 1 s tick no gap exceeds 5 s), enough to show a long run is
// alive without burying the log.
const (
	ttyRedraw     = 100 * time.Millisecond
	logLineEvery  = progress.LogSilence
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
	// cost prices a model's usage (nil: no cost shown); usage is that of
	// the runs that asked a model, by model spec.
	cost  func(model string, u llm.Usage) (float64, bool)
	usage map[string]*llm.Usage
}

func newRunProgress(w io.Writer, tty bool, total int, now func() time.Time) *runProgress {
	if w == nil {
		return nil
	}
	t := now()
	return &runProgress{w: w, tty: tty, total: total, now: now, start: t, lastPrint: t, printed: -1, warned: map[string]bool{}, usage: map[string]*llm.Usage{}}
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
		if p.cost != nil {
			u := p.usage[res.Job.Model]
			if u == nil {
				u = &llm.Usage{}
				p.usage[res.Job.Model] = u
			}
			u.Add(tr.Usage)
		}
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
	elapsed := now.Sub(p.start)
	s := fmt.Sprintf("behavior: %d/%d runs (%d%%), %s elapsed", p.done, p.total, p.done*100/p.total, elapsed.Round(time.Second))
	if left, ok := progress.Left(elapsed, p.done, p.total); ok && p.done < p.total {
		s += fmt.Sprintf(", ≈ %s left", left)
	}
	s += fmt.Sprintf(", %d model calls", p.modelCalls)
	if usd, ok := p.costLocked(); ok {
		s += fmt.Sprintf(", $%.4f so far", usd)
	}
	if p.cached > 0 {
		s += fmt.Sprintf(", %d cached", p.cached)
	}
	if p.errored > 0 {
		s += fmt.Sprintf(", %d errored", p.errored)
	}
	return s
}

// costLocked is what the runs so far cost, when every model that answered
// has a price.
func (p *runProgress) costLocked() (float64, bool) {
	if p.cost == nil {
		return 0, false
	}
	total := 0.0
	for model, u := range p.usage {
		usd, ok := p.cost(model, *u)
		if !ok {
			return 0, false
		}
		total += usd
	}
	return total, true
}
