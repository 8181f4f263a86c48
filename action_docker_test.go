package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/app/apptest"
	"github.com/mcp-eval/mcp-eval/github/githubtest"
	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
)

// The Docker action end to end, against a real Docker engine: the image is
// built from the repository's Dockerfile and run the way actions/runner runs
// a container action, and everything is asserted from the host's side, where
// the next step of the job lives.
//
// It needs a Docker daemon (DOCKER_HOST, or the default socket) and skips
// with one line otherwise; .ci/run starts one without a bridge network
// (.ci/dockerd.sh) and runs this test. No registry is reachable from the
// test machines, so the image is built from a locally made base (an empty
// root with /tmp, standing in for distroless/static) through the
// Dockerfile's BASE_IMAGE argument, with the release target's prebuilt
// static binary; every container runs with --network host.

// dockerCLI runs docker with a timeout and returns its combined output.
func dockerCLI(t *testing.T, timeout time.Duration, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("docker %s: timed out after %v", args[0], timeout)
	}
	return string(out), err
}

func requireDocker(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("docker end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI on PATH: the Docker action end-to-end test is skipped (.ci/run starts a daemon and runs it)")
	}
	if out, err := dockerCLI(t, 15*time.Second, nil, "version", "--format", "{{.Server.Version}}"); err != nil {
		t.Skipf("no Docker daemon reachable (DOCKER_HOST=%q): the Docker action end-to-end test is skipped; start one with `bash .ci/dockerd.sh start` (%s)", os.Getenv("DOCKER_HOST"), firstLine(out))
	}
}

// checkLine is a check's line in the terminal report ("  ✓ discover/responds").
var checkLine = regexp.MustCompile(`^\s+\S+ [a-z-]+/[a-z0-9-]+`)

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// buildActionImage builds the Dockerfile's release target on a local base
// and returns the image tag. The build context holds only what the release
// target copies, as .dockerignore leaves it for the release workflow.
func buildActionImage(t *testing.T) string {
	t.Helper()
	ctxDir := t.TempDir()
	arch := runtime.GOARCH
	bin := filepath.Join(ctxDir, "dist", "image", "linux_"+arch, "mcp-eval")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version=e2e", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, f := range []string{"Dockerfile", ".dockerignore"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctxDir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The local base: what distroless/static gives a static binary that
	// matters here (a root user and a writable /tmp), on an empty root.
	baseDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(baseDir, "rootfs", "tmp"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(baseDir, "rootfs", "etc"), 0o755)
	os.WriteFile(filepath.Join(baseDir, "rootfs", "etc", "passwd"), []byte("root:x:0:0:root:/root:/sbin/nologin\n"), 0o644)
	os.WriteFile(filepath.Join(baseDir, "Dockerfile"), []byte("FROM scratch\nCOPY rootfs/ /\n"), 0o644)
	const base, image = "mcp-eval-e2e-base:local", "mcp-eval-e2e:local"
	if out, err := dockerCLI(t, 2*time.Minute, nil, "build", "-q", "-t", base, baseDir); err != nil {
		t.Fatalf("building the local base: %v\n%s", err, out)
	}
	if out, err := dockerCLI(t, 2*time.Minute, nil, "build", "-q", "--target", "release",
		"--build-arg", "BASE_IMAGE="+base, "--build-arg", "TARGETARCH="+arch, "-t", image, ctxDir); err != nil {
		t.Fatalf("building the Dockerfile's release target: %v\n%s", err, out)
	}
	t.Cleanup(func() { dockerCLI(t, time.Minute, nil, "image", "rm", "-f", image, base) })
	return image
}

// runnerLayout is the host side of a container action: the directories
// actions/runner creates under its temp directory and mounts into the
// container (ContainerActionHandler.cs), and the translation of host paths
// in the step's environment into container paths.
type runnerLayout struct {
	workspace, temp, home, fileCommands, workflow string
}

func newRunnerLayout(t *testing.T) runnerLayout {
	root := t.TempDir()
	l := runnerLayout{
		workspace:    filepath.Join(root, "work", "weather-mcp", "weather-mcp"),
		temp:         filepath.Join(root, "work", "_temp"),
		home:         filepath.Join(root, "work", "_temp", "_github_home"),
		fileCommands: filepath.Join(root, "work", "_temp", "_runner_file_commands"),
		workflow:     filepath.Join(root, "work", "_temp", "_github_workflow"),
	}
	for _, d := range []string{l.workspace, l.home, l.fileCommands, l.workflow} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// mounts lists the -v pairs in the runner's order.
func (l runnerLayout) mounts() [][2]string {
	return [][2]string{
		{l.temp, "/github/runner_temp"},
		{l.home, "/github/home"},
		{l.workflow, "/github/workflow"},
		{l.fileCommands, "/github/file_commands"},
		{l.workspace, "/github/workspace"},
	}
}

// translate is ContainerInfo.TranslateToContainerPath: mappings are
// inserted at the front, so the last added (the workspace) is tried first;
// a value equal to a host path or below it is rewritten, anything else is
// passed as is.
func (l runnerLayout) translate(v string) string {
	m := l.mounts()
	for i := len(m) - 1; i >= 0; i-- {
		host, ctr := m[i][0], m[i][1]
		if v == host {
			return ctr
		}
		if strings.HasPrefix(v, host+"/") {
			return ctr + v[len(host):]
		}
	}
	return v
}

// dockerRunArgs is DockerCommandManager.DockerRun for an action.yml with
// runs.args: ["action"] and no entrypoint: -e NAME for every variable (the
// values travel in docker's own environment, not on its command line),
// GITHUB_ACTIONS and CI, the network, the mounts, the image, the args.
func (l runnerLayout) dockerRunArgs(name, image string, env map[string]string) (args, procEnv []string) {
	args = []string{"run", "--name", name, "--label", "mcp-eval-e2e", "--workdir", "/github/workspace", "--rm"}
	for k, v := range env {
		args = append(args, "-e", k)
		procEnv = append(procEnv, k+"="+l.translate(v))
	}
	args = append(args, "-e", "GITHUB_ACTIONS=true", "-e", "CI=true", "--network", "host")
	for _, m := range l.mounts() {
		args = append(args, "-v", m[0]+":"+m[1])
	}
	return append(args, image, "action"), procEnv
}

// actionRun is one step of the Docker action on the host layout l.
type actionRun struct {
	code          int
	stdout        string
	stderr        string
	firstCheck    time.Duration
	outputs       map[string]string
	summary       []byte
	rawOutputFile []byte
}

func runDockerAction(t *testing.T, image string, l runnerLayout, inputs map[string]string, apiURL string) actionRun {
	t.Helper()
	event, err := os.ReadFile("github/testdata/pull_request_labeled.json")
	if err != nil {
		t.Fatal(err)
	}
	eventPath := filepath.Join(l.workflow, "event.json")
	os.WriteFile(eventPath, event, 0o644)
	id := fmt.Sprintf("%x", time.Now().UnixNano())
	outputPath := filepath.Join(l.fileCommands, "set_output_"+id)
	summaryPath := filepath.Join(l.fileCommands, "step_summary_"+id)
	os.WriteFile(outputPath, nil, 0o644)
	os.WriteFile(summaryPath, nil, 0o644)
	env := map[string]string{
		"HOME": l.home, "GITHUB_WORKSPACE": l.workspace, "RUNNER_TEMP": l.temp,
		"GITHUB_EVENT_PATH": eventPath, "GITHUB_OUTPUT": outputPath, "GITHUB_STEP_SUMMARY": summaryPath,
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "acme/weather-mcp", "GITHUB_RUN_ID": "100",
		"GITHUB_API_URL": apiURL, "GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_SHA": "abc123", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "forecast-units",
		// action.yml's defaults, as the runner fills them in.
		"INPUT_LAYERS": "auto", "INPUT_COMMENT": "true", "INPUT_BASELINE-ARTIFACT": "mcp-eval-report",
		"INPUT_EVAL-LABEL": "run-evals", "INPUT_RUNS": "1",
	}
	for k, v := range inputs {
		env[k] = v
	}
	args, procEnv := l.dockerRunArgs("mcp-eval-e2e-"+id, image, env)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "docker", args...)
	cmd.Env = append(os.Environ(), procEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var r actionRun
	var log strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		if r.firstCheck == 0 && checkLine.MatchString(line) {
			r.firstCheck = time.Since(start)
		}
		log.WriteString(line + "\n")
	}
	io.Copy(io.Discard, stdout)
	// A non-zero exit is the run's answer (r.code); a context that ended is
	// the failure.
	_ = cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("docker run did not finish in time\nstdout:\n%s\nstderr:\n%s", log.String(), stderr.String())
	}
	r.code = cmd.ProcessState.ExitCode()
	r.stdout, r.stderr = log.String(), stderr.String()
	r.rawOutputFile, _ = os.ReadFile(outputPath)
	r.outputs = githubtest.Outputs(t, string(r.rawOutputFile))
	r.summary, _ = os.ReadFile(summaryPath)
	return r
}

func TestDockerActionAsTheRunnerRunsIt(t *testing.T) {
	requireDocker(t)
	image := buildActionImage(t)
	if out, err := dockerCLI(t, 30*time.Second, nil, "image", "inspect", "-f", "{{.Size}}", image); err == nil {
		t.Logf("image %s: %s bytes (the binary on an empty base)", image, strings.TrimSpace(out))
	}
	f := &apptest.FakeGitHub{}
	apiURL := f.Serve(t, nil)

	t.Run("HTTP server: outputs, summary and comment on the host", func(t *testing.T) {
		server := mcptest.Serve(t, mcptest.Options{})
		l := newRunnerLayout(t)
		const token = "ghs_0123456789abcdefDOCKER"
		r := runDockerAction(t, image, l, map[string]string{"INPUT_SERVER-URL": server.URL, "INPUT_GITHUB-TOKEN": token}, apiURL)
		t.Logf("docker run to the first check line: %v", r.firstCheck)
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
		if r.outputs["passed"] != "true" {
			t.Errorf("passed = %q\n%s", r.outputs["passed"], r.rawOutputFile)
		}
		apptest.AssertPathOutputs(t, l.workspace, r.outputs)
		if !bytes.Contains(r.summary, []byte("mcp-eval")) || !bytes.Contains(r.summary, []byte("### Notes")) {
			t.Errorf("the job summary on the host lacks the report:\n%s", r.summary)
		}
		comments := f.Comments()
		if len(comments) != 1 || !strings.HasPrefix(comments[0], "<!-- mcp-eval:comment key=") {
			t.Errorf("want one marked comment through the API, got %d: %q", len(comments), comments)
		}
		if !strings.Contains(r.stdout, "::add-mask::"+token) {
			t.Error("the token was not masked in the log")
		}
		for name, b := range map[string][]byte{"outputs": r.rawOutputFile, "summary": r.summary, "stderr": []byte(r.stderr)} {
			if bytes.Contains(b, []byte(token)) {
				t.Errorf("the token leaked into %s", name)
			}
		}
		if b, err := os.ReadFile(filepath.Join(l.workspace, filepath.FromSlash(r.outputs["report-path"]))); err != nil || !bytes.Contains(b, []byte(`"schemaVersion"`)) {
			t.Errorf("report-path names no report on the host: %v", err)
		}
	})

	// A static server binary shipped in the workspace runs in the
	// shell-less image, through server-cmd (stdio) and server-start (HTTP).
	weather := filepath.Join(t.TempDir(), "weather-server")
	build := exec.Command("go", "build", "-trimpath", "-o", weather, "./examples/weather-server")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example server: %v\n%s", err, out)
	}
	static := func(t *testing.T) runnerLayout {
		l := newRunnerLayout(t)
		b, _ := os.ReadFile(weather)
		os.MkdirAll(filepath.Join(l.workspace, "bin"), 0o755)
		os.WriteFile(filepath.Join(l.workspace, "bin", "weather-server"), b, 0o755)
		return l
	}
	t.Run("server-cmd: a static binary in the workspace", func(t *testing.T) {
		l := static(t)
		r := runDockerAction(t, image, l, map[string]string{"INPUT_SERVER-CMD": "./bin/weather-server", "INPUT_COMMENT": "false", "INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefDOCKER"}, apiURL)
		if r.code != 0 || r.outputs["passed"] != "true" {
			t.Fatalf("exit %d, passed %q\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs["passed"], r.stdout, r.stderr)
		}
		apptest.AssertPathOutputs(t, l.workspace, r.outputs)
	})
	t.Run("server-start without a shell", func(t *testing.T) {
		l := static(t)
		port := apptest.FreePort(t)
		r := runDockerAction(t, image, l, map[string]string{
			"INPUT_SERVER-START": fmt.Sprintf("./bin/weather-server --http 127.0.0.1:%d", port),
			"INPUT_SERVER-URL":   fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
			"INPUT_COMMENT":      "false", "INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefDOCKER",
		}, apiURL)
		if r.code != 0 || r.outputs["passed"] != "true" {
			t.Fatalf("exit %d, passed %q\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs["passed"], r.stdout, r.stderr)
		}
	})
	t.Run("oauth-federation: the job's OIDC token, no stored secret", func(t *testing.T) {
		dockerFederation(t, image, apiURL)
	})
	t.Run("oauth-federation against Ory Hydra and the Go SDK's protected server", func(t *testing.T) {
		dockerFederationHydra(t, image, apiURL)
	})
	t.Run("server-cmd needing node: one line pointing at host mode", func(t *testing.T) {
		l := newRunnerLayout(t)
		r := runDockerAction(t, image, l, map[string]string{"INPUT_SERVER-CMD": "node build/index.js", "INPUT_COMMENT": "false", "INPUT_GITHUB-TOKEN": "ghs_0123456789abcdefDOCKER"}, apiURL)
		if r.code == 0 || r.code == 1 {
			t.Errorf("exit %d, want a could-not-evaluate code", r.code)
		}
		apptest.MustContain(t, "stderr", r.stderr, `input server-cmd (--server-cmd): program "node" not found`, "host mode", "mcp-eval/mcp-eval/setup@v1")
	})
}

// dockerFederation is the Docker action's federation run, as the runner
// starts it for a job with permissions: id-token: write: the runner adds
// ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN to the
// container's environment (ContainerActionHandler.cs), and the only input
// is oauth-federation: github. The OIDC token service, the authorization
// server and the protected server listen on the host's loopback, which the
// container shares (--network host).
func dockerFederation(t *testing.T, image, apiURL string) {
	rn := oauthtest.NewRunner(t)
	as, res := apptest.EchoingAuthServer(t, oauthtest.Options{}, oauthtest.Client{})
	as.Trust(oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	l := newRunnerLayout(t)
	inputs := rn.Env()
	inputs["INPUT_SERVER-URL"] = res.URL()
	inputs["INPUT_OAUTH-FEDERATION"] = "github"
	inputs["INPUT_COMMENT"] = "false"
	inputs["INPUT_GITHUB-TOKEN"] = "ghs_0123456789abcdefDOCKER"
	r := runDockerAction(t, image, l, inputs, apiURL)
	if r.code != 0 || r.outputs["passed"] != "true" {
		t.Fatalf("exit %d, passed %q\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs["passed"], r.stdout, r.stderr)
	}
	// One assertion per token request: the run's, and those of the auth
	// group's probes (auth/query-token-refused, auth/other-audience-refused…),
	// each for the token endpoint, each token masked.
	issued := as.Issued()
	if aud := rn.Audiences(); len(issued) == 0 || len(aud) == 0 || slices.ContainsFunc(aud, func(a string) bool { return a != as.TokenEndpoint() }) {
		t.Fatalf("tokens issued %d, ID token audiences %q, want the token endpoint each time", len(issued), aud)
	}
	apptest.MustContain(t, "stdout", r.stdout, "::add-mask::"+rn.RequestToken)
	for _, tok := range issued {
		apptest.MustContain(t, "stdout", r.stdout, "::add-mask::"+tok)
	}
	report, _ := os.ReadFile(filepath.Join(l.workspace, filepath.FromSlash(r.outputs["report-path"])))
	if !bytes.Contains(report, []byte("ECHO[")) {
		t.Fatal("the echo never reached report.json")
	}
	for name, b := range map[string][]byte{"report.json": report, "outputs": r.rawOutputFile, "summary": r.summary, "stderr": []byte(r.stderr)} {
		for _, secret := range append([]string{rn.RequestToken}, issued...) {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("a credential leaked into %s", name)
			}
		}
	}
}

// dockerFederationHydra is dockerFederation against real components: Ory
// Hydra trusting the runner's issuer for this repository's subject (its
// jwt-bearer trust relationship), and the Go SDK's protected server. Hydra
// authenticates a client on every token request, so the run names the
// public client registered for federation (oauth-client-id, no secret).
func dockerFederationHydra(t *testing.T, image, apiURL string) {
	d := apptest.RequireRealAuth(t)
	rn := oauthtest.NewRunner(t)
	a := apptest.StartRealAS(t, d, "hydra")
	a.TrustRunner(t, oauthtest.RunnerIssuer, &rn.Key.PublicKey)
	l := newRunnerLayout(t)
	inputs := rn.Env()
	inputs["INPUT_SERVER-URL"] = a.Server
	inputs["INPUT_OAUTH-FEDERATION"] = "github"
	inputs["INPUT_OAUTH-CLIENT-ID"] = "mcp-eval-federation"
	inputs["INPUT_COMMENT"] = "false"
	inputs["INPUT_GITHUB-TOKEN"] = "ghs_0123456789abcdefDOCKER"
	r := runDockerAction(t, image, l, inputs, apiURL)
	// The Go SDK server fails hard checks of its own: a verdict (exit 0 or
	// 1) means the token was obtained and taken.
	if r.code != 0 && r.code != 1 || r.outputs["exit-code"] != strconv.Itoa(r.code) {
		t.Fatalf("exit %d, outputs %v\nstdout:\n%s\nstderr:\n%s", r.code, r.outputs, r.stdout, r.stderr)
	}
	if aud := rn.Audiences(); len(aud) == 0 || slices.ContainsFunc(aud, func(x string) bool { return x != a.Issuer+"/oauth2/token" }) {
		t.Errorf("the runner was asked for audiences %q, want Hydra's token endpoint each time", aud)
	}
	report, _ := os.ReadFile(filepath.Join(l.workspace, filepath.FromSlash(r.outputs["report-path"])))
	if !bytes.Contains(report, []byte(`"auth/`)) && !bytes.Contains(report, []byte(`"discover/`)) {
		t.Fatalf("no checks in the report:\n%.500s", report)
	}
	var masked []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "::add-mask::"); ok && apptest.JWT.MatchString(v) {
			masked = append(masked, v)
		}
	}
	if len(masked) < 2 {
		t.Errorf("want the job's ID token and Hydra's access token masked in the log, got %d JWTs masked", len(masked))
	}
	for name, b := range map[string][]byte{"report.json": report, "outputs": r.rawOutputFile, "summary": r.summary, "stderr": []byte(r.stderr)} {
		if m := apptest.JWT.Find(b); m != nil {
			t.Errorf("%s holds a JWT: %.40s…", name, m)
		}
	}
}
