// Package spectest finds the official MCP JSON schemas for tests. They are
// not part of the repository (the project keeps them beside it, in
// ../shared/spec/<version>/schema.json), so a fresh clone has none: tests
// that need them skip with one line saying how to enable them, except where
// MCP_EVAL_REQUIRE_SPEC=1 (set by .ci/run), where a missing schema fails.
//
// It imports testing and is meant for _test.go files only.
package spectest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// specRepo is where the official schemas are published, as
// schema/<version>/schema.json.
const specRepo = "https://github.com/modelcontextprotocol/modelcontextprotocol"

// Environment variables read by Schema.
const (
	// EnvDir names a folder holding <version>/schema.json.
	EnvDir = "MCP_EVAL_SPEC_DIR"
	// EnvRequire, set to 1, makes a missing schema a test failure.
	EnvRequire = "MCP_EVAL_REQUIRE_SPEC"
)

// Schema returns the path of the official schema.json of version (such as
// "2026-07-28"). It looks in $MCP_EVAL_SPEC_DIR, else in ../shared/spec
// beside the module root. When neither has it, the test is skipped, or
// failed under MCP_EVAL_REQUIRE_SPEC=1.
func Schema(tb testing.TB, version string) string {
	tb.Helper()
	path, tried := find(version)
	if path != "" {
		return path
	}
	msg := "official MCP schema " + version + " not found (" + tried + "); to run this test, get the schemas with " +
		"`git clone --depth 1 " + specRepo + " /tmp/mcp-spec` and set " + EnvDir + "=/tmp/mcp-spec/schema " +
		"(any folder holding <version>/schema.json)"
	if os.Getenv(EnvRequire) == "1" {
		tb.Fatalf("%s (%s=1: the schema tests must run here)", msg, EnvRequire)
	}
	tb.Skip(msg)
	return ""
}

func find(version string) (path, tried string) {
	if dir := os.Getenv(EnvDir); dir != "" {
		p := filepath.Join(dir, version, "schema.json")
		if isFile(p) {
			return p, ""
		}
		return "", EnvDir + "=" + dir + " has no " + filepath.Join(version, "schema.json")
	}
	root := moduleRoot()
	if root == "" {
		return "", "no go.mod above the working directory, " + EnvDir + " unset"
	}
	p := filepath.Join(filepath.Dir(root), "shared", "spec", version, "schema.json")
	if isFile(p) {
		return p, ""
	}
	return "", "no " + p + ", " + EnvDir + " unset"
}

// moduleRoot is the nearest folder above the working directory with a
// go.mod that declares no nested module of its own (examples are packages
// of the one module).
func moduleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// CompileDoc compiles one of the project's own JSON Schemas (docs/*.json,
// path as the test sees it) as draft 2020-12 under its published URL,
// with no loader beyond the document itself, and returns the schema at
// fragment ("" for the root, "#/$defs/Case" for a definition).
func CompileDoc(tb testing.TB, path, fragment string) *jsonschema.Schema {
	tb.Helper()
	url := "https://github.com/mcp-eval/mcp-eval/raw/main/docs/" + filepath.Base(path)
	return CompileFile(tb, path, url, fragment, func(c *jsonschema.Compiler) { c.DefaultDraft(jsonschema.Draft2020) })
}

// CompileFile compiles the JSON Schema in the file at path under url, with
// no loader beyond the document itself, and returns the schema at
// fragment. setup, when set, configures the compiler first (a default
// draft, format assertions).
func CompileFile(tb testing.TB, path, url, fragment string, setup func(*jsonschema.Compiler)) *jsonschema.Schema {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	c := jsonschema.NewCompiler()
	if setup != nil {
		setup(c)
	}
	if err := c.AddResource(url, doc); err != nil {
		tb.Fatal(err)
	}
	s, err := c.Compile(url + fragment)
	if err != nil {
		tb.Fatalf("%s%s: %v", path, fragment, err)
	}
	return s
}
