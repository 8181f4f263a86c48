// Package exitcode names mcp-eval's exit codes (DESIGN.md "Exit codes") and
// the errors that carry them out of the packages that know which one
// applies. Package main maps an error to its code in one place (Of); the
// packages below it only choose the kind of error. It imports nothing of
// this module.
package exitcode

import (
	"errors"
	"flag"
	"fmt"
)

// The exit codes.
const (
	// OK: every gate passed.
	OK = 0
	// Failed: a check or case counted against the run, or a gate failed.
	Failed = 1
	// Usage: a usage or configuration error (a flag, mcp-eval.yaml, a
	// golden or payload file, a missing API key).
	Usage = 2
	// NoEval: the server could not be started or reached, so nothing was
	// evaluated.
	NoEval = 3
)

// Coder is an error that chose its exit code. Package main's own error
// types (of the server start) satisfy it too.
type Coder interface {
	error
	ExitCode() int
}

// Error is an exit code chosen deep in a command; an empty Msg prints
// nothing (the report already said why).
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// ExitCode returns e.Code.
func (e *Error) ExitCode() int { return e.Code }

// New returns an *Error with code and msg.
func New(code int, msg string) error { return &Error{Code: code, Msg: msg} }

// UsageError is a bad flag or value: exit 2, and the top level points at
// the command's --help.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ExitCode returns Usage.
func (e *UsageError) ExitCode() int { return Usage }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// ConfigError is a bad config file, golden file or environment: exit 2,
// with the place named, without a pointer to --help.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// ExitCode returns Usage.
func (e *ConfigError) ExitCode() int { return Usage }

// Configf returns a *ConfigError.
func Configf(format string, args ...any) error {
	return &ConfigError{fmt.Sprintf(format, args...)}
}

// Config returns err's text as a *ConfigError.
func Config(err error) error { return &ConfigError{err.Error()} }

// Of is the exit code of err: OK for nil and flag.ErrHelp, the code a
// Coder in err's chain chose, and Failed for any other error.
func Of(err error) int {
	var c Coder
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return OK
	case errors.As(err, &c):
		return c.ExitCode()
	}
	return Failed
}

// Interrupted is the cause of a run's context when a signal stopped it. A
// run that ends this way exits 128 plus the signal's number (130 for
// SIGINT, 143 for SIGTERM), as a shell reports a process the signal killed,
// after writing the partial report of what finished.
type Interrupted struct {
	Name string // "SIGINT"
	Num  int    // 2
}

func (e *Interrupted) Error() string { return "interrupted by " + e.Name }

// ExitCode returns 128 plus the signal's number.
func (e *Interrupted) ExitCode() int { return 128 + e.Num }

// InterruptedBy returns the *Interrupted that caused ctx to end, if one did.
func InterruptedBy(ctx interface{ Err() error }, cause error) (*Interrupted, bool) {
	var in *Interrupted
	if ctx.Err() == nil || !errors.As(cause, &in) {
		return nil, false
	}
	return in, true
}
