// Package progress keeps a long run from going silent on stderr. A Writer
// wraps the run's stderr: it knows when anything was last written there,
// and a heartbeat says where the run is (its phase, the steps of the phase
// done of those planned, the time spent and the time left) whenever
// nothing else has spoken for a while — on a terminal as a live line that
// any other output clears first, in a CI log as a line at most
// LogSilence apart. It writes only to stderr, never into a report.
package progress

import (
	"fmt"
	"io"
	"sync"
	"time"
)

const (
	// LogSilence is how long a CI log goes without a line before the
	// heartbeat writes one: the heartbeat looks every Tick, so no gap
	// exceeds LogSilence + Tick = 4 s, under the 5 s promised with a
	// second to spare for a loaded machine.
	LogSilence = 3 * time.Second
	// TTYSilence is how long a terminal may show nothing new before the
	// live line appears.
	TTYSilence = time.Second
	// Tick is how often the heartbeat looks.
	Tick = time.Second
)

// Writer is stderr with a heartbeat. Its zero value is not usable; use
// New. A nil *Writer accepts Phase, Add and Start and does nothing.
type Writer struct {
	w   io.Writer
	tty bool
	now func() time.Time

	mu         sync.Mutex
	last       time.Time // of the last output, anyone's
	onScreen   bool      // the live line is drawn (terminal)
	phase      string
	unit       string
	done       int
	total      int
	phaseStart time.Time
}

// New wraps w; tty selects the live line.
func New(w io.Writer, tty bool) *Writer {
	return newAt(w, tty, time.Now)
}

func newAt(w io.Writer, tty bool, now func() time.Time) *Writer {
	t := now()
	return &Writer{w: w, tty: tty, now: now, last: t, phaseStart: t}
}

// Unwrap is the writer below, so that a terminal is still seen as one.
func (p *Writer) Unwrap() io.Writer { return p.w }

// Write passes b on, first clearing the live line if it is drawn.
func (p *Writer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.onScreen {
		p.onScreen = false
		if _, err := io.WriteString(p.w, "\r\x1b[K"); err != nil {
			return 0, err
		}
	}
	p.last = p.now()
	return p.w.Write(b)
}

// Phase starts a phase: its name ("conformance") and, when it counts
// steps, how many are planned (0: it does not count) and what they are
// ("checks").
func (p *Writer) Phase(name string, total int, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.total, p.unit, p.done, p.phaseStart = name, total, unit, 0, p.now()
}

// Add counts n steps of the phase done.
func (p *Writer) Add(n int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done += n
	p.mu.Unlock()
}

// Start starts the heartbeat; stop ends it and clears the live line.
func (p *Writer) Start() (stop func()) {
	if p == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(Tick)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.beat()
			case <-quit:
				return
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.onScreen {
			p.onScreen = false
			io.WriteString(p.w, "\r\x1b[K")
		}
	}
}

// beat prints the status when the run has been silent long enough.
func (p *Writer) beat() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase == "" {
		return
	}
	now := p.now()
	if p.tty {
		if p.onScreen || now.Sub(p.last) >= TTYSilence {
			// "\r" last: the line is complete for a line-buffered writer
			// below, and the next output starts at its left.
			io.WriteString(p.w, "\r"+p.status(now)+"\x1b[K\r")
			p.onScreen = true
		}
		return
	}
	if now.Sub(p.last) >= LogSilence {
		fmt.Fprintln(p.w, p.status(now))
		p.last = now
	}
}

// status is "mcp-eval: conformance: 120/340 checks (35%), 12s elapsed,
// ≈ 22s left".
func (p *Writer) status(now time.Time) string {
	elapsed := now.Sub(p.phaseStart)
	s := "mcp-eval: " + p.phase + ": "
	if p.total > 0 {
		s += fmt.Sprintf("%d/%d %s (%d%%), ", p.done, p.total, p.unit, p.done*100/p.total)
	}
	s += fmt.Sprintf("%s elapsed", elapsed.Round(time.Second))
	if left, ok := Left(elapsed, p.done, p.total); ok {
		s += fmt.Sprintf(", ≈ %s left", left)
	}
	return s
}

// Left estimates the time left of a phase that took elapsed for done of
// total steps, at the same pace; ok is false before the first step.
func Left(elapsed time.Duration, done, total int) (time.Duration, bool) {
	if done <= 0 || total <= 0 || done > total {
		return 0, false
	}
	return (elapsed * time.Duration(total-done) / time.Duration(done)).Round(time.Second), true
}

// Steps counts the steps of one phase for a runner that says how many it
// plans, then each one done (engine/check's Progress).
type Steps struct {
	p          *Writer
	name, unit string
}

// Steps is a counter of the phase name's steps, in unit; nil for a nil
// Writer.
func (p *Writer) Steps(name, unit string) *Steps {
	if p == nil {
		return nil
	}
	return &Steps{p, name, unit}
}

// Planned starts the phase with n steps.
func (s *Steps) Planned(n int) { s.p.Phase(s.name, n, s.unit) }

// Done counts n steps done.
func (s *Steps) Done(n int) { s.p.Add(n) }

// Of is the Writer w is or wraps, nil when none.
func Of(w io.Writer) *Writer {
	for {
		switch x := w.(type) {
		case *Writer:
			return x
		case interface{ Unwrap() io.Writer }:
			w = x.Unwrap()
		default:
			return nil
		}
	}
}
