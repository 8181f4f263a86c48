package e2e

import (
	"os"
	"testing"
)

// The npm reference servers server-filesystem and server-memory 2026.8.31
// (2025-11-25, stdio) join the verdict corpus: against 2026-07-28 they are
// legacy (era/modern fails, the migration list is given); with
// --protocol-version 2025-11-25 their complete set of failed checks is
// pinned and justified in e2e/README.md.
var npmLegacyPins = map[string]struct{ modern, legacy []string }{
	"server-filesystem": {
		modern: []string{"discover/capabilities", "discover/responds", "discover/supported-versions", "discover/without-client-info",
			"era/modern", "lint/near-duplicate-descriptions", "lint/param-descriptions", "pagination/invalid-cursor"},
		legacy: []string{"lint/near-duplicate-descriptions", "lint/param-descriptions", "pagination/invalid-cursor"},
	},
	"server-memory": {
		modern: []string{"discover/capabilities", "discover/responds", "discover/supported-versions", "discover/without-client-info",
			"era/modern", "lint/param-descriptions", "pagination/invalid-cursor"},
		legacy: []string{"lint/param-descriptions", "pagination/invalid-cursor"},
	},
}

func TestNPMLegacyServers(t *testing.T) {
	d := requireDeps(t)
	servers := map[string]string{
		"server-filesystem": os.Getenv("MCP_EVAL_SERVER_FILESYSTEM"),
		"server-memory":     os.Getenv("MCP_EVAL_SERVER_MEMORY"),
	}
	for _, name := range []string{"server-filesystem", "server-memory"} {
		t.Run(name, func(t *testing.T) {
			js := servers[name]
			if js == "" {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s (CI=true; MCP_EVAL_SERVER_FILESYSTEM/MEMORY unset)", notInstalled)
				}
				t.Skip(notInstalled + " (this server was added later: re-run it)")
			}
			argv := []string{d.Node22, js}
			if name == "server-filesystem" {
				root := t.TempDir()
				if err := os.WriteFile(root+"/a.txt", []byte("hello\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				argv = append(argv, root)
			}
			cmd := commandLine(argv...)
			pins := npmLegacyPins[name]
			for _, mode := range []string{"2026-07-28", "2025-11-25"} {
				args := []string{"--server-cmd", cmd}
				want := pins.modern
				if mode == "2025-11-25" {
					args = append(args, "--protocol-version", mode)
					want = pins.legacy
				}
				run := runMCPEval(t, args...)
				logRun(t, name+" "+mode, run)
				rep := run.mustReport(t)
				if rep.Server.Era != "legacy" {
					t.Errorf("%s: era %q, want legacy", mode, rep.Server.Era)
				}
				rep.wantFailed(t, mode, want)
				if mode == "2026-07-28" && len(rep.Server.Migration) == 0 {
					t.Error("no migration list for a legacy server")
				}
			}
		})
	}
}
