// Package cmdline splits a server command line (--server-cmd, and
// --server-start where there is no shell) into a program and its
// arguments the way a POSIX shell quotes words, without running a shell
// and without expanding anything. The quoting itself is
// github.com/mattn/go-shellwords'.
package cmdline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mattn/go-shellwords"
)

// operators are the shell's control and redirection characters, which end
// a simple command (go-shellwords stops at them).
const operators = ";&|<>"

// Split splits s into words: single quotes keep everything literally,
// double quotes and a backslash outside quotes escape the next character,
// white space separates words. $VAR, `…` and # are kept as written: no
// shell runs the command, so nothing is expanded or commented out. Shell
// syntax that a word list cannot express (an unquoted ; & | < > ( )) is
// an error rather than an argument, and so is an unterminated quote.
//
// Where go-shellwords departs from POSIX it is followed: inside double
// quotes a backslash escapes any character (POSIX keeps it before anything
// but $ ` " \), and \t and \n are a tab and a newline; a carriage return
// separates words.
func Split(s string) ([]string, error) {
	p := parser()
	args, err := p.Parse(s)
	if err != nil {
		return nil, errors.New(why(s))
	}
	if p.Position >= 0 {
		return nil, fmt.Errorf("%s outside quotes is shell syntax, and no shell runs this command (quote it, or write sh -c '…')", operatorAt(s, p.Position))
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}

func parser() *shellwords.Parser {
	p := shellwords.NewParser()
	p.ParseEnv, p.ParseBacktick, p.ParseComment = false, false, false
	return p
}

// why says what makes s unparseable. go-shellwords has one error for
// every case, so the closing character that would complete s names it.
func why(s string) string {
	parses := func(s string) bool { _, err := parser().Parse(s); return err == nil }
	switch {
	case strings.HasSuffix(s, `\`) && parses(s[:len(s)-1]):
		return "a backslash ends the command, escaping nothing"
	case parses(s + "'"):
		return "unterminated single quote"
	case parses(s + `"`):
		return "unterminated double quote"
	case parses(s + "`"):
		return "unterminated backquote"
	case parses(s + ")"):
		return "unterminated $("
	case strings.ContainsAny(s, "()"):
		return "a parenthesis outside quotes is shell syntax, and no shell runs this command (quote it)"
	}
	return "not a valid command line"
}

// operatorAt names the first shell operator at or after rune pos of s.
func operatorAt(s string, pos int) string {
	r := []rune(s)
	for i := min(pos, len(r)); i < len(r); i++ {
		if strings.ContainsRune(operators, r[i]) {
			return fmt.Sprintf("%q", string(r[i]))
		}
	}
	return "a shell operator (; & | < >)"
}
