package yamlfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestSyntax(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"tab indentation", "a: 1\n\tb: 2\n", 2, "found a tab character that violates indentation"},
		{"unclosed flow", "a: [1, 2\n", 1, "did not find expected ',' or ']'"},
		{"type error", "- a\n", 1, "cannot unmarshal !!seq into map[string]int"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v map[string]int
			err := yaml.Unmarshal([]byte(tt.src), &v)
			if err == nil {
				t.Fatal("yaml.v3 accepted the input")
			}
			line, msg := Syntax(err)
			if line != tt.line || !strings.Contains(msg, tt.msg) || strings.HasPrefix(msg, "yaml: ") {
				t.Errorf("Syntax(%q) = %d, %q; want line %d and a message with %q", err, line, msg, tt.line, tt.msg)
			}
		})
	}
	if line, msg := Syntax(errors.New("yaml: something else")); line != 0 || msg != "something else" {
		t.Errorf("Syntax without a line = %d, %q", line, msg)
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	_, err := Read(missing, 10, "golden file")
	var es Errors
	if !errors.As(err, &es) || len(es) != 1 || es.Error() != missing+": cannot read the golden file: no such file or directory" {
		t.Errorf("Read(missing) = %v; want one Error naming the file", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Too large is refused before a byte is read, naming both sizes.
	if _, err := Read(big, 10, "payload file"); err == nil || err.Error() != big+": cannot read the payload file: larger than 10 bytes (100 bytes): not the file meant, or split it" {
		t.Errorf("Read(big, 10) = %v", err)
	}
	if b, err := Read(big, 100, "payload file"); err != nil || len(b) != 100 {
		t.Errorf("Read(big, 100) = %d bytes, %v; want 100, nil", len(b), err)
	}
}

func TestDocument(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string
	}{
		{"empty", "", "f.yaml: the x file is empty; it needs version: 1"},
		{"only a comment", "# nothing\n", "f.yaml: the x file is empty; it needs version: 1"},
		{"syntax", "a: [1,\n", "f.yaml:1: invalid YAML: did not find expected node content"},
		{"two documents", "a: 1\n---\nb: 2\n", "f.yaml:2: a second YAML document (---); the x file must be one document"},
		{"one document", "a: 1\n", ""},
		{"too large", "a: 1\n" + strings.Repeat("#", 2<<20), "f.yaml: the x file is larger than 2 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, err := Document("f.yaml", []byte(tt.in), 2<<20, "the x file", "version: 1")
			if tt.want == "" {
				if err != nil || root == nil || root.Kind != yaml.MappingNode {
					t.Fatalf("Document = %v, %v; want the mapping", root, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Document error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	es := Errors{{File: "f.yaml", Line: 3, Msg: "bad"}, {File: "f.yaml", Msg: "worse"}}
	if got, want := es.Error(), "f.yaml:3: bad\nf.yaml: worse"; got != want {
		t.Errorf("Errors.Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(errors.Join(errors.New("loading"), es), &e) || e.Line != 3 {
		t.Errorf("errors.As does not find the first *Error in wrapped Errors: %v", e)
	}
}
