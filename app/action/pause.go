package action

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/exitcode"
)

// pause keeps the runner from taking what the run prints for workflow
// commands. The terminal report, the progress lines and the errors quote
// the server (its tool names, messages, the first bytes of a body), and
// actions/runner processes a line as a command when, leading space
// trimmed, it starts "::name" up to a second "::", or when "##[name]"
// appears anywhere in it (ActionCommand.TryParseV2 and TryParse, for
// stdout and stderr alike): a server could forge annotations, add masks
// that hide the log, or send a ::stop-commands:: of its own that silences
// the Action's annotations. While paused (github.StopCommands:
// ::stop-commands::TOKEN, the token random, so that no echo can end it)
// the runner processes nothing but ::TOKEN::. The Action's own commands
// (the masks of a token learnt during the run, the annotations) go out
// between pauses. The runner reads stdout and stderr as two pipes, so a
// stderr line written in the same instant as a pause or resume on stdout
// may be read on the other side of it.
type pause struct {
	mu     sync.Mutex
	w      io.Writer
	resume func() error // nil: not paused
}

// stop pauses commands (nothing if they are paused).
func (p *pause) stop() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stopLocked()
}

func (p *pause) stopLocked() error {
	if p.resume != nil {
		return nil
	}
	resume, err := github.StopCommands(p.w)
	if err != nil {
		return fmt.Errorf("pausing workflow commands: %w", err)
	}
	p.resume = resume
	return nil
}

// start resumes commands (nothing if they are not paused).
func (p *pause) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.startLocked()
}

func (p *pause) startLocked() error {
	if p.resume == nil {
		return nil
	}
	err := p.resume()
	p.resume = nil
	if err != nil {
		return fmt.Errorf("resuming workflow commands: %w", err)
	}
	return nil
}

// mask registers secret with the runner's log masking (::add-mask::),
// paused or not: a pause is lifted for it and taken again, with a new
// token.
func (p *pause) mask(secret string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	paused := p.resume != nil
	if err := p.startLocked(); err != nil {
		return err
	}
	if err := github.Mask(p.w, secret); err != nil {
		return err
	}
	if paused {
		return p.stopLocked()
	}
	return nil
}

// quiet runs f with commands paused, and resumes them whatever f returns.
func (p *pause) quiet(f func() error) error {
	if err := p.stop(); err != nil {
		return err
	}
	err := f()
	return errors.Join(err, p.start())
}

// PrintError writes the error `mcp-eval action` ends with, as the program
// prints every error ("mcp-eval: " and its text), with commands paused
// around it (it may quote the server: an exit 3 names what came back); a
// bad input points at the step's with: inputs.
func PrintError(w io.Writer, err error) {
	p := &pause{w: w}
	perr := p.stop()
	fmt.Fprintf(w, "mcp-eval: %v\n", err)
	var ue *exitcode.UsageError
	if errors.As(err, &ue) {
		fmt.Fprint(w, "check the step's with: inputs (action.yml lists them)\n")
	}
	if perr = errors.Join(perr, p.start()); perr != nil {
		fmt.Fprintf(w, "mcp-eval: %v\n", perr)
	}
}
