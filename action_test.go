package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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

// releasedImage is runs.image on main (the latest release's tag, until the
// release workflow pins it) or at a release tag (its index by digest).
var releasedImage = regexp.MustCompile(`^docker://ghcr\.io/mcp-eval/mcp-eval(:v[0-9]+\.[0-9]+\.[0-9]+|@sha256:[0-9a-f]{64})$`)

// TestReleaseWorkflowPinsActionImage keeps action.yml and the release
// workflow in agreement: the workflow pushes the image action.yml names
// (same repository, both architectures, from the Dockerfile's release
// target, by scripts/release-image.sh), attests it, then rewrites action.yml
// to that image BY DIGEST before moving the tags, and publishes last: a
// draft with every asset first, then published (immutable releases take no
// asset and move no tag once published). The rewrite itself is run on a copy.
func TestReleaseWorkflowPinsActionImage(t *testing.T) {
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Env         map[string]string `yaml:"env"`
		Jobs        map[string]struct {
			Steps []struct {
				ID   string            `yaml:"id"`
				Name string            `yaml:"name"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
				Env  map[string]string `yaml:"env"`
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
	// actions/attest needs these (its README, Usage).
	for _, p := range []string{"id-token", "attestations", "artifact-metadata", "contents", "packages"} {
		if wf.Permissions[p] != "write" {
			t.Errorf("release.yml permissions: %s: %q, want write", p, wf.Permissions[p])
		}
	}
	pushed, attestArchives, attestImage, pinned, drafted, published := -1, -1, -1, -1, -1, -1
	for _, job := range wf.Jobs {
		for i, st := range job.Steps {
			switch {
			case strings.Contains(st.Run, `scripts/release-image.sh "$IMAGE" "$GITHUB_REF_NAME" >> "$GITHUB_OUTPUT"`) && st.ID == "image":
				pushed = i
			case strings.HasPrefix(st.Uses, "actions/attest@") && st.With["subject-checksums"] == "dist/checksums.txt":
				attestArchives = i
			case strings.HasPrefix(st.Uses, "actions/attest@") && st.With["subject-digest"] == "${{ steps.image.outputs.digest }}":
				attestImage = i
				if st.With["subject-name"] != "${{ env.IMAGE }}" || st.With["push-to-registry"] != "true" {
					t.Errorf("image attestation %v: want subject-name ${{ env.IMAGE }}, push-to-registry true", st.With)
				}
			case strings.Contains(st.Run, `scripts/pin-image.sh "$IMAGE" "$GITHUB_REF_NAME" "$DIGEST" action.yml setup/action.yml`):
				pinned = i
				if st.Env["DIGEST"] != "${{ steps.image.outputs.digest }}" {
					t.Errorf("the pin step's DIGEST is %q, want the image step's output", st.Env["DIGEST"])
				}
				if !strings.Contains(st.Run, `git tag -f "$GITHUB_REF_NAME"`) || !strings.Contains(st.Run, "git push -f origin") {
					t.Error("the pin step must move the release tag to the commit it makes")
				}
				// On a re-run, or a tag whose action.yml already names the
				// image, there is nothing to commit: that must not fail.
				if !strings.Contains(st.Run, "if ! git diff --quiet -- action.yml setup/action.yml; then") {
					t.Error("the pin step must commit only when action.yml changed (git commit exits 1 on nothing to commit)")
				}
			case strings.Contains(st.Run, "gh release create"):
				drafted = i
				if !strings.Contains(st.Run, "--draft") || !strings.Contains(st.Run, "--verify-tag") || !strings.Contains(st.Run, "dist/checksums.txt") {
					t.Errorf("the release must be created as a draft of the pushed tag, with its assets:\n%s", st.Run)
				}
			case strings.Contains(st.Run, "gh release edit") && strings.Contains(st.Run, "--draft=false"):
				published = i
			}
		}
	}
	order := []int{pushed, attestArchives, attestImage, pinned, drafted, published}
	if slices.Contains(order, -1) || !slices.IsSorted(order) {
		t.Errorf("steps: push image %d, attest archives %d, attest image %d, pin action.yml and move tags %d, draft with assets %d, publish %d: want them all, in that order",
			pushed, attestArchives, attestImage, pinned, drafted, published)
	}

	// Both actions name the same release.
	var cur, curSetup actionYAML
	readYAML(t, "action.yml", &cur)
	readYAML(t, "setup/action.yml", &curSetup)
	if want := "docker://" + image + ":" + curSetup.defaultOf("version"); strings.Contains(cur.Runs.Image, ":v") && cur.Runs.Image != want {
		t.Errorf("action.yml runs %q but setup/action.yml installs %q: pin both to one release", cur.Runs.Image, curSetup.defaultOf("version"))
	}

	// The rewrite, on a copy: only runs.image changes, to the digest with
	// the tag in a comment; a second run changes nothing.
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
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for range 2 {
		if out, err := exec.Command("bash", "scripts/pin-image.sh", image, "v9.8.7", digest, cp, setupCp).CombinedOutput(); err != nil {
			t.Fatalf("pin-image.sh: %v\n%s", err, out)
		}
	}
	got, _ := os.ReadFile(cp)
	var a actionYAML
	readYAML(t, cp, &a)
	if a.Runs.Image != "docker://"+image+"@"+digest || !releasedImage.MatchString(a.Runs.Image) ||
		!bytes.Contains(got, []byte(`  image: "docker://`+image+"@"+digest+`" # v9.8.7`+"\n")) {
		t.Errorf("after pin-image.sh, runs.image = %q\n%s", a.Runs.Image, got)
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
	for _, bad := range [][2]string{{"latest", digest}, {"v9.8.7", "v9.8.7"}, {"v9.8.7", "sha256:abc"}} {
		if out, err := exec.Command("bash", "scripts/pin-image.sh", image, bad[0], bad[1], cp, setupCp).CombinedOutput(); err == nil {
			t.Errorf("pin-image.sh accepted version %s digest %s: %s", bad[0], bad[1], out)
		}
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
				Needs       any            `yaml:"needs"`
				Permissions map[string]any `yaml:"permissions"`
				Strategy    struct {
					Matrix map[string]any `yaml:"matrix"`
				} `yaml:"strategy"`
				Concurrency struct {
					Group  string `yaml:"group"`
					Cancel string `yaml:"cancel-in-progress"`
				} `yaml:"concurrency"`
				Steps []struct {
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
		groups := map[string]struct{ group, cancel string }{"(workflow)": {wf.Concurrency.Group, wf.Concurrency.Cancel}}
		if pr, ok := wf.On["pull_request"].(map[string]any); ok && strings.Contains(fmt.Sprint(pr["types"]), "labeled") {
			// GitHub claims a workflow-level group before it evaluates a
			// job's if:, so adding any other label would cancel a running
			// evaluation (and leave a skipped job, which satisfies a
			// required check). Label-triggered examples keep their group on
			// each job, which a skipped job never claims.
			if wf.Concurrency.Group != "" {
				t.Errorf("%s: a workflow-level concurrency group in a label-triggered workflow: any other label cancels a running evaluation; put it on the job", file)
			}
			delete(groups, "(workflow)")
			for name, job := range wf.Jobs {
				if job.If == "" && job.Needs == nil {
					t.Errorf("%s job %s: no if: runs it for every label", file, name)
				}
				if job.If != "" && !strings.Contains(job.If, "github.event.label.name == 'run-evals'") {
					t.Errorf("%s job %s: a labeled event must re-run only for the run-evals label (if: %q)", file, name, job.If)
				}
				groups[name] = struct{ group, cancel string }{job.Concurrency.Group, job.Concurrency.Cancel}
				// Matrix legs in one group would cancel each other.
				if len(job.Strategy.Matrix) > 0 && !strings.Contains(job.Concurrency.Group, "matrix.") {
					t.Errorf("%s job %s: a matrix job's group %q must name the matrix", file, name, job.Concurrency.Group)
				}
			}
		}
		if _, ok := wf.On["schedule"]; ok {
			for where, c := range groups {
				if !strings.Contains(c.group, "github.event_name == 'schedule'") || !strings.Contains(c.group, "github.run_id") {
					t.Errorf("%s %s: concurrency group %q lets a push share (and cancel) the nightly run's group", file, where, c.group)
				}
				if c.cancel != "${{ github.event_name == 'pull_request' }}" {
					t.Errorf("%s %s: cancel-in-progress %q, want pull requests only", file, where, c.cancel)
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
