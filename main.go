// Command mcp-eval evaluates a Model Context Protocol server before it
// ships: protocol conformance (Layer 0) on every push, and the model layers
// where configured. See README.md and DESIGN.md.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-eval/mcp-eval/internal/exitcode"
	"github.com/mcp-eval/mcp-eval/internal/proc"
	"github.com/mcp-eval/mcp-eval/internal/readfile"
)

func main() {
	// A panic in the run kills every server process group before the
	// runtime prints it and exits 2; the orderly stops it skipped would
	// have. (A crash elsewhere leaves the kernel's parent-death signal,
	// internal/proc/deathsig_linux.go.)
	defer func() {
		if r := recover(); r != nil {
			killAll()
			panic(r)
		}
	}()
	// What a server leaves behind outside its group and without its tag
	// (setsid, then env -i) is re-parented to mcp-eval, which kills it at
	// the end (killAll). Failing that, the group and the tag still hold.
	_ = proc.BecomeSubreaper()
	setMemoryLimit(os.Getenv)
	ctx, stop := interruptible(os.Stderr, func(code int) { killAll(); os.Exit(code) })
	readfile.CancelOn(ctx.Done()) // a file being read gives way to a signal too
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	// Every server was stopped by the run, whatever its error; a process
	// it could not stop is killed here rather than outlive mcp-eval.
	killAll()
	os.Exit(code)
}

// killAll kills every server process group still running, then every
// process the servers left behind that was re-parented to mcp-eval, and
// names those on stderr by pid and executable (never their arguments).
func killAll() {
	proc.KillAll()
	fmt.Fprint(os.Stderr, proc.OrphanWarning(proc.KillOrphans()))
}

// endSignals are the signals that end a run: Ctrl-C, a polite stop (CI's
// cancel, docker stop), a closed terminal, and Ctrl-\ (whose default, a
// goroutine dump and exit 2, would leave every server running).
var endSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// interrupted describes a signal as the run's cause of ending.
func interrupted(s os.Signal) *exitcode.Interrupted {
	switch s {
	case os.Interrupt:
		return &exitcode.Interrupted{Name: "SIGINT", Num: 2}
	case syscall.SIGHUP:
		return &exitcode.Interrupted{Name: "SIGHUP", Num: 1}
	case syscall.SIGQUIT:
		return &exitcode.Interrupted{Name: "SIGQUIT", Num: 3}
	default:
		return &exitcode.Interrupted{Name: "SIGTERM", Num: 15}
	}
}

// interruptible returns a context that the first of endSignals ends with an
// *exitcode.Interrupted cause: the run stops its servers, writes what
// finished, marked interrupted, and exits 128 plus the signal's number. A
// second signal, for a user who will not wait, ends it at once: exit(128
// plus its number), through exit, which kills every server process group
// first, and says so on stderr.
func interruptible(stderr io.Writer, exit func(code int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, endSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(interrupted(s))
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			in := interrupted(s)
			fmt.Fprintf(stderr, "mcp-eval: %s again: stopped at once, every server killed, no report written\n", in.Name)
			exit(in.ExitCode())
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
