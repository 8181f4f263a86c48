package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/app/pipeline"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
)

// secretValue has every character class an encoder treats specially, so
// that each spelling differs from the raw value.
const secretValue = `tok/en<>&"x'9+=Z`

// echoServer is the fixture behind a hostile proxy that writes the secret,
// in the given spelling, into its serverInfo name and into every JSON-RPC
// error message: a server that echoes the request's credentials back, the
// way a PHP server escapes "/" as "\/".
func echoServer(t *testing.T, spelled string) string {
	h := mcptest.NewHandler(mcptest.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			// A long-lived stream: a proxy that buffers whole answers would
			// hold it until the client gives up (subscriptions/listen then
			// rightly fails); this one streams it as it is.
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := rec.Body.Bytes()
		body = bytes.ReplaceAll(body, []byte(mcptest.ServerName), []byte(mcptest.ServerName+" ECHO["+spelled+"]"))
		body = bytes.ReplaceAll(body, []byte(`"message":"`), []byte(`"message":"ECHO[`+spelled+`] `))
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestNoSecretInAnyOutput is the table of sources × spellings: for each source of a
// secret and each spelling an echoing server or process gives it, no
// spelling of the secret is found in any file under --out, on stdout or on
// stderr.
func TestNoSecretInAnyOutput(t *testing.T) {
	all := redacttest.Spellings(secretValue)
	// What a run may write it as: every spelling of the value and of the
	// header holding it.
	var forbidden []string
	for _, v := range []string{secretValue, "Bearer " + secretValue} {
		for _, sp := range redacttest.Spellings(v) {
			forbidden = append(forbidden, sp)
		}
	}
	sources := []struct {
		name string
		env  map[string]string
		args []string // for an HTTP server only
		cfg  string   // mcp-eval.yaml
	}{
		{name: "--header", env: map[string]string{"MCP_EVAL_TEST_TOKEN": secretValue},
			args: []string{"--header", "Authorization: Bearer $MCP_EVAL_TEST_TOKEN"}},
		{name: "secrets in mcp-eval.yaml", env: map[string]string{"MY_SERVICE_TOKEN": secretValue},
			cfg: "secrets: [MY_SERVICE_TOKEN]\n"},
		{name: "OPENAI_API_KEY", env: map[string]string{"OPENAI_API_KEY": secretValue}},
	}
	targets := []struct {
		name string
		// args returns the server flags for a secret spelled sp.
		args func(t *testing.T, sp string) []string
		// jsonSafe says the target puts the spelling inside JSON strings,
		// where the raw value (with its quote) cannot appear.
		jsonSafe bool
		code     int
		// echoIn is a sink the echo must reach, so that the test proves
		// the masking rather than the absence of an echo.
		echoIn string
	}{
		{name: "HTTP server echoing it", jsonSafe: true, code: 0, echoIn: "report.json",
			args: func(t *testing.T, sp string) []string { return []string{"--server-url", echoServer(t, sp)} }},
		{name: "--server-start printing it and failing", code: 3, echoIn: "server.log",
			args: func(t *testing.T, sp string) []string {
				t.Setenv("MCP_EVAL_TEST_ECHO", "ECHO["+sp+"]")
				return []string{"--server-start", `printf '%s\n' "$MCP_EVAL_TEST_ECHO"; exit 1`, "--server-url", apptest.NoServerURL}
			}},
		{name: "--server-cmd logging it on stderr", code: 3, echoIn: "server.log",
			args: func(t *testing.T, sp string) []string {
				t.Setenv("MCP_EVAL_TEST_ECHO", "ECHO["+sp+"]")
				return []string{"--server-cmd", `sh -c 'printf "%s\n" "$MCP_EVAL_TEST_ECHO" >&2; exit 1'`}
			}},
	}
	for _, tg := range targets {
		for _, src := range sources {
			for spName, sp := range all {
				if tg.jsonSafe && spName == "raw" {
					continue
				}
				if !tg.jsonSafe && spName == "json every character escaped" {
					continue // a log is text: \uXXXX there is no spelling of anything
				}
				if src.args != nil && !tg.jsonSafe && tg.name != "--server-start printing it and failing" {
					continue // --header needs an HTTP server
				}
				t.Run(tg.name+"/"+src.name+"/"+spName, func(t *testing.T) {
					dir := t.TempDir()
					out := filepath.Join(dir, "out")
					args := append([]string{"conformance", "--out", out, "--runs", "1", "--start-timeout", "5s"}, tg.args(t, sp)...)
					args = append(args, src.args...)
					if src.cfg != "" {
						p := filepath.Join(dir, "mcp-eval.yaml")
						if err := os.WriteFile(p, []byte(src.cfg), 0o644); err != nil {
							t.Fatal(err)
						}
						args = append(args, "--config", p)
					}
					code, stdout, stderr := runCommand(t, apptest.Env(src.env), args...)
					if code != tg.code {
						t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tg.code, stdout, stderr)
					}
					sinks := map[string]string{"stdout": stdout, "stderr": stderr}
					filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
						if err == nil && !d.IsDir() {
							b, _ := os.ReadFile(path)
							rel, _ := filepath.Rel(out, path)
							sinks[rel] = string(b)
						}
						return nil
					})
					if !strings.Contains(sinks[tg.echoIn], "ECHO[") {
						t.Fatalf("the echo never reached %s, so this case tests nothing:\n%s", tg.echoIn, sinks[tg.echoIn])
					}
					for name, text := range sinks {
						for _, f := range forbidden {
							if strings.Contains(text, f) {
								t.Errorf("%s contains the secret as %q", name, f)
							}
						}
					}
				})
			}
		}
	}
}

// TestEvaluateReturnsMaskedReport: the report pipeline.Evaluate hands its caller
// (the Action renders its comment and annotations from it) is masked too,
// in every string, not only in the files.
func TestEvaluateReturnsMaskedReport(t *testing.T) {
	sp := redacttest.Spellings(secretValue)["json every character escaped"]
	getenv := apptest.Env(map[string]string{"MCP_EVAL_TEST_TOKEN": secretValue})
	cfg, err := config.Parse("run", []string{"--server-url", echoServer(t, sp), "--layers", "conformance", "--runs", "1",
		"--out", t.TempDir(), "--header", "Authorization: Bearer $MCP_EVAL_TEST_TOKEN"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	r, err := pipeline.Evaluate(context.Background(), cfg, pipeline.Env{Getenv: getenv, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	var decoded any
	json.Unmarshal(b, &decoded)
	plain := fmt.Sprint(decoded) // every string decoded, as a renderer sees it
	if !strings.Contains(plain, "ECHO[***]") {
		t.Fatalf("the echo is not in the report, so this tests nothing:\n%.2000s", plain)
	}
	if strings.Contains(plain, secretValue) || strings.Contains(string(b), sp) {
		t.Errorf("the returned report holds the secret:\n%.2000s", plain)
	}
}
