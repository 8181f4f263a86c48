package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestReleaseTagAgreesWithDocs: scripts/release-tag.sh, the release
// workflow's first step, takes a release tag of the major the README and the
// example workflows pin, and a pre-release of it (which leaves the major
// tag alone); it refuses, before anything is built or pushed, a tag of
// another major (v0.1.0 while the documents say @v1) and a tag that is no
// version at all.
func TestReleaseTagAgreesWithDocs(t *testing.T) {
	// The one major the documents pin.
	docs := map[string]bool{}
	uses := regexp.MustCompile(`mcp-eval/mcp-eval(/setup)?@(v[0-9]+)`)
	files, _ := filepath.Glob("examples/workflows/*.yml")
	for _, f := range append(files, "README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range uses.FindAllStringSubmatch(string(b), -1) {
			docs[m[2]] = true
		}
	}
	if len(docs) != 1 || !docs["v1"] {
		t.Fatalf("README.md and examples/workflows pin %v; want @v1 everywhere", docs)
	}
	for _, tt := range []struct {
		tag, want, fail string
	}{
		{tag: "v1.2.3", want: "version=v1.2.3\nmajor=v1\nprerelease=false\n"},
		{tag: "v1.3.0-rc.1", want: "version=v1.3.0-rc.1\nmajor=v1\nprerelease=true\n"},
		{tag: "v0.1.0", fail: "would move the tag v0, but README.md and examples/workflows pin v1"},
		{tag: "v2.0.0", fail: "would move the tag v2"},
		{tag: "v1.2", fail: "is not vX.Y.Z"},
		{tag: "v1.2.3-", fail: "is not vX.Y.Z"},
		{tag: "latest", fail: "is not vX.Y.Z"},
	} {
		cmd := exec.Command("bash", "scripts/release-tag.sh", tt.tag)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		switch {
		case tt.fail == "" && (err != nil || string(out) != tt.want):
			t.Errorf("%s: %v, %q; want %q\n%s", tt.tag, err, out, tt.want, stderr.String())
		case tt.fail != "" && (err == nil || !strings.Contains(stderr.String(), tt.fail)):
			t.Errorf("%s: %v, %q; want a refusal saying %q", tt.tag, err, stderr.String(), tt.fail)
		}
	}
}

// TestReleaseWorkflowHandlesPreReleases: the workflow checks the tag before
// it builds or pushes anything, moves the major tag only for a release,
// and publishes a pre-release as one; pin-image.sh and the setup action's
// installer take a pre-release version, which the trigger lets through.
func TestReleaseWorkflowHandlesPreReleases(t *testing.T) {
	b, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	checked, built := -1, -1
	for _, job := range wf.Jobs {
		for i, st := range job.Steps {
			switch {
			case strings.Contains(st.Run, `scripts/release-tag.sh "$GITHUB_REF_NAME" >> "$GITHUB_OUTPUT"`) && st.ID == "tag":
				checked = i
			case strings.Contains(st.Run, "scripts/release.sh") && built < 0:
				built = i
			case strings.Contains(st.Run, "git push -f origin"):
				if st.Env["PRERELEASE"] != "${{ steps.tag.outputs.prerelease }}" || st.Env["MAJOR"] != "${{ steps.tag.outputs.major }}" ||
					!strings.Contains(st.Run, `if [ "$PRERELEASE" != true ]; then`) || strings.Contains(st.Run, "%%.*") {
					t.Errorf("the tag step must move $MAJOR only when the tag is no pre-release:\n%s", st.Run)
				}
			case strings.Contains(st.Run, "gh release create"):
				if !strings.Contains(st.Run, "--prerelease") || st.Env["PRERELEASE"] == "" {
					t.Errorf("a pre-release must be published as one:\n%s", st.Run)
				}
			}
		}
	}
	if checked < 0 || built < 0 || checked > built {
		t.Errorf("the tag check (step %d) must come before the build (step %d)", checked, built)
	}

	dir := t.TempDir()
	action, setup := filepath.Join(dir, "action.yml"), filepath.Join(dir, "setup.yml")
	for src, dst := range map[string]string{"action.yml": action, "setup/action.yml": setup} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(dst, b, 0o644)
	}
	if out, err := exec.Command("bash", "scripts/pin-image.sh", "ghcr.io/mcp-eval/mcp-eval", "v1.3.0-rc.1",
		"sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", action, setup).CombinedOutput(); err != nil {
		t.Fatalf("pin-image.sh v1.3.0-rc.1: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(action); !strings.Contains(string(b), `image: "docker://ghcr.io/mcp-eval/mcp-eval@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" # v1.3.0-rc.1`) {
		t.Errorf("action.yml not pinned to the pre-release:\n%s", b)
	}
	// The installer takes the version: it fails at the download, not at
	// the version's form.
	cmd := exec.Command("bash", "setup/install.sh")
	cmd.Env = append(os.Environ(), "MCP_EVAL_VERSION=v1.3.0-rc.1", "MCP_EVAL_BASE_URL=http://127.0.0.1:1", "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"RUNNER_TEMP="+dir, "GITHUB_PATH="+filepath.Join(dir, "path"))
	if out, _ := cmd.CombinedOutput(); strings.Contains(string(out), "is not vX.Y.Z") {
		t.Errorf("install.sh refuses a pre-release version: %s", out)
	}
}

// TestReadmeInstallPaths: the README offers only what exists. Every
// `go install` of mcp-eval names an exact release (nothing resolves before
// v1.0.0, and @latest would then hide which one), the checklist says how to
// make the image public, as the release's own error does, and the
// verification commands are there.
func TestReadmeInstallPaths(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, m := range regexp.MustCompile(`go install github\.com/mcp-eval/mcp-eval@(\S+?)[`+"`"+`\s]`).FindAllStringSubmatch(readme, -1) {
		if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(m[1]) {
			t.Errorf("README: go install …@%s: name an exact release", m[1])
		}
	}
	script, err := os.ReadFile("scripts/release-image.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### Install", "**Before the first release**", "go build -o ~/.local/bin/mcp-eval .",
		"sha256sum --ignore-missing -c checksums.txt", "gh attestation verify mcp-eval_linux_amd64.tar.gz --repo mcp-eval/mcp-eval",
		"gh attestation verify oci://ghcr.io/mcp-eval/mcp-eval:v1.0.0", "### Releasing (maintainers)", "::error title=image not public::",
		"Change\n   visibility, Public"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q", want)
		}
	}
	for _, want := range []string{"::error title=image not public::", "Change visibility > Public", "Nothing was tagged or published"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("release-image.sh's private-package error lacks %q", want)
		}
	}
}
