package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The host mode's installer (setup/install.sh) and the release archives it
// installs from (scripts/release.sh): the commands the README documents are
// run against archives the release script really makes, and the installer
// against a local HTTP server that serves them as GitHub's release download
// URLs do.

// TestSetupAssetNames covers the RUNNER_OS/RUNNER_ARCH mapping for the
// runners this machine is not (macOS, Windows, arm64).
func TestSetupAssetNames(t *testing.T) {
	for _, tt := range []struct{ os, arch, want, err string }{
		{"Linux", "X64", "mcp-eval_linux_amd64.tar.gz", ""},
		{"Linux", "ARM64", "mcp-eval_linux_arm64.tar.gz", ""},
		{"macOS", "X64", "mcp-eval_darwin_amd64.tar.gz", ""},
		{"macOS", "ARM64", "mcp-eval_darwin_arm64.tar.gz", ""},
		{"Windows", "X64", "mcp-eval_windows_amd64.zip", ""},
		{"Windows", "ARM64", "mcp-eval_windows_arm64.zip", ""},
		{"Linux", "ARM", "", "RUNNER_ARCH ARM is not X64 or ARM64"},
		{"FreeBSD", "X64", "", "RUNNER_OS FreeBSD is not Linux, macOS or Windows"},
		{"", "", "", "RUNNER_OS (unset)"},
	} {
		cmd := exec.Command("bash", "setup/install.sh", "--asset-name")
		cmd.Env = append(os.Environ(), "RUNNER_OS="+tt.os, "RUNNER_ARCH="+tt.arch)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		got := strings.TrimSpace(stdout.String())
		if tt.err == "" && (err != nil || got != tt.want) {
			t.Errorf("%s/%s: got %q (%v, %s), want %q", tt.os, tt.arch, got, err, stderr.String(), tt.want)
		}
		if tt.err != "" && (err == nil || !strings.Contains(stderr.String(), tt.err)) {
			t.Errorf("%s/%s: want an error %q, got %q, stderr %q", tt.os, tt.arch, tt.err, got, stderr.String())
		}
	}
}

// runnerNames maps GOARCH to RUNNER_ARCH for the machine running the test.
var runnerArch = map[string]string{"amd64": "X64", "arm64": "ARM64"}

func buildRelease(t *testing.T, version string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds release archives; skipped in -short mode")
	}
	for _, tool := range []string{"bash", "tar", "zip", "unzip", "sha256sum", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH: the release archive test is skipped", tool)
		}
	}
	dist := t.TempDir()
	cmd := exec.Command("bash", "scripts/release.sh", version)
	cmd.Env = append(os.Environ(), "MCP_EVAL_DIST="+dist, "MCP_EVAL_TARGETS=linux/"+runtime.GOARCH+" windows/amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	return dist
}

func sh(t *testing.T, dir, script string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestReleaseArchivesAndSetupInstall(t *testing.T) {
	if runtime.GOOS != "linux" || runnerArch[runtime.GOARCH] == "" {
		t.Skip("the install test runs on linux/amd64 or linux/arm64")
	}
	const version = "v0.0.1"
	dist := buildRelease(t, version)
	linux := "mcp-eval_linux_" + runtime.GOARCH + ".tar.gz"
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("documented commands", func(t *testing.T) {
		// The README's commands, for linux/amd64 and Windows; this
		// machine's arch stands in for amd64 where they differ.
		for _, doc := range []string{
			"tar -xzf mcp-eval_linux_amd64.tar.gz mcp-eval",
			"unzip mcp-eval_windows_amd64.zip mcp-eval.exe",
			"sha256sum --ignore-missing -c checksums.txt",
		} {
			if !bytes.Contains(readme, []byte(doc)) {
				t.Errorf("README does not document %q", doc)
			}
		}
		dir := t.TempDir()
		for _, f := range []string{linux, "mcp-eval_windows_amd64.zip", "checksums.txt"} {
			b, err := os.ReadFile(filepath.Join(dist, f))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, f), b, 0o644)
		}
		if out, err := sh(t, dir, "sha256sum --ignore-missing -c checksums.txt"); err != nil {
			t.Fatalf("checksums do not verify: %v\n%s", err, out)
		}
		if out, err := sh(t, dir, "tar -xzf "+linux+" mcp-eval && ./mcp-eval version"); err != nil || !strings.Contains(out, "mcp-eval "+version) {
			t.Errorf("tar -xzf … mcp-eval: %v\n%s", err, out)
		}
		if out, err := sh(t, dir, "unzip mcp-eval_windows_amd64.zip mcp-eval.exe && test -s mcp-eval.exe"); err != nil {
			t.Errorf("unzip … mcp-eval.exe: %v\n%s", err, out)
		}
		// A changed archive fails the documented check.
		f, _ := os.OpenFile(filepath.Join(dir, linux), os.O_APPEND|os.O_WRONLY, 0)
		f.Write([]byte("x"))
		f.Close()
		if out, err := sh(t, dir, "sha256sum --ignore-missing -c checksums.txt"); err == nil {
			t.Errorf("a changed archive passed sha256sum -c:\n%s", out)
		}
	})

	// The release download server: /download/VERSION/ASSET, with
	// checksums.txt replaceable per subtest.
	var checksums []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, "/download/"+version+"/")
		if !ok || strings.Contains(name, "/") {
			http.NotFound(w, r)
			return
		}
		if name == "checksums.txt" && checksums != nil {
			w.Write(checksums)
			return
		}
		http.ServeFile(w, r, filepath.Join(dist, name))
	}))
	defer srv.Close()
	good, _ := os.ReadFile(filepath.Join(dist, "checksums.txt"))

	install := func(t *testing.T) (ghPath, toolCache, stderr string, err error) {
		tmp := t.TempDir()
		ghPath = filepath.Join(tmp, "github_path")
		toolCache = filepath.Join(tmp, "toolcache")
		os.WriteFile(ghPath, nil, 0o644)
		cmd := exec.Command("bash", "setup/install.sh")
		cmd.Env = append(os.Environ(), "RUNNER_OS=Linux", "RUNNER_ARCH="+runnerArch[runtime.GOARCH],
			"RUNNER_TEMP="+tmp, "RUNNER_TOOL_CACHE="+toolCache, "GITHUB_PATH="+ghPath,
			"GITHUB_OUTPUT="+filepath.Join(tmp, "output"),
			"MCP_EVAL_VERSION="+version, "MCP_EVAL_BASE_URL="+srv.URL+"/download")
		var e bytes.Buffer
		cmd.Stderr = &e
		err = cmd.Run()
		return ghPath, toolCache, e.String(), err
	}

	t.Run("checksum matches: installed on PATH", func(t *testing.T) {
		checksums = good
		ghPath, _, stderr, err := install(t)
		if err != nil {
			t.Fatalf("install.sh: %v\n%s", err, stderr)
		}
		p, _ := os.ReadFile(ghPath)
		dir := strings.TrimSpace(string(p))
		out, err := exec.Command(filepath.Join(dir, "mcp-eval"), "version").Output()
		if err != nil || !strings.Contains(string(out), "mcp-eval "+version) {
			t.Errorf("the binary on GITHUB_PATH (%s): %v %q", dir, err, out)
		}
	})

	for _, tt := range []struct {
		name, checksums, want string
	}{
		{"checksum mismatch refuses", strings.Repeat("0", 64) + "  " + linux + "\n", "checksum mismatch for " + linux},
		{"no checksum line refuses", "0000  mcp-eval_darwin_arm64.tar.gz\n", "has no line for " + linux},
	} {
		t.Run(tt.name, func(t *testing.T) {
			checksums = []byte(tt.checksums)
			ghPath, toolCache, stderr, err := install(t)
			if err == nil {
				t.Fatal("install.sh installed despite a bad checksums.txt")
			}
			if !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "refusing to install") {
				t.Errorf("stderr %q: want %q and 'refusing to install'", stderr, tt.want)
			}
			if p, _ := os.ReadFile(ghPath); len(p) != 0 {
				t.Errorf("GITHUB_PATH was extended: %q", p)
			}
			if _, err := os.Stat(toolCache); err == nil {
				t.Errorf("something was installed into the tool cache")
			}
		})
	}
}
