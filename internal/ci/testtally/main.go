// Command testtally reads `go test -json` on stdin, prints the tests' output
// as `go test` would, and ends with one closing line: "N passed, N failed,
// N skipped", counting every test and subtest, plus the packages that failed
// without a failing test (a build error, a panic in init, a timeout). It
// exits 1 when anything failed, so `.ci/run` can pipe into it.
//
// Usage: go test -json ./... | go run ./internal/ci/testtally
package main

import (
	"fmt"
	"os"
)

func main() {
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
