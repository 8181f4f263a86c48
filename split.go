package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// splitCommand splits a command line the way a POSIX shell splits words,
// without expanding anything: single quotes keep everything literally,
// double quotes allow \" and \\, and a backslash outside quotes escapes the
// next character. It lets --server-cmd 'node server.js --name "my server"'
// work the same on every OS without running a shell.
func splitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
		case c == '\\':
			inWord = true
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}

// findProgram checks that a server command's program exists before it is
// started, so that a missing runtime is one clear line naming the input and
// the program rather than a failed connection (exit 3, DESIGN.md). input is the flag as the
// user gave it ("--server-cmd"); getenv tells whether this is the Docker
// action's container, whose image holds mcp-eval and nothing else.
func findProgram(input string, argv []string, getenv func(string) string) error {
	if _, err := exec.LookPath(argv[0]); err != nil {
		where := "on PATH"
		if strings.ContainsAny(argv[0], `/\`) {
			where = "as a file (or it is not executable)"
		}
		name := input
		if getenv("GITHUB_ACTIONS") == "true" {
			name = fmt.Sprintf("input %s (%s)", strings.TrimPrefix(input, "--"), input)
		}
		msg := fmt.Sprintf("%s: program %q not found %s", name, argv[0], where)
		if inDockerAction(getenv) {
			msg += "; the Docker action's image holds only mcp-eval (no shell, no node, no python): a static server binary in the workspace works, " +
				"anything needing a runtime runs in host mode (uses: mcp-eval/mcp-eval/setup@v1, then `mcp-eval action` in a run step; see the README)"
		}
		// Exit 3, as for any server that cannot be reached: nothing ran.
		return &exitError{code: 3, msg: msg}
	}
	return nil
}

// inDockerAction reports whether mcp-eval runs as the Docker action: the
// runner mounts the workspace at /github/workspace only there.
func inDockerAction(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true" && getenv("GITHUB_WORKSPACE") == "/github/workspace"
}

// serverStartCommand is how --server-start runs its command line: through
// the system shell where there is one (so `npm start` or `PORT=8080
// ./server` work), else split in Go and run directly, which is what the
// Docker action's shell-less image needs for a static binary.
func serverStartCommand(cmdline string, getenv func(string) string) (*exec.Cmd, error) {
	if runtime.GOOS == "windows" {
		return exec.Command("cmd", "/C", cmdline), nil
	}
	if _, err := os.Stat("/bin/sh"); err == nil {
		return exec.Command("/bin/sh", "-c", cmdline), nil
	}
	argv, err := splitCommand(cmdline)
	if err != nil {
		return nil, &configError{"--server-start: " + err.Error()}
	}
	if err := findProgram("--server-start", argv, getenv); err != nil {
		return nil, err
	}
	return exec.Command(argv[0], argv[1:]...), nil
}
