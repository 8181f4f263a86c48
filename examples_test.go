//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// fakeGH is a gh that answers what the fork-comment step asks: the pull
// request of the head commit, the comments of FAKE_GH_COMMENTS (filtered
// with the step's own --jq, by jq), and records an edit or a new comment.
const fakeGH = `#!/usr/bin/env bash
printf '%s\n' "$*" >> "$FAKE_GH_DIR/log"
case "$1 $2" in
"pr list") echo 42 ;;
"api --paginate") jq -r "$5" "$FAKE_GH_DIR/comments.json" ;;
"api -X") echo "$4" > "$FAKE_GH_DIR/patched"; cp "${6#body=@}" "$FAKE_GH_DIR/body" ;;
"pr comment") echo new > "$FAKE_GH_DIR/created"; cp "$5" "$FAKE_GH_DIR/body" ;;
*) exit 1 ;;
esac
`

// TestForkCommentEditsOwnComment runs the fork-comment example's step with
// a fake gh: it edits the comment that carries its marker and was written
// by its own identity, never the newest comment that bot wrote for
// something else nor a person's quote of the marker; with none it creates
// one. The comment names the workflow and the run it is about.
func TestForkCommentEditsOwnComment(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (apt-get install jq); the step's --jq filter needs it here")
	}
	b, err := os.ReadFile("examples/workflows/mcp-eval-fork-comment.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	var script, marker string
	for _, st := range wf.Jobs["comment"].Steps {
		if strings.Contains(st.Run, "gh pr comment") {
			script, marker = st.Run, st.Env["MARKER"]
		}
	}
	if script == "" || !strings.HasPrefix(marker, "<!-- mcp-eval:fork-comment") {
		t.Fatalf("no comment step with a marker in the example (marker %q)", marker)
	}
	ours := `{"id": 11, "user": {"login": "github-actions[bot]"}, "body": "` + marker + `\nthe old summary"}`
	other := `{"id": 12, "user": {"login": "github-actions[bot]"}, "body": "coverage: 81%"}`
	quoted := `{"id": 13, "user": {"login": "octocat"}, "body": "` + marker + `\nquoting it"}`
	for _, tt := range []struct {
		name, comments, patched string
	}{
		{"edits its own", "[" + ours + "," + other + "," + quoted + "]", "repos/acme/server/issues/comments/11"},
		{"creates one", "[" + other + "," + quoted + "]", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
			os.MkdirAll(filepath.Join(dir, "report"), 0o755)
			os.WriteFile(filepath.Join(dir, "bin", "gh"), []byte(fakeGH), 0o755)
			os.WriteFile(filepath.Join(dir, "comments.json"), []byte(tt.comments), 0o644)
			os.WriteFile(filepath.Join(dir, "report", "summary.md"), []byte("## ✅ mcp-eval passed\n"), 0o644)
			cmd := exec.Command("bash", "-e", "-c", script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Join(dir, "bin")+":"+os.Getenv("PATH"), "FAKE_GH_DIR="+dir,
				"GH_TOKEN=t", "GH_REPO=acme/server", "HEAD_SHA=0123abc", "RUN_URL=https://github.com/acme/server/actions/runs/9",
				"RUN_NUMBER=7", "WORKFLOW=mcp-eval", "MARKER="+marker)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the step failed: %v\n%s", err, out)
			}
			patched, _ := os.ReadFile(filepath.Join(dir, "patched"))
			_, createErr := os.Stat(filepath.Join(dir, "created"))
			switch {
			case tt.patched != "" && strings.TrimSpace(string(patched)) != tt.patched:
				t.Errorf("edited %q, want %s", patched, tt.patched)
			case tt.patched == "" && (len(patched) > 0 || createErr != nil):
				t.Errorf("edited %q, created %v; want a new comment", patched, createErr == nil)
			}
			body, _ := os.ReadFile(filepath.Join(dir, "body"))
			if !strings.HasPrefix(string(body), marker+"\n") || !strings.Contains(string(body), "mcp-eval · fork run [#7](https://github.com/acme/server/actions/runs/9)") ||
				!strings.Contains(string(body), "mcp-eval passed") {
				t.Errorf("comment body:\n%s", body)
			}
		})
	}
}
