package action

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/github"
	"github.com/mcp-eval/mcp-eval/internal/option"
)

var update = flag.Bool("update", false, "rewrite action.yml's inputs and outputs and the README's tables from the registries")

// TestDocsFromRegistry keeps action.yml's inputs and outputs, and the
// README's flag, input and output tables, made from the registries: the
// option registry (app/config, github.Inputs.Declare) and github.Outputs.
// -update rewrites them.
func TestDocsFromRegistry(t *testing.T) {
	files := map[string]func(string) (string, error){
		"../../action.yml": func(s string) (string, error) {
			return splice(s, "# generated: begin\n", "# generated: end\n", actionYAML())
		},
		"../../README.md": func(s string) (string, error) {
			var err error
			for _, part := range []struct{ name, body string }{{"flags", flagTable()}, {"inputs", inputTable()}, {"outputs", outputTable()}} {
				if s, err = spliceMarked(s, part.name, part.body); err != nil {
					return "", err
				}
			}
			return s, nil
		},
	}
	for path, remake := range files {
		old, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remake(string(old))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got != string(old) {
			t.Errorf("%s is out of step with the registries; run go test ./app/action -run TestDocsFromRegistry -update", path)
		}
	}
}

// TestActionYAMLReadsBack: the generated action.yml declares exactly the
// inputs the action reads, each with a description and a default, and
// every output; no input is named args or entrypoint, which the runner
// would take as docker run's.
func TestActionYAMLReadsBack(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Description string  `yaml:"description"`
			Default     *string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Description string `yaml:"description"`
		} `yaml:"outputs"`
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	names := InputNames()
	for _, n := range names {
		in, ok := a.Inputs[n]
		if !ok || in.Description == "" || in.Default == nil {
			t.Errorf("action.yml: input %s missing, or without a description and a default", n)
		}
		if n == "args" || n == "entrypoint" {
			t.Errorf("input %q would be taken by the runner as docker run arguments", n)
		}
	}
	if len(a.Inputs) != len(names) {
		t.Errorf("action.yml declares %d inputs, the action reads %d", len(a.Inputs), len(names))
	}
	for _, o := range github.Outputs {
		if a.Outputs[o.Name].Description == "" {
			t.Errorf("action.yml: output %s missing or undescribed", o.Name)
		}
	}
	if len(a.Outputs) != len(github.Outputs) {
		t.Errorf("action.yml declares %d outputs, github.Outputs %d", len(a.Outputs), len(github.Outputs))
	}
}

// TestSecretInputsAreMasked: the inputs the registry marks secret are the
// ones whose values the action masks in the runner's log before anything
// else is printed, and no other input's value is masked.
func TestSecretInputsAreMasked(t *testing.T) {
	const value = "s3cr3t-value-0123"
	for _, d := range Inputs().Inputs() {
		name := d.InputName()
		v := value
		if d.Input.Lines {
			v = "X-Key: " + value
		}
		if d.IsBool() {
			continue
		}
		env := map[string]string{"INPUT_" + strings.ToUpper(name): v}
		in, err := github.ReadInputs(func(k string) string { return env[k] }, config.Options())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out bytes.Buffer
		if err := github.MaskInputs(&out, in); err != nil {
			t.Fatal(err)
		}
		if masked := strings.Contains(out.String(), "::add-mask::"+value); masked != d.Secret {
			t.Errorf("input %s: masked %v, but the registry says secret %v", name, masked, d.Secret)
		}
	}
}

// TestEveryScoreHasAnOutput: each score key report/names.go declares is
// an output of the Action, and each score output names a declared key.
func TestEveryScoreHasAnOutput(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../report/names.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Score") || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			keys = append(keys, strings.Trim(lit.Value, `"`))
		}
		return true
	})
	if len(keys) < 5 {
		t.Fatalf("found only %d score keys in report/names.go", len(keys))
	}
	var outs []string
	for _, o := range github.Outputs {
		if o.Score != "" {
			outs = append(outs, o.Score)
		}
	}
	for _, k := range keys {
		if !slices.Contains(outs, k) {
			t.Errorf("score %s has no output in github.Outputs", k)
		}
	}
	for _, k := range outs {
		if !slices.Contains(keys, k) {
			t.Errorf("output of score %s, which report/names.go does not declare", k)
		}
	}
}

// actionYAML is action.yml's inputs: and outputs: sections.
func actionYAML() string {
	var b strings.Builder
	b.WriteString("inputs:\n")
	for _, d := range Inputs().Inputs() {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    required: false\n    default: %s\n", d.InputName(), quote(inputDoc(d, true)), quote(d.Input.Default))
	}
	b.WriteString("\noutputs:\n")
	for _, o := range github.Outputs {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n", o.Name, quote(o.Doc))
	}
	return b.String()
}

// inputDoc is an input's description: its own, or the option's text as a
// sentence; withDefault adds the CLI's default of a flag-backed input,
// whose action.yml default is empty.
func inputDoc(d *option.Def, withDefault bool) string {
	doc := d.Input.Doc
	if doc == "" {
		t := d.Text()
		doc = strings.ToUpper(t[:1]) + t[1:] + "."
	}
	if def := d.DocDefault(); withDefault && d.Name != "" && d.Input.Default == "" && def != "" {
		doc = strings.TrimSuffix(doc, ".") + " (CLI default " + strings.ReplaceAll(def, "`", "") + ")."
	}
	return doc
}

// flagTable is the README's table of mcp-eval run's flags.
func flagTable() string {
	var b strings.Builder
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	for _, d := range config.Options().Defs() {
		if !d.For(option.Run) {
			continue
		}
		name := "--" + d.Name
		if arg, _ := flag.UnquoteUsage(&flag.Flag{Usage: d.Help, Value: d.Value}); arg != "" && arg != "value" && !d.IsBool() {
			name += " " + arg
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", name, cell(d.DocDefault()), cell(d.Text()))
	}
	return b.String()
}

// inputTable is the README's table of the Action's inputs.
func inputTable() string {
	var b strings.Builder
	b.WriteString("| input | default | meaning |\n|---|---|---|\n")
	for _, d := range Inputs().Inputs() {
		def := d.DocDefault()
		if d.Input.Default != "" || d.Name == "" {
			def = d.Input.Default
			if def != "" {
				def = "`" + def + "`"
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", d.InputName(), cell(def), cell(inputDoc(d, false)))
	}
	return b.String()
}

// outputTable is the README's table of the Action's outputs.
func outputTable() string {
	var b strings.Builder
	b.WriteString("| output | meaning |\n|---|---|\n")
	for _, o := range github.Outputs {
		fmt.Fprintf(&b, "| `%s` | %s |\n", o.Name, cell(o.Doc))
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// quote writes s as a YAML double-quoted scalar (JSON's escapes are
// YAML's).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// spliceMarked replaces what lies between <!-- name: … --> and
// <!-- end name --> with body.
func spliceMarked(s, name, body string) (string, error) {
	i := strings.Index(s, "<!-- "+name+":")
	if i < 0 {
		return "", fmt.Errorf("no <!-- %s: --> marker", name)
	}
	nl := strings.Index(s[i:], "\n")
	return splice(s, s[i:i+nl+1], "<!-- end "+name+" -->", body)
}

// splice replaces what lies between begin and end with body.
func splice(s, begin, end, body string) (string, error) {
	i := strings.Index(s, begin)
	j := strings.Index(s, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers %q … %q not found", begin, end)
	}
	return s[:i+len(begin)] + body + s[j:], nil
}

// TestHelpListsInputs: mcp-eval action --help lists every input, with its
// default where it has one, as host mode takes them.
func TestHelpListsInputs(t *testing.T) {
	var b bytes.Buffer
	PrintHelp(&b)
	for _, d := range Inputs().Inputs() {
		if !strings.Contains(b.String(), "\n  "+d.InputName()) {
			t.Errorf("action --help lacks input %s", d.InputName())
		}
	}
	for _, want := range []string{"  layers (default auto)\n", "  timeout (default 10s)\n", "  comment (default true)\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("action --help lacks %q:\n%s", want, b.String())
		}
	}
}
