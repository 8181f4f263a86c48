package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestTally(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"a"}`,
		`{"Action":"run","Package":"a","Test":"TestOK"}`,
		`{"Action":"output","Package":"a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestOK"}`,
		`{"Action":"pass","Package":"a","Test":"TestOK/sub"}`,
		`{"Action":"output","Package":"a","Test":"TestBad","Output":"    x_test.go:9: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"a","Test":"TestBad"}`,
		`{"Action":"skip","Package":"a","Test":"TestSkip"}`,
		`{"Action":"fail","Package":"a"}`,
		`# b`,
		`b/b.go:3:1: syntax error`,
		`{"Action":"fail","Package":"b"}`,
		`{"Action":"pass","Package":"c"}`,
	}, "\n")
	var out bytes.Buffer
	c, err := tally(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "2 passed, 1 failed, 1 skipped; 1 packages failed outside a test: b"; got != want {
		t.Errorf("closing line %q, want %q", got, want)
	}
	if c.ok() {
		t.Error("a failed run reads ok")
	}
	// Like a plain go test: a failing test's output and build errors are
	// shown, a passing test's is not.
	if !strings.Contains(out.String(), "got 1, want 2") || !strings.Contains(out.String(), "syntax error") {
		t.Errorf("output of the failure not passed through:\n%s", out.String())
	}
	if strings.Contains(out.String(), "=== RUN   TestOK") {
		t.Errorf("a passing test's output is shown:\n%s", out.String())
	}
}

// TestTallyOfRealGoTest runs go test -json on a tiny module with one
// passing, one failing and one skipped test, so that the counter is held to
// what test2json really writes.
func TestTallyOfRealGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(`package x
import "testing"
func TestPass(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }
func TestFail(t *testing.T) { t.Fatal("no") }
func TestSkip(t *testing.T) { t.Skip("later") }
`), 0o644)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	raw, _ := cmd.Output()
	c, err := tally(bytes.NewReader(raw), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "2 passed, 1 failed, 1 skipped"; got != want {
		t.Errorf("closing line %q, want %q\n%s", got, want, raw)
	}
}

// TestTallyShowsSkips: every skip's reason is listed with the tests it
// skipped, the same reason once with its count, so that a green run
// cannot hide a test that never ran.
func TestTallyShowsSkips(t *testing.T) {
	ev := func(pkg, test, action, output string) string {
		return fmt.Sprintf(`{"Action":%q,"Package":%q,"Test":%q,"Output":%q}`, action, pkg, test, output)
	}
	var lines []string
	for _, name := range []string{"TestA", "TestB", "TestC", "TestD"} {
		lines = append(lines, ev("p", name, "output", "=== RUN   "+name+"\n"),
			ev("p", name, "output", "    schema_test.go:33: official MCP schema 2026-07-28 not found: get it with curl\n"),
			ev("p", name, "output", "--- SKIP: "+name+" (0.00s)\n"), ev("p", name, "skip", ""))
	}
	lines = append(lines, ev("q", "TestChromium", "output", "    html_test.go:95: set MCP_EVAL_BROWSER_TESTS=1\n"), ev("q", "TestChromium", "skip", ""),
		ev("q", "TestOK", "pass", ""))
	var out bytes.Buffer
	c, err := tally(strings.NewReader(strings.Join(lines, "\n")), &out)
	if err != nil {
		t.Fatal(err)
	}
	if c.String() != "1 passed, 0 failed, 5 skipped" {
		t.Errorf("closing line %q", c.String())
	}
	want := "skipped, by reason:\n" +
		"  4 × official MCP schema 2026-07-28 not found: get it with curl\n      (p TestA, p TestB, p TestC and 1 more)\n" +
		"  1 × set MCP_EVAL_BROWSER_TESTS=1\n      (q TestChromium)\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("output ends\n%s\nwant\n%s", out.String(), want)
	}
}

// TestTallyOfATimeout holds the counter to what test2json writes when the
// test binary's -timeout fires (as measured with Go 1.26): the panic and
// the goroutine dump are the running test's output, and neither the test
// nor its parent gets an end event, only the package its "fail". Before,
// such a package printed its FAIL line and nothing of why.
func TestTallyOfATimeout(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"x"}`,
		`{"Action":"run","Package":"x","Test":"TestSlow"}`,
		`{"Action":"output","Package":"x","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}`,
		`{"Action":"run","Package":"x","Test":"TestSlow/sub"}`,
		`{"Action":"output","Package":"x","Test":"TestSlow/sub","Output":"=== RUN   TestSlow/sub\n"}`,
		`{"Action":"output","Package":"x","Test":"TestSlow/sub","Output":"panic: test timed out after 2s\n"}`,
		`{"Action":"output","Package":"x","Test":"TestSlow/sub","Output":"\trunning tests:\n\t\tTestSlow/sub (2s)\n"}`,
		`{"Action":"run","Package":"y","Test":"TestOther"}`,
		`{"Action":"output","Package":"y","Test":"TestOther","Output":"=== RUN   TestOther\n"}`,
		`{"Action":"output","Package":"x","Output":"FAIL\tx\t2.060s\n"}`,
		`{"Action":"fail","Package":"x","Elapsed":2.061}`,
		`{"Action":"pass","Package":"y","Test":"TestOther"}`,
		`{"Action":"pass","Package":"y"}`,
	}, "\n")
	var out bytes.Buffer
	c, err := tally(strings.NewReader(in), &out)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.String(), "1 passed, 2 failed, 0 skipped"; got != want {
		t.Errorf("closing line %q, want %q", got, want)
	}
	for _, want := range []string{"--- FAIL: TestSlow/sub (never ended", "panic: test timed out after 2s", "TestSlow/sub (2s)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "TestOther") {
		t.Errorf("another package's running test is shown as unfinished:\n%s", out.String())
	}
}
