//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"gopkg.in/yaml.v3"
)

// The release workflow end to end: .github/workflows/release.yml, its steps
// run as actions/runner runs them, against a local bare git origin holding
// this working tree as main, and a real OCI registry (the distribution
// project's, built from its Go module by .ci/install-deps.sh) on loopback
// standing in for ghcr.io. Three tags in a row, v1.0.0 on today's main (whose
// action.yml already names the v1.0.0 tag), v1.1.0 on a later main, and
// v1.2.0-rc.1, each publish archives with checksums, a multi-arch image
// pulled back anonymously by digest, attestations, action.yml at the moved
// tag naming that digest, and v1 moved for releases only. A registry that
// refuses anonymous pulls (a private package) fails the release before any
// tag moves.
//
// What differs from a GitHub runner, and why:
//   - `run:` steps run exactly (bash -e {0}, the runner's default shell,
//     ScriptHandler.cs), with the runner's variables and file commands.
//   - `uses:` steps are done by the stand-ins below: actions/checkout as a
//     depth-1 fetch of the tag, setup-go as the machine's go, login-action as
//     `docker login`, and actions/attest (which needs Sigstore and GitHub's
//     attestation API, out of reach here) checks its inputs name the pushed
//     archives and image and records its place in the order.
//   - `gh` is a stand-in that keeps releases in a directory and refuses what
//     GitHub refuses (a tag not on the origin with --verify-tag, a release
//     made twice, an edit of a missing one, assets once published).
//   - ghcr.io in the workflow's IMAGE and the login's registry is the loopback
//     registry; the base image is a locally made multi-arch one
//     (MCP_EVAL_BASE_IMAGE); the archives are the two Linux ones the image
//     needs (MCP_EVAL_TARGETS), since each further target is a full
//     cross-compile on this 2-core machine.

// registryPassword's bcrypt hash is the private registry's htpasswd line.
const (
	registryUser     = "release-bot"
	registryPassword = "ghs_release0123456789"
	registryHtpasswd = "release-bot:$2a$10$ewJVEA1J0iJTxv5fB0HZe.3gZ40q1bgb7t/MDIPGI3ZkKp1meUgBG\n"
)

// requireRegistry returns the registry binary: MCP_EVAL_REGISTRY, else
// $MCP_EVAL_DEPS/bin/registry; it skips with one line when there is none.
func requireRegistry(t *testing.T) string {
	t.Helper()
	// Minutes of builds and pushes: run by .ci/run's Docker step, not by
	// every go test ./... on a machine that happens to have Docker.
	if os.Getenv("MCP_EVAL_RELEASE_E2E") != "1" {
		t.Skip("the release emulation runs with MCP_EVAL_RELEASE_E2E=1 (.ci/run sets it)")
	}
	bin := os.Getenv("MCP_EVAL_REGISTRY")
	if bin == "" && os.Getenv("MCP_EVAL_DEPS") != "" {
		bin = filepath.Join(os.Getenv("MCP_EVAL_DEPS"), "bin", "registry")
	}
	if bin == "" {
		t.Skip("no MCP_EVAL_REGISTRY or MCP_EVAL_DEPS: the release emulation needs the OCI registry .ci/install-deps.sh builds")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no registry at %s (bash .ci/install-deps.sh builds it): %v", bin, err)
	}
	return bin
}

type localRegistry struct{ host string }

// startRegistry runs the distribution registry on a free loopback port,
// storage in a temporary directory; with htpasswd, every request (pulls
// too) needs those credentials.
func startRegistry(t *testing.T, bin string, htpasswd string) localRegistry {
	t.Helper()
	dir := t.TempDir()
	addr := apptest.FreeAddr(t)
	auth := ""
	if htpasswd != "" {
		os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(htpasswd), 0o600)
		auth = fmt.Sprintf("auth:\n  htpasswd:\n    realm: test\n    path: %s\n", filepath.Join(dir, "htpasswd"))
	}
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: %s\n  delete:\n    enabled: true\nhttp:\n  addr: %s\n%s",
		filepath.Join(dir, "data"), addr, auth)
	os.WriteFile(filepath.Join(dir, "config.yml"), []byte(cfg), 0o644)
	var log bytes.Buffer
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.yml"))
	cmd.Stdout, cmd.Stderr = &log, &log
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return localRegistry{host: addr}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the registry did not listen on %s: %v\n%s", addr, err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// manifest fetches ref (a tag or a digest) of repo from the registry as a
// client that takes an index or a single manifest: the body and its digest.
func (r localRegistry) manifest(t *testing.T, repo, ref string) (map[string]any, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://"+r.host+"/v2/"+repo+"/manifests/"+ref, nil)
	req.Header.Set("Accept", strings.Join([]string{
		"application/vnd.oci.image.index.v1+json", "application/vnd.docker.distribution.manifest.list.v2+json",
		"application/vnd.oci.image.manifest.v1+json", "application/vnd.docker.distribution.manifest.v2+json"}, ", "))
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&m); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET manifest %s:%s: %s, %v", repo, ref, resp.Status, err)
	}
	return m, resp.Header.Get("Docker-Content-Digest")
}

// git runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Maintainer", "GIT_AUTHOR_EMAIL=m@example.com",
		"GIT_COMMITTER_NAME=Maintainer", "GIT_COMMITTER_EMAIL=m@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// newOrigin is a bare repository whose main is this working tree as it is
// (committed or not; .gitignore honoured), with a post-receive hook that
// logs each pushed ref to events.
func newOrigin(t *testing.T, events string) string {
	t.Helper()
	origin := filepath.Join(t.TempDir(), "origin.git")
	root := apptest.Root(t)
	gitIn(t, root, "init", "-q", "--bare", "-b", "main", origin)
	gitIn(t, root, "--git-dir", origin, "--work-tree", root, "add", "-A")
	gitIn(t, root, "--git-dir", origin, "--work-tree", root, "commit", "-q", "-m", "main as in this working tree")
	hook := "#!/bin/sh\nwhile read old new ref; do echo \"push $ref\" >> '" + events + "'; done\n"
	os.WriteFile(filepath.Join(origin, "hooks", "post-receive"), []byte(hook), 0o755)
	return origin
}

// commitOnMain adds a commit to origin's main, as a merged pull request
// would, through a clone.
func commitOnMain(t *testing.T, origin, file, line string) {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	gitIn(t, filepath.Dir(clone), "clone", "-q", "--depth", "1", "file://"+origin, clone)
	f, _ := os.OpenFile(filepath.Join(clone, file), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line + "\n")
	f.Close()
	gitIn(t, clone, "commit", "-q", "-am", "a change on main")
	gitIn(t, clone, "push", "-q", "origin", "main")
}

// fakeReleaseGH keeps releases under $GH_FAKE_DIR/releases/TAG: create
// (--draft, --prerelease, --verify-tag against origin, assets) and edit
// --draft=false; GitHub's refusals are its refusals.
const fakeReleaseGH = `#!/usr/bin/env bash
set -euo pipefail
[ -n "${GH_TOKEN:-}" ] || { echo "gh: not logged in (GH_TOKEN unset)" >&2; exit 4; }
[ "$1 $2" = "release create" ] || [ "$1 $2" = "release edit" ] || { echo "gh: unexpected: $*" >&2; exit 1; }
verb=$2 tag=$3; shift 3
rel=$GH_FAKE_DIR/releases/$tag
draft=false prerelease=false verify=false assets=()
while [ $# -gt 0 ]; do
	case $1 in
	--draft | --draft=true) draft=true ;;
	--draft=false) draft=false ;;
	--prerelease) prerelease=true ;;
	--verify-tag) verify=true ;;
	--generate-notes) ;;
	--title) shift ;;
	-*) echo "gh: unknown flag $1" >&2; exit 1 ;;
	*) assets+=("$1") ;;
	esac
	shift
done
if [ "$verb" = create ]; then
	[ ! -e "$rel" ] || { echo "HTTP 422: Validation Failed (already_exists: tag_name)" >&2; exit 1; }
	if [ "$verify" = true ] && ! git ls-remote --exit-code origin "refs/tags/$tag" >/dev/null; then
		echo "tag $tag doesn't exist in the repo, aborting due to --verify-tag flag" >&2; exit 1
	fi
	mkdir -p "$rel/assets"
	for a in "${assets[@]}"; do cp "$a" "$rel/assets/"; done
	echo "$prerelease" > "$rel/prerelease"
	if [ "$draft" = true ]; then echo draft > "$rel/state"; else echo published > "$rel/state"; fi
	echo "gh release create $tag $(cat "$rel/state") ${#assets[@]} assets" >> "$GH_FAKE_EVENTS"
else
	[ -e "$rel" ] || { echo "release not found" >&2; exit 1; }
	[ "$(cat "$rel/state")" = draft ] || { echo "HTTP 422: Cannot modify an immutable release" >&2; exit 1; }
	[ ${#assets[@]} -eq 0 ] || { echo "gh: edit takes no assets" >&2; exit 1; }
	if [ "$draft" = false ]; then
		echo published > "$rel/state"
		git ls-remote origin "refs/tags/$tag" | cut -f1 > "$rel/tag-commit"
		echo "gh release publish $tag" >> "$GH_FAKE_EVENTS"
	fi
fi
`

type wfStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

type releaseWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Steps []wfStep `yaml:"steps"`
	} `yaml:"jobs"`
}

// releaseRunner runs release.yml for one tag push.
type releaseRunner struct {
	origin, registryHost, baseImage string
	ghDir, events                   string
	password                        string
}

// emulatedRun is one workflow run's result.
type emulatedRun struct {
	failedStep string // "" when every step passed
	log        string
	workspace  string
}

var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func (rr releaseRunner) run(t *testing.T, tag string) emulatedRun {
	t.Helper()
	b, err := os.ReadFile(".github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf releaseWorkflow
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.Jobs) != 1 {
		t.Fatalf("release.yml has %d jobs; the emulation runs one", len(wf.Jobs))
	}
	root := t.TempDir()
	ws := filepath.Join(root, "work", "mcp-eval", "mcp-eval")
	temp := filepath.Join(root, "work", "_temp")
	home := filepath.Join(root, "home")
	bin := filepath.Join(root, "bin")
	for _, d := range []string{ws, temp, home, bin} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(bin, "gh"), []byte(fakeReleaseGH), 0o755)
	sha := gitIn(t, root, "--git-dir", rr.origin, "rev-parse", "refs/tags/"+tag+"^{commit}")

	goenv := func(k string) string {
		out, _ := exec.Command("go", "env", k).Output()
		return strings.TrimSpace(string(out))
	}
	base := []string{
		"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8",
		// The Go caches of this machine (HOME moved): a warm runner's.
		"GOCACHE=" + goenv("GOCACHE"), "GOMODCACHE=" + goenv("GOMODCACHE"), "GOPATH=" + goenv("GOPATH"),
		"GOPROXY=" + goenv("GOPROXY"), "GOFLAGS=" + goenv("GOFLAGS"), "GOTOOLCHAIN=local",
		"DOCKER_HOST=" + os.Getenv("DOCKER_HOST"), "DOCKER_BUILDKIT=0",
		"CI=true", "GITHUB_ACTIONS=true", "GITHUB_WORKSPACE=" + ws, "RUNNER_TEMP=" + temp, "RUNNER_OS=Linux", "RUNNER_ARCH=X64",
		"GITHUB_REF=refs/tags/" + tag, "GITHUB_REF_NAME=" + tag, "GITHUB_REF_TYPE=tag", "GITHUB_SHA=" + sha,
		"GITHUB_REPOSITORY=mcp-eval/mcp-eval", "GITHUB_ACTOR=" + registryUser, "GITHUB_EVENT_NAME=push",
		"GITHUB_SERVER_URL=https://github.com", "GH_FAKE_DIR=" + rr.ghDir, "GH_FAKE_EVENTS=" + rr.events,
		// The maintainer's knobs for this machine (see the comment above).
		"MCP_EVAL_TARGETS=linux/amd64 linux/arm64", "MCP_EVAL_BASE_IMAGE=" + rr.baseImage,
	}
	ctx := map[string]string{"github.ref_name": tag, "github.actor": registryUser, "github.token": rr.password}
	subst := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			k := expr.FindStringSubmatch(m)[1]
			v, ok := ctx[k]
			if !ok {
				t.Fatalf("release.yml uses ${{ %s }}, which the emulation does not know: add it", k)
			}
			return v
		})
	}
	ghcr := func(s string) string { return strings.Replace(s, "ghcr.io", rr.registryHost, 1) }
	wfEnv := map[string]string{}
	for k, v := range wf.Env {
		wfEnv[k] = ghcr(subst(v))
		ctx["env."+k] = wfEnv[k]
	}
	var log strings.Builder
	for _, job := range wf.Jobs {
		for i, st := range job.Steps {
			name := st.Name
			if name == "" {
				name = st.Uses + st.Run
			}
			if st.If != "" {
				t.Fatalf("step %q has if: %s, which the emulation does not evaluate", name, st.If)
			}
			fmt.Fprintf(&log, "##[group]%s\n", name)
			env := slices.Clone(base)
			for k, v := range wfEnv {
				env = append(env, k+"="+v)
			}
			for k, v := range st.Env {
				env = append(env, k+"="+subst(v))
			}
			with := map[string]string{}
			for k, v := range st.With {
				with[k] = subst(v)
			}
			outFile := filepath.Join(temp, fmt.Sprintf("set_output_%d", i))
			os.WriteFile(outFile, nil, 0o644)
			env = append(env, "GITHUB_OUTPUT="+outFile, "GITHUB_STEP_SUMMARY="+filepath.Join(temp, "summary"),
				"GITHUB_ENV="+filepath.Join(temp, "env"), "GITHUB_PATH="+filepath.Join(temp, "path"))
			var out []byte
			var err error
			began := time.Now()
			switch {
			case st.Run != "":
				script := filepath.Join(temp, fmt.Sprintf("step%d.sh", i))
				os.WriteFile(script, []byte(subst(st.Run)), 0o644)
				args := []string{"-e", script} // shell unset: bash -e {0}
				if st.Shell == "bash" {
					args = []string{"--noprofile", "--norc", "-e", "-o", "pipefail", script}
				} else if st.Shell != "" {
					t.Fatalf("step %q: shell %q", name, st.Shell)
				}
				out, err = runCmdIn(ws, env, 10*time.Minute, "bash", args...)
			case st.Uses != "":
				out, err = rr.uses(t, st.Uses, with, ws, env, tag, i)
			}
			log.Write(out)
			fmt.Fprintf(&log, "##[endgroup] %.1fs\n", time.Since(began).Seconds())
			if err != nil {
				fmt.Fprintf(&log, "##[error]step %q: %v\n", name, err)
				return emulatedRun{failedStep: name, log: log.String(), workspace: ws}
			}
			outputs := githubtest.Outputs(t, string(mustRead(t, outFile)))
			for k, v := range outputs {
				if st.ID != "" {
					ctx["steps."+st.ID+".outputs."+k] = v
				}
			}
		}
	}
	return emulatedRun{log: log.String(), workspace: ws}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func runCmdIn(dir string, env []string, timeout time.Duration, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v", timeout)
	}
	return out, err
}

// uses is the stand-in of a uses: step (see the comment at the top).
func (rr releaseRunner) uses(t *testing.T, uses string, with map[string]string, ws string, env []string, tag string, i int) ([]byte, error) {
	action, _, _ := strings.Cut(uses, "@")
	if !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(uses) {
		t.Errorf("%s is not pinned by a full commit SHA", uses)
	}
	event := func(s string) {
		f, _ := os.OpenFile(rr.events, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		fmt.Fprintln(f, s)
		f.Close()
	}
	switch action {
	case "actions/checkout":
		// A tag push: the tag's commit, fetched at depth 1, detached.
		var out []byte
		for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "file://" + rr.origin},
			{"fetch", "-q", "--depth=1", "origin", "+refs/tags/" + tag + ":refs/tags/" + tag}, {"checkout", "-q", "--detach", "refs/tags/" + tag}} {
			o, err := runCmdIn(ws, env, 2*time.Minute, "git", args...)
			out = append(out, o...)
			if err != nil {
				return out, err
			}
		}
		return out, nil
	case "actions/setup-go":
		if _, err := os.Stat(filepath.Join(ws, with["go-version-file"])); err != nil {
			return nil, err
		}
		return runCmdIn(ws, env, time.Minute, "go", "version")
	case "docker/login-action":
		cmd := exec.Command("docker", "login", strings.Replace(with["registry"], "ghcr.io", rr.registryHost, 1), "-u", with["username"], "--password-stdin")
		cmd.Env, cmd.Dir, cmd.Stdin = env, ws, strings.NewReader(with["password"])
		return cmd.CombinedOutput()
	case "actions/attest":
		var subjects []string
		switch {
		case with["subject-checksums"] != "" && with["subject-path"] == "" && with["subject-digest"] == "":
			// Every line names an archive of the release with its digest.
			b, err := os.ReadFile(filepath.Join(ws, with["subject-checksums"]))
			if err != nil {
				return nil, err
			}
			for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.Fields(line)
				if len(f) != 2 {
					return nil, fmt.Errorf("subject-checksums line %q", line)
				}
				subjects = append(subjects, f[1]+"@sha256:"+f[0])
			}
			out, err := runCmdIn(filepath.Dir(filepath.Join(ws, with["subject-checksums"])), env, time.Minute, "sha256sum", "-c", filepath.Base(with["subject-checksums"]))
			if err != nil {
				return out, fmt.Errorf("the attested checksums do not match the files: %v", err)
			}
		case with["subject-digest"] != "" && with["subject-name"] != "":
			d := with["subject-digest"]
			if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(d) {
				return nil, fmt.Errorf("subject-digest %q is not sha256:<hex>", d)
			}
			if with["push-to-registry"] != "true" {
				return nil, fmt.Errorf("the image attestation is not pushed to the registry")
			}
			// The registry must hold that digest under that name.
			repo := strings.TrimPrefix(with["subject-name"], rr.registryHost+"/")
			req, _ := http.NewRequest("HEAD", "http://"+rr.registryHost+"/v2/"+repo+"/manifests/"+d, nil)
			req.SetBasicAuth(registryUser, rr.password)
			req.Header.Set("Accept", "application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.index.v1+json")
			c := http.Client{Timeout: 10 * time.Second}
			resp, err := c.Do(req)
			if err != nil {
				return nil, err
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				return nil, fmt.Errorf("subject %s@%s: the registry answers %s", with["subject-name"], d, resp.Status)
			}
			subjects = append(subjects, with["subject-name"]+"@"+d)
		default:
			return nil, fmt.Errorf("actions/attest wants exactly one of subject-path, subject-digest (with subject-name), subject-checksums: %v", with)
		}
		event("attest " + strings.Join(subjects, " "))
		return []byte(fmt.Sprintf("attested %d subjects\n", len(subjects))), nil
	}
	t.Fatalf("release.yml step %d uses %s, which the emulation has no stand-in for", i, uses)
	return nil, nil
}

// releaseState is what a tag left behind.
type releaseState struct {
	tagCommit, parent, imageLine, digest, setupVersion string
	state, prerelease                                  string
	assets                                             []string
}

func readRelease(t *testing.T, origin, ghDir, tag string) releaseState {
	t.Helper()
	var s releaseState
	dir := filepath.Dir(origin)
	s.tagCommit = gitIn(t, dir, "--git-dir", origin, "rev-parse", "refs/tags/"+tag+"^{commit}")
	s.parent = gitIn(t, dir, "--git-dir", origin, "rev-parse", s.tagCommit+"^")
	action := gitIn(t, dir, "--git-dir", origin, "show", s.tagCommit+":action.yml")
	for _, l := range strings.Split(action, "\n") {
		if strings.HasPrefix(l, "  image: ") {
			s.imageLine = l
		}
	}
	if m := regexp.MustCompile(`@(sha256:[0-9a-f]{64})"`).FindStringSubmatch(s.imageLine); m != nil {
		s.digest = m[1]
	}
	var setup actionYAML
	yaml.Unmarshal([]byte(gitIn(t, dir, "--git-dir", origin, "show", s.tagCommit+":setup/action.yml")), &setup)
	s.setupVersion = setup.defaultOf("version")
	rel := filepath.Join(ghDir, "releases", tag)
	st, _ := os.ReadFile(filepath.Join(rel, "state"))
	pre, _ := os.ReadFile(filepath.Join(rel, "prerelease"))
	s.state, s.prerelease = strings.TrimSpace(string(st)), strings.TrimSpace(string(pre))
	entries, _ := os.ReadDir(filepath.Join(rel, "assets"))
	for _, e := range entries {
		s.assets = append(s.assets, e.Name())
	}
	return s
}

func TestReleaseEmulated(t *testing.T) {
	requireDocker(t)
	regBin := requireRegistry(t)
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("GOARCH %s: the image is amd64 and arm64", runtime.GOARCH)
	}
	reg := startRegistry(t, regBin, "")
	baseImage := pushLocalBase(t, reg)
	t.Cleanup(func() { removeImagesOf(t, reg.host) })

	tmp := t.TempDir()
	events := filepath.Join(tmp, "events")
	origin := newOrigin(t, events)
	ghDir := filepath.Join(tmp, "gh")
	os.MkdirAll(ghDir, 0o755)
	os.WriteFile(filepath.Join(ghDir, "events"), nil, 0o644)
	rr := releaseRunner{origin: origin, registryHost: reg.host, baseImage: baseImage, ghDir: ghDir, events: events, password: registryPassword}
	dir := filepath.Dir(origin)
	git := func(args ...string) string { return gitIn(t, dir, append([]string{"--git-dir", origin}, args...)...) }
	repo := "mcp-eval/mcp-eval"
	image := reg.host + "/" + repo

	// Today's main already names the v1.0.0 image by tag.
	if a := git("show", "main:action.yml"); !strings.Contains(a, `image: "docker://ghcr.io/mcp-eval/mcp-eval:v1.0.0"`) {
		t.Logf("note: main's action.yml no longer names v1.0.0 by tag")
	}
	major := map[string]string{}
	for _, rel := range []struct {
		tag, change string
		pre         bool
	}{
		{tag: "v1.0.0"},
		{tag: "v1.1.0", change: "a fix merged after v1.0.0"},
		{tag: "v1.2.0-rc.1", change: "a feature merged after v1.1.0", pre: true},
	} {
		if rel.change != "" {
			commitOnMain(t, origin, "CHANGELOG.md", rel.change)
		}
		main := git("rev-parse", "main")
		git("tag", rel.tag, "main")
		os.WriteFile(events, nil, 0o644)
		start := time.Now()
		r := rr.run(t, rel.tag)
		if r.failedStep != "" {
			t.Fatalf("%s: the release failed at %q\n%s", rel.tag, r.failedStep, r.log)
		}
		t.Logf("%s: released in %v", rel.tag, time.Since(start).Round(time.Second))
		s := readRelease(t, origin, ghDir, rel.tag)

		// action.yml at the moved tag names the image by digest, the tag in
		// a comment; the setup action installs this release; nothing else
		// differs from the tagged main.
		if s.parent != main || s.digest == "" || s.imageLine != fmt.Sprintf(`  image: "docker://%s@%s" # %s`, image, s.digest, rel.tag) || s.setupVersion != rel.tag {
			t.Fatalf("%s: tag at %s (parent %s, main %s); image line %q; setup installs %q", rel.tag, s.tagCommit, s.parent, main, s.imageLine, s.setupVersion)
		}
		// (On v1.0.0, main's setup/action.yml already installs v1.0.0.)
		if d := git("diff", "--name-only", main, s.tagCommit); d != "action.yml\nsetup/action.yml" && d != "action.yml" {
			t.Errorf("%s: the release commit changes %q, want action.yml and setup/action.yml only", rel.tag, d)
		}
		var pinned actionYAML
		yaml.Unmarshal([]byte(git("show", s.tagCommit+":action.yml")), &pinned)
		if pinned.Runs.Image != "docker://"+image+"@"+s.digest {
			t.Errorf("%s: runs.image parses as %q", rel.tag, pinned.Runs.Image)
		}

		// The registry: the tag is the multi-arch index with that digest.
		idx, d := reg.manifest(t, repo, rel.tag)
		if d != s.digest {
			t.Errorf("%s: the registry's %s is %s, action.yml names %s", rel.tag, rel.tag, d, s.digest)
		}
		var plats []string
		ms, _ := idx["manifests"].([]any)
		for _, m := range ms {
			p, _ := m.(map[string]any)["platform"].(map[string]any)
			plats = append(plats, fmt.Sprintf("%v/%v", p["os"], p["architecture"]))
		}
		slices.Sort(plats)
		if !slices.Equal(plats, []string{"linux/amd64", "linux/arm64"}) {
			t.Errorf("%s: the index lists %v, want linux/amd64 and linux/arm64", rel.tag, plats)
		}

		// The release: published, a pre-release exactly for -rc tags, the
		// archives and checksums.txt, which sha256sum -c accepts.
		wantAssets := []string{"checksums.txt", "mcp-eval_linux_amd64.tar.gz", "mcp-eval_linux_arm64.tar.gz"}
		if s.state != "published" || s.prerelease != fmt.Sprint(rel.pre) || !slices.Equal(s.assets, wantAssets) {
			t.Errorf("%s: release %s, prerelease %s, assets %v; want published, %v, %v", rel.tag, s.state, s.prerelease, s.assets, rel.pre, wantAssets)
		}
		sum, err := runCmdIn(filepath.Join(ghDir, "releases", rel.tag, "assets"), os.Environ(), time.Minute, "sha256sum", "-c", "checksums.txt")
		if err != nil {
			t.Errorf("%s: sha256sum -c checksums.txt: %v\n%s", rel.tag, err, sum)
		}
		t.Logf("%s: image %s@%s; sha256sum -c checksums.txt:\n%s", rel.tag, image, s.digest, sum)
		if tc, _ := os.ReadFile(filepath.Join(ghDir, "releases", rel.tag, "tag-commit")); strings.TrimSpace(string(tc)) != s.tagCommit {
			t.Errorf("%s: published at %q, the tag is at %s", rel.tag, tc, s.tagCommit)
		}

		// The order immutable releases need: attest, then the tags, then
		// the draft with its assets, then publish.
		ev := strings.Split(strings.TrimSpace(string(mustRead(t, events))), "\n")
		// One git push moves both tags, in no set order.
		if i := slices.IndexFunc(ev, func(e string) bool { return strings.HasPrefix(e, "push ") }); i >= 0 {
			j := i
			for j < len(ev) && strings.HasPrefix(ev[j], "push ") {
				j++
			}
			slices.SortFunc(ev[i:j], func(a, b string) int { return len(b) - len(a) }) // vX.Y.Z before vX
		}
		wantKinds := []string{"attest mcp-eval_linux_amd64.tar.gz@sha256:", "attest " + image + "@" + s.digest, "push refs/tags/" + rel.tag}
		if !rel.pre {
			wantKinds = append(wantKinds, "push refs/tags/v1")
		}
		wantKinds = append(wantKinds, "gh release", "gh release")
		ok := len(ev) == len(wantKinds)
		for i := 0; ok && i < len(ev); i++ {
			ok = strings.HasPrefix(ev[i], wantKinds[i])
		}
		if !ok || !strings.Contains(ev[len(ev)-2], "create "+rel.tag+" draft 3 assets") || ev[len(ev)-1] != "gh release publish "+rel.tag {
			t.Errorf("%s: events\n%s\nwant in order %q", rel.tag, strings.Join(ev, "\n"), wantKinds)
		}
		if !strings.Contains(ev[0], "mcp-eval_linux_arm64.tar.gz@sha256:") {
			t.Errorf("%s: the archives' attestation lacks the arm64 archive: %s", rel.tag, ev[0])
		}

		// v1 follows releases, never a pre-release.
		if !rel.pre {
			major["v1"] = s.tagCommit
		}
		if v1 := git("rev-parse", "refs/tags/v1^{commit}"); v1 != major["v1"] {
			t.Errorf("after %s, v1 is at %s, want %s", rel.tag, v1, major["v1"])
		}
		major[rel.tag] = s.tagCommit
	}

	// The image a job gets from `uses: mcp-eval/mcp-eval@v1`: action.yml at
	// v1 names it by digest; the runner pulls it, then runs it.
	v1 := readRelease(t, origin, ghDir, "v1.1.0")
	ref := image + "@" + v1.digest
	dockerCLI(t, time.Minute, nil, "image", "rm", "-f", ref)
	anon := t.TempDir()
	if out, err := dockerCLI(t, 2*time.Minute, []string{"DOCKER_CONFIG=" + anon}, "pull", ref); err != nil {
		t.Fatalf("pulling %s without credentials: %v\n%s", ref, err, out)
	}
	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)
	server := mcptest.Serve(t, mcptest.Options{})
	r := runDockerAction(t, ref, newRunnerLayout(t), map[string]string{"INPUT_SERVER-URL": server.URL, "INPUT_COMMENT": "false", "INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefDOCKER"}, apiURL)
	if r.code != 0 || r.outputs["passed"] != "true" {
		t.Fatalf("the released image: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("docker run %s to the first check line: %v", ref, r.firstCheck)
	if out, _ := dockerCLI(t, time.Minute, nil, "run", "--rm", "--network", "host", ref, "version"); !strings.Contains(out, "v1.1.0") {
		t.Errorf("the image at v1 does not say v1.1.0: %s", out)
	}
}

// TestReleaseEmulatedPrivatePackage: when the pushed image cannot be pulled
// without credentials (a new ghcr.io package is private), the release fails
// at the image step, saying how to make it public, and nothing is tagged,
// attested or published.
func TestReleaseEmulatedPrivatePackage(t *testing.T) {
	requireDocker(t)
	regBin := requireRegistry(t)
	pub := startRegistry(t, regBin, "")
	baseImage := pushLocalBase(t, pub)
	priv := startRegistry(t, regBin, registryHtpasswd)
	t.Cleanup(func() { removeImagesOf(t, pub.host); removeImagesOf(t, priv.host) })
	tmp := t.TempDir()
	events := filepath.Join(tmp, "events")
	origin := newOrigin(t, events)
	ghDir := filepath.Join(tmp, "gh")
	os.MkdirAll(ghDir, 0o755)
	dir := filepath.Dir(origin)
	gitIn(t, dir, "--git-dir", origin, "tag", "v1.0.0", "main")
	main := gitIn(t, dir, "--git-dir", origin, "rev-parse", "main")
	rr := releaseRunner{origin: origin, registryHost: priv.host, baseImage: baseImage, ghDir: ghDir, events: events, password: registryPassword}
	r := rr.run(t, "v1.0.0")
	if !strings.HasPrefix(r.failedStep, "Push the image") {
		t.Fatalf("failed step %q, want the image step\n%s", r.failedStep, r.log)
	}
	apptest.MustContain(t, "log", r.log, "::error title=image not public::"+priv.host+"/mcp-eval/mcp-eval@sha256:",
		"Change visibility > Public", "Nothing was tagged or published")
	if got := gitIn(t, dir, "--git-dir", origin, "rev-parse", "refs/tags/v1.0.0^{commit}"); got != main {
		t.Errorf("v1.0.0 moved to %s", got)
	}
	if out, _ := runCmdIn(dir, os.Environ(), time.Minute, "git", "--git-dir", origin, "rev-parse", "-q", "--verify", "refs/tags/v1"); len(out) != 0 {
		t.Errorf("v1 exists: %s", out)
	}
	if b, _ := os.ReadFile(events); len(b) != 0 {
		t.Errorf("events after a failed image step: %s", b)
	}
	if _, err := os.Stat(filepath.Join(ghDir, "releases")); err == nil {
		t.Error("a release was created")
	}
}

// pushLocalBase pushes to reg an index of two images standing in for
// distroless/static (a root user and /tmp on an empty root), amd64 and
// arm64, built without running anything, and returns it by digest.
func pushLocalBase(t *testing.T, reg localRegistry) string {
	t.Helper()
	ctxDir := t.TempDir()
	os.MkdirAll(filepath.Join(ctxDir, "rootfs", "tmp"), 0o777)
	os.MkdirAll(filepath.Join(ctxDir, "rootfs", "etc"), 0o755)
	os.WriteFile(filepath.Join(ctxDir, "rootfs", "etc", "passwd"), []byte("root:x:0:0:root:/root:/sbin/nologin\n"), 0o644)
	os.WriteFile(filepath.Join(ctxDir, "Dockerfile"), []byte("FROM scratch\nCOPY rootfs/ /\n"), 0o644)
	base := reg.host + "/base/static"
	var refs []string
	for _, arch := range []string{"amd64", "arm64"} {
		ref := base + ":" + arch
		if out, err := dockerCLI(t, 2*time.Minute, nil, "build", "-q", "--no-cache", "--platform", "linux/"+arch, "-t", ref, ctxDir); err != nil {
			t.Fatalf("building the %s base: %v\n%s", arch, err, out)
		}
		if out, err := dockerCLI(t, 2*time.Minute, nil, "push", ref); err != nil {
			t.Fatalf("pushing the %s base: %v\n%s", arch, err, out)
		}
		refs = append(refs, ref)
	}
	if out, err := dockerCLI(t, time.Minute, nil, append([]string{"manifest", "create", "--insecure", base + ":index"}, refs...)...); err != nil {
		t.Fatalf("docker manifest create: %v\n%s", err, out)
	}
	out, err := dockerCLI(t, time.Minute, nil, "manifest", "push", "--insecure", "--purge", base+":index")
	if err != nil {
		t.Fatalf("docker manifest push: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return base + "@" + lines[len(lines)-1]
}

// removeImagesOf removes the daemon's images from the registry at host
// (and only those: the daemon may be a runner's own).
func removeImagesOf(t *testing.T, host string) {
	out, _ := dockerCLI(t, time.Minute, nil, "images", "--digests", "--format", "{{.Repository}} {{.Tag}} {{.Digest}} {{.ID}}")
	var ids []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 && strings.HasPrefix(f[0], host+"/") {
			ids = append(ids, f[3])
		}
	}
	if len(ids) > 0 {
		dockerCLI(t, 2*time.Minute, nil, append([]string{"image", "rm", "-f"}, ids...)...)
	}
}
