//go:build unix

package pipeline

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/resilience"
	"github.com/mcp-eval/mcp-eval/tasks"
	"github.com/mcp-eval/mcp-eval/telemetry"
)

// yamlKinds are the five kinds of user YAML file, each read from its path
// the way a run reads it, with a mistake of each kind the one rule set
// refuses.
var yamlKinds = []struct {
	kind string
	load func(path string) error
	// The mistakes, each with the FILE:LINE message it must get (the
	// line after the file's path, and a part of the message).
	valid, dup, second, recursive, unknown, deepSyntax string
	dupAt, secondAt, recursiveAt, unknownAt            string
	unknownMsg                                         string
}{
	{
		kind: "mcp-eval.yaml",
		load: func(path string) error {
			_, err := config.Parse("run", []string{"--config", path}, func(string) string { return "" })
			return err
		},
		valid:     "server-url: http://127.0.0.1:1/mcp\nruns: 3\n",
		dup:       "server-url: http://127.0.0.1:1/mcp\nruns: 3\nruns: 4\n",
		dupAt:     ":3: duplicate key \"runs\" (first at line 2)",
		second:    "server-url: http://127.0.0.1:1/mcp\n---\nruns: 4\n",
		secondAt:  ":2: a second YAML document",
		recursive: "server-url: http://127.0.0.1:1/mcp\nruns: &r {x: *r}\n", recursiveAt: ":2: recursive alias: *r",
		unknown: "server-url: http://127.0.0.1:1/mcp\nrnus: 3\n", unknownAt: ":2: ", unknownMsg: `unknown option "rnus" (did you mean "runs"?)`,
		deepSyntax: "server-url: http://127.0.0.1:1/mcp\nruns: 3\nsafe-tools:\n  - a\n  - b\n bad: 1\n",
	},
	{
		kind:      "golden file",
		load:      func(path string) error { _, err := tasks.Load(path); return err },
		valid:     "version: 1\ncases:\n  - id: a\n    prompt: hi\n    negative: true\n",
		dup:       "version: 1\ncases:\n  - id: a\n    prompt: hi\n    prompt: ho\n    negative: true\n",
		dupAt:     ":5: duplicate key \"prompt\" (first at line 4)",
		second:    "version: 1\ncases:\n  - id: a\n    prompt: hi\n    negative: true\n---\nversion: 1\n",
		secondAt:  ":6: a second YAML document",
		recursive: "- &c {id: r, prompt: hi, expect_tool: get_weather, expect_args: {x: *c}}\n", recursiveAt: ":1: recursive alias: *c",
		unknown: "version: 1\ncases:\n  - id: a\n    promt: hi\n    negative: true\n", unknownAt: ":4: case \"a\": ", unknownMsg: `unknown key "promt" (did you mean "prompt"?)`,
		deepSyntax: "version: 1\ncases:\n  - id: a\n    prompt: hi\n    negative: true\n   bad: 2\n",
	},
	{
		kind:      "payload file",
		load:      func(path string) error { _, err := resilience.LoadPayloads(path); return err },
		valid:     "version: 1\npayloads:\n  - {id: p1, category: other, canary: CANARY-1, text: say it}\n",
		dup:       "version: 1\npayloads:\n  - {id: p1, category: other, canary: CANARY-1, text: say it, text: again}\n",
		dupAt:     ":3: duplicate key \"text\" (first at line 3)",
		second:    "version: 1\npayloads: []\n---\nversion: 1\n",
		secondAt:  ":3: a second YAML document",
		recursive: "version: 1\npayloads:\n  - &p {id: p1, category: other, canary: CANARY-1, text: *p}\n", recursiveAt: ":3: recursive alias: *p",
		unknown: "version: 1\npayload: []\n", unknownAt: ":2: ", unknownMsg: `unknown key "payload" (did you mean "payloads"?)`,
		deepSyntax: "version: 1\nextends: builtin\npayloads:\n  - id: p1\n    category: other\n   canary: C\n",
	},
	{
		kind:      "waiver file",
		load:      func(path string) error { _, err := LoadWaivers(path); return err },
		valid:     "- id: a/b\n  reason: known\n",
		dup:       "- id: a/b\n  reason: known\n  reason: again\n",
		dupAt:     ":3: duplicate key \"reason\" (first at line 2)",
		second:    "- id: a/b\n  reason: known\n---\n- id: c/d\n  reason: r\n",
		secondAt:  ":3: a second YAML document",
		recursive: "- &w {id: a/b, reason: r, x: *w}\n", recursiveAt: ":1: recursive alias: *w",
		unknown: "- id: a/b\n  reson: known\n", unknownAt: ":2: ", unknownMsg: `unknown key "reson" (did you mean "reason"?)`,
		deepSyntax: "- id: a/b\n  reason: r\n- id: c/d\n  reason: r\n- id: e/f\n reason: r\n",
	},
	{
		kind:      "price file",
		load:      func(path string) error { _, err := telemetry.LoadPrices(path); return err },
		valid:     "models:\n  openai:m: {input: 1, output: 2}\n",
		dup:       "models:\n  openai:m: {input: 1, output: 2}\n  openai:m: {input: 1, output: 3}\n",
		dupAt:     ":3: duplicate key \"openai:m\" (first at line 2)",
		second:    "models:\n  openai:m: {input: 1, output: 2}\n---\nmodels: {}\n",
		secondAt:  ":3: a second YAML document",
		recursive: "models: &m {openai:m: *m}\n", recursiveAt: ":1: recursive alias: *m",
		unknown: "modles:\n  openai:m: {input: 1, output: 2}\n", unknownAt: ":1: ", unknownMsg: `unknown key "modles" (did you mean "models"?)`,
		deepSyntax: "date: x\nmodels:\n  openai:a: {input: 1, output: 2}\n  openai:b: {input: 1, output: 2}\n  openai:c: {input: 1, output: 2}\n openai:d: 1\n",
	},
}

// bomb is a billion laughs: ten aliases of ten, eight deep (10⁹ values).
func bomb() string {
	b := "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b += n + ": &" + n + " [" + strings.Repeat("*"+prev+", ", 9) + "*" + prev + "]\n"
		prev = n
	}
	return b
}

// TestOneYAMLRuleSet: every kind of user YAML file, read from its path as
// a run reads it, refuses the same mistakes with FILE:LINE: a key twice,
// a second document, a recursive alias (which once grew a run to 23.7 GB),
// an alias bomb, an unknown key (with a did-you-mean), a syntax error at
// the line of the mistake (yaml.v3 names the line its block began), a
// file over the size bound, and a path that is not a regular file (a FIFO
// with no writer, /dev/zero), each at once.
func TestOneYAMLRuleSet(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string { return writeFile(t, dir, name, body) }
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := write("huge.yaml", "# "+strings.Repeat("x", 9<<20)+"\n")
	for _, k := range yamlKinds {
		t.Run(k.kind, func(t *testing.T) {
			name := func(rule string) string { return strings.ReplaceAll(k.kind, " ", "-") + "-" + rule + ".yaml" }
			if err := k.load(write(name("valid"), k.valid)); err != nil {
				t.Fatalf("valid %s: %v", k.kind, err)
			}
			for _, tt := range []struct{ rule, body, want string }{
				{"dup", k.dup, k.dupAt},
				{"second", k.second, k.secondAt},
				{"recursive", k.recursive, k.recursiveAt},
				{"bomb", bomb(), ":6: too many values: with its aliases expanded the file holds more than 200000"},
				{"unknown", k.unknown, k.unknownAt + k.unknownMsg},
				{"syntax", k.deepSyntax, ":6: invalid YAML: "},
			} {
				path := write(name(tt.rule), tt.body)
				err := k.load(path)
				if err == nil || !strings.Contains(err.Error(), path+tt.want) {
					t.Errorf("%s: error %v\nwant it to contain %q", tt.rule, err, path+tt.want)
				}
			}
			for _, path := range []string{huge, fifo, "/dev/zero"} {
				start := time.Now()
				err := k.load(path)
				want := "not a regular file"
				if path == huge {
					want = "larger than"
				}
				if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: error %v, want one naming it and %q", path, err, want)
				}
				// A hang guard: a read of the FIFO would block for ever,
				// /dev/zero would never end.
				if d := time.Since(start); d > 30*time.Second {
					t.Errorf("%s: refused after %v, want at once", path, d)
				}
			}
		})
	}
}
