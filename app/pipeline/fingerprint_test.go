package pipeline_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/app/apptest"
)

// TestFingerprintIndependentOfLayers: the server description is
// taken once after connecting, whatever the layers, so the same server has
// the same fingerprint, surface, serverInfo and capabilities in every run.
func TestFingerprintIndependentOfLayers(t *testing.T) {
	m := newModelRig(t, resilienceGolden)
	type seen struct {
		layers      string
		fingerprint string
		r           any
	}
	var want *seen
	for _, layers := range []string{"conformance", "behavior", "resilience,telemetry", "conformance,behavior,resilience,telemetry"} {
		code, stdout, stderr, path := m.run("out-"+layers, "--layers", layers)
		if code == 2 || code == 3 {
			t.Fatalf("--layers %s: exit %d\n%s\n%s", layers, code, stdout, stderr)
		}
		r := apptest.LoadReport(t, path)
		if r.Server.Fingerprint == "" || len(r.Surface.Tools) == 0 || len(r.Surface.Prompts) == 0 || len(r.Surface.Resources) == 0 || len(r.Server.ServerInfo) == 0 {
			t.Fatalf("--layers %s: fingerprint %q, surface %d tools %d prompts %d templates, serverInfo %s",
				layers, r.Server.Fingerprint, len(r.Surface.Tools), len(r.Surface.Prompts), len(r.Surface.Resources), r.Server.ServerInfo)
		}
		if r.Telemetry != nil && r.Telemetry.ToolList != nil {
			// One token-footprint figure: the conformance lint and the
			// telemetry footprint count the same bytes.
			for _, c := range r.Checks {
				if c.ID == "lint/token-footprint" && !strings.Contains(c.Info, fmt.Sprintf("about %d tokens", r.Telemetry.ToolList.EstimatedTokens)) {
					t.Errorf("lint/token-footprint says %q, telemetry %d tokens", c.Info, r.Telemetry.ToolList.EstimatedTokens)
				}
			}
		}
		got := &seen{layers: layers, fingerprint: r.Server.Fingerprint,
			r: []any{r.Surface, string(r.Server.ServerInfo), string(r.Server.Capabilities), r.Server.Era, r.Server.ProtocolVersion}}
		if want == nil {
			want = got
			continue
		}
		if got.fingerprint != want.fingerprint {
			t.Errorf("--layers %s: fingerprint %s, --layers %s: %s", layers, got.fingerprint, want.layers, want.fingerprint)
		}
		if !reflect.DeepEqual(got.r, want.r) {
			t.Errorf("--layers %s describes the server as\n%v\nbut --layers %s as\n%v", layers, got.r, want.layers, want.r)
		}
	}
}
