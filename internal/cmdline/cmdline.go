// Package cmdline splits a server command line (--server-cmd, and
// --server-start where there is no shell) into a program and its
// arguments the way a POSIX shell quotes words, without running a shell
// and without expanding anything. The quoting is
// github.com/kballard/go-shellquote's, which follows POSIX (XCU 2.2
// "Quoting").
package cmdline

import (
	"errors"

	"github.com/kballard/go-shellquote"
)

// Split splits s into words: single quotes keep everything literally,
// inside double quotes a backslash escapes only $ ` " \ and a newline (so
// "C:\srv\index.js" keeps its backslashes), outside quotes a backslash
// escapes the next character, and blanks and newlines separate words.
// $VAR, `…`, #, ~ and the shell's operators (; & | < >) are kept as
// written: no shell runs the command, so nothing is expanded, commented
// out or redirected. An unterminated quote or a trailing backslash is an
// error that says which.
func Split(s string) ([]string, error) {
	args, err := shellquote.Split(s)
	switch {
	case errors.Is(err, shellquote.UnterminatedSingleQuoteError):
		return nil, errors.New("unterminated single quote")
	case errors.Is(err, shellquote.UnterminatedDoubleQuoteError):
		return nil, errors.New("unterminated double quote")
	case errors.Is(err, shellquote.UnterminatedEscapeError):
		return nil, errors.New("a backslash ends the command, escaping nothing")
	case err != nil:
		return nil, err
	case len(args) == 0:
		return nil, errors.New("empty command")
	}
	return args, nil
}
