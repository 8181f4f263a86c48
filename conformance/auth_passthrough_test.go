package conformance

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/report"
)

// TestPassthroughCheckAgain: a failure found while the conformance layer
// probed stands (nothing to judge again); an empty listener's skip is
// judged again over what arrived since, here the upstream's own
// credential (a pass counting the whole run's requests); a check Run did
// not run is not judged again.
func TestPassthroughCheckAgain(t *testing.T) {
	t.Parallel()
	res := evaluateAuthPassthrough(t, "auth/no-token-passthrough", nil)
	if _, ok := res.PassthroughCheck(byID(res)["auth/no-token-passthrough"]); ok {
		t.Error("a failure of the conformance layer was judged again")
	}
	var addr string
	res = evaluateAuthPassthrough(t, "", func(l string) { addr = l })
	prev := byID(res)["auth/no-token-passthrough"]
	if prev.Status != report.StatusSkip {
		t.Fatalf("before: %s %q", prev.Status, prev.Message)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/upstream/v1", nil)
	req.Header.Set("Authorization", "Bearer the-upstream-s-own-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	again, ok := res.PassthroughCheck(prev)
	if !ok || again.Status != report.StatusPass || !strings.Contains(again.Info, "1 requests reached the passthrough listener during the run") {
		t.Errorf("again: %v %s %q %q", ok, again.Status, again.Message, again.Info)
	}
	if _, ok := res.PassthroughCheck(byID(res)["auth/malformed-token"]); ok {
		t.Error("another check was judged again")
	}
	without := evaluateAuthStatic(t, "")
	if _, ok := without.PassthroughCheck(byID(without)["auth/no-token-passthrough"]); ok {
		t.Error("a run without a listener was judged again")
	}
}
