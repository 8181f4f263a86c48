package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/cmdline"
)

// splitCommand splits a command line into words with shell-like quoting,
// expanding nothing (internal/cmdline): --server-cmd 'node server.js
// --name "my server"' works the same on every OS without running a shell.
func splitCommand(s string) ([]string, error) { return cmdline.Split(s) }

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

// serverStartCommand is the argv --server-start runs for its command line:
// the system shell where there is one (so `npm start` or `PORT=8080
// ./server` work), else the line split in Go and run directly, which is
// what the Docker action's shell-less image needs for a static binary.
func serverStartCommand(line string, getenv func(string) string) ([]string, error) {
	if runtime.GOOS == "windows" {
		return []string{"cmd", "/C", line}, nil
	}
	if _, err := os.Stat("/bin/sh"); err == nil {
		return []string{"/bin/sh", "-c", line}, nil
	}
	argv, err := splitCommand(line)
	if err != nil {
		return nil, &configError{"--server-start: " + err.Error()}
	}
	if err := findProgram("--server-start", argv, getenv); err != nil {
		return nil, err
	}
	return argv, nil
}
