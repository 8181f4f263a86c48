package spectest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestSchemaFromEnv(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "2026-07-28", "schema.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDir, dir)
	if got := Schema(t, "2026-07-28"); got != p {
		t.Errorf("Schema = %q, want %q", got, p)
	}
	if got, tried := find("1999-01-01"); got != "" || tried == "" {
		t.Errorf("find of an absent version = %q (%q), want nothing and a reason", got, tried)
	}
}

// TestMissingSchema runs Schema in a subprocess without any schema: it
// skips normally and fails under MCP_EVAL_REQUIRE_SPEC=1.
func TestMissingSchema(t *testing.T) {
	if os.Getenv("SPECTEST_CHILD") == "1" {
		Schema(t, "1999-01-01")
		t.Log("not reached")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, require := range []string{"", "1"} {
		cmd := testCommand(t, exe, require)
		out, err := cmd.CombinedOutput()
		if require == "1" {
			if err == nil {
				t.Errorf("%s=1: a missing schema passed:\n%s", EnvRequire, out)
			}
			continue
		}
		if err != nil {
			t.Errorf("without %s a missing schema failed: %v\n%s", EnvRequire, err, out)
		}
	}
}

func testCommand(t *testing.T, exe, require string) *exec.Cmd {
	cmd := exec.Command(exe, "-test.run=^TestMissingSchema$", "-test.v")
	cmd.Env = append(cmd.Environ(), "SPECTEST_CHILD=1", EnvDir+"="+t.TempDir(), EnvRequire+"="+require)
	return cmd
}
