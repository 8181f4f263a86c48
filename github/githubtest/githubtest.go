// Package githubtest reads back, for tests, what package github writes for
// the Actions runner. It imports nothing of this module.
package githubtest

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
)

// Outputs reads a GITHUB_OUTPUT file the way the runner does
// (actions/runner SetOutputFileCommand): "name=value" lines, or
// "name<<DELIM" followed by lines up to a line equal to DELIM. A file the
// runner would refuse fails t.
func Outputs(t testing.TB, data string) map[string]string {
	t.Helper()
	out, err := parseOutputs(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func parseOutputs(data string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if k, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(k, "=") {
			var val []string
			closed := false
			for sc.Scan() {
				if sc.Text() == delim {
					closed = true
					break
				}
				val = append(val, sc.Text())
			}
			if !closed {
				return nil, fmt.Errorf("output %s: delimiter %s never closed", k, delim)
			}
			out[k] = strings.Join(val, "\n")
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("output line %q is neither name=value nor name<<delimiter", line)
		}
		out[k] = v
	}
	return out, sc.Err()
}
