// Command testtally reads `go test -json` on stdin, prints the tests' output
// as `go test` would, and ends with one closing line: "N passed, N failed,
// N skipped", counting every test and subtest, plus the packages that failed
// without a failing test (a build error, a panic in init, a timeout). It
// exits 1 when anything failed, so `.ci/run` can pipe into it.
//
// Usage: go test -json ./... | go run ./internal/ci/testtally
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func main() {
	modulePrefix = readModulePrefix("go.mod")
	t, err := tally(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testtally: %v\n", err)
		os.Exit(2)
	}
	fmt.Println(t)
	if !t.ok() {
		os.Exit(1)
	}
}

// readModulePrefix is "module/" of the go.mod at path, "" without one: the
// skip list names packages without it.
func readModulePrefix(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`) + "/"
		}
	}
	return ""
}
