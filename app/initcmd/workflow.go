package initcmd

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcp-eval/mcp-eval/app/config"
	"github.com/mcp-eval/mcp-eval/internal/cmdline"
	"github.com/mcp-eval/mcp-eval/llm/providers"
)

// The third-party actions the workflow uses, pinned by full commit SHA as
// examples/workflows pins them (TestInitWorkflowPins keeps them equal).
const (
	checkoutAction   = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1"
	cacheAction      = "actions/cache@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5"
	uploadAction     = "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0"
	sarifAction      = "github/codeql-action/upload-sarif@8aad20d150bbac5944a9f9d289da16a4b0d87c1e # v4.36.2"
	setupNodeAction  = "actions/setup-node@820762786026740c76f36085b0efc47a31fe5020 # v7.0.0"
	mcpEvalAction    = "mcp-eval/mcp-eval@v1"
	mcpEvalSetup     = "mcp-eval/mcp-eval/setup@v1"
	pinMcpEvalAdvice = "# Pin to the commit SHA of the release you reviewed; its action.yml names that release's image."
)

// serverKind is which action evaluates the server in CI, and why.
type serverKind struct {
	// Host: host mode (the setup action, then mcp-eval action on the
	// runner) rather than the Docker action.
	Host bool
	// Why says so, for the workflow's header and init's output.
	Why string
	// Node: the server needs Node (a setup-node step); Build is a step
	// that builds it, "" for none.
	Node  bool
	Build string
	// Outside is the server's program when it lies outside the
	// repository (an absolute path elsewhere, ~/…, or a name found on
	// PATH outside the system's directories): a runner's checkout does
	// not have it, so the workflow gets a step to install it, which fails
	// with its name until it is edited.
	Outside string
}

// kindOf picks the action for the server as init was given it: a URL a
// container reaches or a static binary in the workspace → the Docker
// action; a server that needs a runtime (Node, Python, Go…), one started
// on the runner's localhost, or by --server-start → host mode (README,
// "Two actions: which one for which server").
func kindOf(cfg *config.Config) serverKind {
	dir, _ := os.Getwd()
	k := kindOfCmd(cfg)
	cmd := cfg.ServerCmd
	if cfg.ServerStart != "" {
		cmd = cfg.ServerStart
	}
	if cfg.ServerStart != "" || cfg.ServerURL == "" {
		if argv, err := cmdline.Split(cmd); err == nil && len(argv) > 0 {
			k.Outside = outsideProgram(argv[0], dir, exec.LookPath)
		}
	}
	if k.Outside != "" && !k.Host {
		k = serverKind{Host: true, Outside: k.Outside, Why: k.Outside + " is outside this repository, so the Docker action's container does not have it: host mode, with a step that installs it on the runner (edit it)"}
	}
	return k
}

// outsideProgram is prog when it lies outside the repository in dir, else
// "": an absolute path elsewhere, one under ~, or a bare name that PATH
// finds outside dir and the system's /usr/bin and /bin (a runner has the
// common runtimes there; kindOfCmd names them).
func outsideProgram(prog, dir string, lookPath func(string) (string, error)) string {
	switch {
	case strings.HasPrefix(prog, "~"):
		return prog
	case filepath.IsAbs(prog):
		if rel, err := filepath.Rel(dir, prog); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return prog
		}
		return ""
	case strings.ContainsRune(prog, '/') || runtimes[path.Base(prog)]:
		return ""
	}
	found, err := lookPath(prog)
	if err != nil || !filepath.IsAbs(found) {
		return ""
	}
	for _, sys := range []string{"/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/"} {
		if strings.HasPrefix(found, sys) {
			return ""
		}
	}
	if rel, err := filepath.Rel(dir, found); err == nil && !strings.HasPrefix(rel, "..") {
		return ""
	}
	return found
}

// runtimes are the programs kindOfCmd knows: the workflow sets them up,
// or a runner has them.
var runtimes = map[string]bool{}

func init() {
	for _, p := range strings.Fields("node npx npm pnpm yarn bun deno tsx python python3 uv uvx pipx poetry pdm hatch go sh bash ruby java dotnet php docker npx.cmd") {
		runtimes[p] = true
	}
}

// kindOfCmd is kindOf by the command's kind alone.
func kindOfCmd(cfg *config.Config) serverKind {
	switch {
	case cfg.ServerStart != "":
		return serverKind{Host: true, Why: "mcp-eval starts the server (server-start) on the runner's localhost, which the Docker action's container cannot reach, so host mode"}
	case cfg.ServerURL != "":
		if u, err := url.Parse(cfg.ServerURL); err == nil && isLocal(u.Hostname()) {
			return serverKind{Host: true, Why: "the server listens on localhost, which the Docker action's container cannot reach, so host mode; start it in a step before mcp-eval"}
		}
		return serverKind{Why: "a URL the Docker action's container reaches"}
	}
	argv, err := cmdline.Split(cfg.ServerCmd)
	if err != nil || len(argv) == 0 {
		return serverKind{Host: true, Why: "a stdio server command, in host mode"}
	}
	prog := path.Base(argv[0])
	switch prog {
	case "node", "npx", "npm", "pnpm", "yarn", "bun", "deno", "tsx":
		return serverKind{Host: true, Node: true, Build: "npm ci", Why: "a Node stdio server: the Docker action's image has no Node, so host mode"}
	case "python", "python3", "uv", "uvx", "pipx", "poetry", "pdm", "hatch":
		return serverKind{Host: true, Why: "a Python stdio server: the Docker action's image has no Python, so host mode (ubuntu-latest has Python and uv)"}
	case "go":
		return serverKind{Host: true, Why: "a stdio server run with go: the Docker action's image has no Go, so host mode (ubuntu-latest has Go)"}
	case "sh", "bash", "ruby", "java", "dotnet", "php", "docker", "npx.cmd":
		return serverKind{Host: true, Why: "a stdio server that needs " + prog + ", which the Docker action's image lacks, so host mode"}
	}
	return serverKind{Why: "a binary in the workspace, which the Docker action runs in its image (build it static, e.g. CGO_ENABLED=0, in a step before)"}
}

func isLocal(host string) bool {
	switch strings.ToLower(host) {
	case "localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]":
		return true
	}
	return strings.HasPrefix(host, "127.")
}

// workflowFile is the GitHub Actions workflow: conformance on every push
// and pull request, the model layers nightly, by hand or with the
// run-evals label, least permissions, every third-party action pinned by
// its SHA, as examples/workflows are.
func workflowFile(cfg *config.Config, target string, k serverKind) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("# Written by mcp-eval init for %s:", target)
	w("# %s.", k.Why)
	w("#   - conformance on every push, pull request and merge queue run;")
	w("#   - the model layers nightly, by hand, or when the run-evals label is added to a pull")
	w("#     request (they need models below, and the provider's key as a repository secret).")
	w("# Fork pull requests get a read-only token and no secrets: conformance and the job summary")
	w("# only (never switch to pull_request_target to get secrets: it would run the fork's code).")
	w("name: mcp-eval")
	w("")
	w("on:")
	w("  push:")
	w("    branches: [main]")
	w("  pull_request:")
	w("    types: [opened, synchronize, reopened, labeled]")
	w("  merge_group:")
	w("  schedule:")
	w(`    - cron: "17 3 * * *"`)
	w("  workflow_dispatch:")
	w("")
	w("permissions: {}")
	w("")
	w("jobs:")
	w("  eval:")
	w("    if: github.event.action != 'labeled' || github.event.label.name == 'run-evals'")
	// On the job, not the workflow: GitHub claims a workflow's group before
	// it evaluates a job's if:, so any other label added to a pull request
	// would cancel a running evaluation; a skipped job claims no group
	// (https://docs.github.com/en/actions/using-jobs/using-concurrency).
	w("    # On the job: a workflow-level group would let any other label cancel a running evaluation.")
	w("    # Scheduled and manual runs get a group of their own, so no push cancels the nightly run.")
	w("    concurrency:")
	w("      group: mcp-eval-${{ (github.event_name == 'schedule' || github.event_name == 'workflow_dispatch') && github.run_id || github.event.pull_request.number || github.ref }}")
	w("      cancel-in-progress: ${{ github.event_name == 'pull_request' }}")
	w("    runs-on: ubuntu-latest")
	w("    timeout-minutes: 30")
	w("    permissions:")
	w("      contents: read         # the checkout")
	w("      actions: read          # the last green runs' report artifacts (baselines)")
	w("      pull-requests: write   # the comment and the label check")
	w("      security-events: write # results.sarif to code scanning")
	w("    steps:")
	w("      - uses: %s", checkoutAction)
	w("        with:")
	w("          persist-credentials: false")
	if k.Node {
		w("      - uses: %s", setupNodeAction)
		w("        with:")
		w("          node-version: 22")
	}
	if k.Build != "" {
		w("      - run: %s", k.Build)
	}
	if k.Outside != "" {
		prog := shellQuote(k.Outside)
		w("      # mcp-eval init was given %s, which is outside this repository: a runner does not", k.Outside)
		w("      # have it. Replace this step's run with what installs it there (a release download, a")
		w("      # package, a build), keeping the check; until then the job stops here, naming it.")
		w("      - name: Install the server (edit this step)")
		w("        run: |")
		w("          if ! command -v %s >/dev/null; then", prog)
		w("            echo '::error::%s is not on this runner: edit the \"Install the server\" step of .github/workflows/mcp-eval.yml to install it'", strings.ReplaceAll(k.Outside, "'", ""))
		w("            exit 1")
		w("          fi")
	}
	w("      - uses: %s", cacheAction)
	w("        with:")
	w("          path: .mcp-eval-cache")
	w("          key: mcp-eval-${{ hashFiles('golden/**') }}-${{ github.sha }}")
	w("          restore-keys: mcp-eval-${{ hashFiles('golden/**') }}-")
	keys := secretKeys(cfg.Models)
	if k.Host {
		w("      - uses: %s", mcpEvalSetup)
		w("      - id: eval")
		args := []string{"mcp-eval", "action"}
		switch {
		case cfg.ServerStart != "":
			args = append(args, "--server-start", shellQuote(cfg.ServerStart), "--server-url", shellQuote(cfg.ServerURL))
		case cfg.ServerURL != "":
			args = append(args, "--server-url", shellQuote(cfg.ServerURL))
		default:
			args = append(args, "--server-cmd", shellQuote(cfg.ServerCmd))
		}
		if cfg.Models != "" {
			args = append(args, "--models", shellQuote(cfg.Models))
		}
		w("        run: %s", yamlString(strings.Join(args, " ")))
		w("        env:")
		w("          GITHUB_TOKEN: ${{ github.token }}")
	} else {
		w("      - id: eval")
		w("        %s", pinMcpEvalAdvice)
		w("        uses: %s", mcpEvalAction)
		w("        with:")
		if cfg.ServerURL != "" {
			w("          server-url: %s", yamlString(cfg.ServerURL))
		} else {
			w("          server-cmd: %s", yamlString(cfg.ServerCmd))
		}
		if cfg.Models != "" {
			w("          models: %s", yamlString(cfg.Models))
		} else {
			w("          # models: ollama:qwen2.5:7b  # the model layers' models (README, \"Model providers\")")
		}
		if len(keys) > 0 {
			w("        env:")
		}
	}
	for _, key := range keys {
		w("          %s: ${{ secrets.%s }}", key, key)
	}
	if len(cfg.Headers.Vals) > 0 {
		w("          # The server's headers name environment variables ($VAR): set them here from secrets.")
	}
	w("      # The whole directory: report.json and carried/ are the next run's baseline.")
	w("      - if: always()")
	w("        uses: %s", uploadAction)
	w("        with:")
	w("          name: mcp-eval-report")
	w("          path: mcp-eval-report/")
	w("      - if: always() && steps.eval.outputs.sarif-path != ''")
	w("        uses: %s", sarifAction)
	w("        with:")
	w("          sarif_file: ${{ steps.eval.outputs.sarif-path }}")
	w("          category: mcp-eval")
	return b.String()
}

// secretKeys are the key variables of the models' providers that need a
// key (a local server needs none).
func secretKeys(models string) []string {
	var out []string
	seen := map[string]bool{}
	for _, spec := range strings.Split(models, ",") {
		d, _, err := providers.Parse(spec)
		if err != nil || !d.KeyRequired || len(d.Keys) == 0 || seen[d.Keys[0]] {
			continue
		}
		seen[d.Keys[0]] = true
		out = append(out, d.Keys[0])
	}
	return out
}

// shellQuote quotes s for a POSIX shell (and mcp-eval's own splitting of
// --server-cmd, which follows it).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// yamlString is s as a YAML scalar: plain when that reads back the same,
// else double-quoted (JSON's quoting is YAML's).
func yamlString(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#{}[]&*!|>'\"%@`,?\\") && strings.TrimSpace(s) == s &&
		!strings.HasPrefix(s, "-")
	if plain {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}
