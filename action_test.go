package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestActionYAML: action.yml runs the released image, and the README
// documents its inputs and outputs. The inputs and outputs themselves are
// made from the registries (app/action's TestDocsFromRegistry).
func TestActionYAML(t *testing.T) {
	var a actionYAML
	readYAML(t, "action.yml", &a)
	checkActionDocs(t, "action.yml", a)
	if a.Runs.Using != "docker" || !releasedImage.MatchString(a.Runs.Image) || len(a.Runs.Args) != 1 || a.Runs.Args[0] != "action" {
		t.Errorf("runs: %+v; want docker, a released docker://ghcr.io/mcp-eval/mcp-eval:vX.Y.Z (never a Dockerfile: no compile at job start), args [action]", a.Runs)
	}
}

// actionYAML is an action.yml as the tests read it: the Docker action's
// and the setup action's (a composite one).
type actionYAML struct {
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string   `yaml:"using"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Steps []struct {
			Shell string            `yaml:"shell"`
			Run   string            `yaml:"run"`
			Env   map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// defaultOf is the default of input name ("" when it has none).
func (a *actionYAML) defaultOf(name string) string {
	if d := a.Inputs[name].Default; d != nil {
		return *d
	}
	return ""
}

// readYAML decodes the YAML file at path into v.
func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// checkActionDocs: every input of the action at file has a description, a
// default and a row in the README's table, and the README names every
// output.
func checkActionDocs(t *testing.T, file string, a actionYAML) {
	t.Helper()
	readme, _ := os.ReadFile("README.md")
	for name, in := range a.Inputs {
		if in.Description == "" || in.Default == nil {
			t.Errorf("%s: input %s needs a description and a default", file, name)
		}
		if !bytes.Contains(readme, []byte("| `"+name+"` |")) {
			t.Errorf("README's table of %s lacks input %s", file, name)
		}
	}
	for name := range a.Outputs {
		if !bytes.Contains(readme, []byte("`"+name+"`")) {
			t.Errorf("README does not document output %s of %s", name, file)
		}
	}
}

// TestSetupActionYAML keeps setup/action.yml and the README's setup
// table in step, and its one step on the install script.
func TestSetupActionYAML(t *testing.T) {
	var a actionYAML
	readYAML(t, "setup/action.yml", &a)
	checkActionDocs(t, "setup/action.yml", a)
	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 1 || a.Runs.Steps[0].Shell != "bash" ||
		!strings.Contains(a.Runs.Steps[0].Run, `"$GITHUB_ACTION_PATH/install.sh"`) ||
		a.Runs.Steps[0].Env["MCP_EVAL_VERSION"] != "${{ inputs.version }}" {
		t.Errorf("setup runs: %+v", a.Runs)
	}
}

var releasedImage = regexp.MustCompile(`^docker://ghcr\.io/mcp-eval/mcp-eval:v[0-9]+\.[0-9]+\.[0-9]+$`)

// TestReleaseWorkflowPinsActionImage keeps action.yml and the release
// workflow in agreement: the workflow pushes the image action.yml names
// (same repository, tagged with the release tag, both architectures, from
// the Dockerfile's release target), then rewrites action.yml to it before
// moving the tags and publishing. The rewrite itself is run on a copy.
func TestReleaseWorkflowPinsActionImage(t *testing.T) {
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			Steps []struct {
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, ".github/workflows/release.yml", &wf)
	image := wf.Env["IMAGE"]
	if image != "ghcr.io/mcp-eval/mcp-eval" {
		t.Fatalf("release.yml env IMAGE = %q, want the repository action.yml names", image)
	}
	if len(wf.On.Push.Tags) != 1 || wf.On.Push.Tags[0] != "v*.*.*" {
		t.Errorf("release.yml must run on vX.Y.Z tags, has %v", wf.On.Push.Tags)
	}
	pushed, pinned, published := -1, -1, -1
	for _, job := range wf.Jobs {
		for i, st := range job.Steps {
			switch {
			case strings.HasPrefix(st.Uses, "docker/build-push-action@"):
				pushed = i
				if st.With["target"] != "release" || st.With["push"] != "true" ||
					!strings.Contains(st.With["platforms"], "linux/amd64") || !strings.Contains(st.With["platforms"], "linux/arm64") ||
					st.With["tags"] != "${{ env.IMAGE }}:${{ github.ref_name }}" {
					t.Errorf("image step %v: want target release, push, amd64+arm64, tag ${{ env.IMAGE }}:${{ github.ref_name }}", st.With)
				}
			case strings.Contains(st.Run, `scripts/pin-image.sh "$IMAGE" "$GITHUB_REF_NAME" action.yml setup/action.yml`):
				pinned = i
				if !strings.Contains(st.Run, `git tag -f "$GITHUB_REF_NAME"`) || !strings.Contains(st.Run, "git push -f origin") {
					t.Error("the pin step must move the release tag to the commit it makes")
				}
			case strings.Contains(st.Run, "gh release create"):
				published = i
			}
		}
	}
	if pushed < 0 || pinned < 0 || published < 0 || !(pushed < pinned && pinned < published) {
		t.Errorf("steps: push image %d, pin action.yml %d, publish %d: want them all, in that order", pushed, pinned, published)
	}

	// Both actions name the same release.
	var cur, curSetup actionYAML
	readYAML(t, "action.yml", &cur)
	readYAML(t, "setup/action.yml", &curSetup)
	if want := "docker://" + image + ":" + curSetup.defaultOf("version"); cur.Runs.Image != want {
		t.Errorf("action.yml runs %q but setup/action.yml installs %q: pin both to one release", cur.Runs.Image, curSetup.defaultOf("version"))
	}

	// The rewrite, on a copy: only runs.image changes.
	orig, err := os.ReadFile("action.yml")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cp, setupCp := filepath.Join(tmp, "action.yml"), filepath.Join(tmp, "setup.yml")
	os.WriteFile(cp, orig, 0o644)
	setupOrig, err := os.ReadFile("setup/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(setupCp, setupOrig, 0o644)
	if out, err := exec.Command("bash", "scripts/pin-image.sh", image, "v9.8.7", cp, setupCp).CombinedOutput(); err != nil {
		t.Fatalf("pin-image.sh: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(cp)
	var a actionYAML
	readYAML(t, cp, &a)
	if a.Runs.Image != "docker://"+image+":v9.8.7" {
		t.Errorf("after pin-image.sh, runs.image = %q", a.Runs.Image)
	}
	ol, gl := strings.Split(string(orig), "\n"), strings.Split(string(got), "\n")
	if len(ol) != len(gl) {
		t.Fatalf("pin-image.sh changed the line count: %d → %d", len(ol), len(gl))
	}
	changed := 0
	for i := range ol {
		if ol[i] != gl[i] {
			changed++
		}
	}
	if changed > 1 {
		t.Errorf("pin-image.sh changed %d lines, want only runs.image", changed)
	}
	var setup actionYAML
	readYAML(t, setupCp, &setup)
	if v := setup.defaultOf("version"); v != "v9.8.7" {
		t.Errorf("after pin-image.sh, the setup action installs %q by default, want v9.8.7", v)
	}
	if out, err := exec.Command("bash", "scripts/pin-image.sh", image, "latest", cp, setupCp).CombinedOutput(); err == nil {
		t.Errorf("pin-image.sh accepted version latest: %s", out)
	}
}

// TestExampleWorkflows holds the example workflows to what the README
// promises: third-party actions pinned by full commit SHA, no permissions
// at the top and the least per job, a concurrency group that a push can
// never use to cancel the nightly run, and labeled events that re-run the
// job only for the eval label.
func TestExampleWorkflows(t *testing.T) {
	files, err := filepath.Glob("examples/workflows/*.yml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example workflows: %v %v", files, err)
	}
	ci, _ := filepath.Glob(".github/workflows/*.yml")
	pinned := regexp.MustCompile(`^[\w.-]+/[\w./-]+@[0-9a-f]{40}$`)
	for _, file := range append(files, ci...) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On          map[string]any `yaml:"on"`
			Permissions any            `yaml:"permissions"`
			Concurrency struct {
				Group  string `yaml:"group"`
				Cancel string `yaml:"cancel-in-progress"`
			} `yaml:"concurrency"`
			Jobs map[string]struct {
				If          string         `yaml:"if"`
				Permissions map[string]any `yaml:"permissions"`
				Steps       []struct {
					Uses string `yaml:"uses"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(b, &wf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for name, job := range wf.Jobs {
			for _, st := range job.Steps {
				if st.Uses == "" || strings.HasPrefix(st.Uses, "mcp-eval/mcp-eval") || strings.HasPrefix(st.Uses, "./") {
					continue
				}
				if !pinned.MatchString(st.Uses) {
					t.Errorf("%s job %s: %s is not pinned by a full commit SHA", file, name, st.Uses)
				}
			}
			if strings.HasPrefix(file, "examples/") && job.Permissions == nil {
				t.Errorf("%s job %s: no permissions block (the least it needs)", file, name)
			}
		}
		if !strings.HasPrefix(file, "examples/") {
			continue
		}
		if p, ok := wf.Permissions.(map[string]any); !ok || len(p) != 0 {
			t.Errorf("%s: top-level permissions %v, want {} (each job names its own)", file, wf.Permissions)
		}
		if _, ok := wf.On["schedule"]; ok {
			if !strings.Contains(wf.Concurrency.Group, "github.event_name == 'schedule'") || !strings.Contains(wf.Concurrency.Group, "github.run_id") {
				t.Errorf("%s: concurrency group %q lets a push share (and cancel) the nightly run's group", file, wf.Concurrency.Group)
			}
			if wf.Concurrency.Cancel != "${{ github.event_name == 'pull_request' }}" {
				t.Errorf("%s: cancel-in-progress %q, want pull requests only", file, wf.Concurrency.Cancel)
			}
		}
		if pr, ok := wf.On["pull_request"].(map[string]any); ok && strings.Contains(fmt.Sprint(pr["types"]), "labeled") {
			for name, job := range wf.Jobs {
				if job.If != "" && !strings.Contains(job.If, "github.event.label.name == 'run-evals'") {
					t.Errorf("%s job %s: a labeled event must re-run only for the run-evals label (if: %q)", file, name, job.If)
				}
			}
		}
	}
}

// TestExampleWorkflowsIDToken: id-token: write, which lets a job mint
// tokens in the repository's name, appears only where a job uses
// oauth-federation, and each OAuth example skips fork pull requests, which
// get neither secrets nor that permission.
func TestExampleWorkflowsIDToken(t *testing.T) {
	files, _ := filepath.Glob("examples/workflows/*.yml")
	federation := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		uses := strings.Contains(s, "oauth-federation: github")
		if strings.Contains(s, "id-token: write") != uses {
			t.Errorf("%s: id-token: write %v, oauth-federation %v: the permission belongs to the federation example only", f, strings.Contains(s, "id-token: write"), uses)
		}
		if uses {
			federation++
		}
		if strings.Contains(s, "oauth-") && !strings.Contains(s, "github.event.pull_request.head.repo.full_name == github.repository") {
			t.Errorf("%s: an OAuth example must skip fork pull requests", f)
		}
	}
	if federation != 1 {
		t.Errorf("%d federation examples, want 1", federation)
	}
}
