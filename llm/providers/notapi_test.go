package providers

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/llmtest"
	"github.com/mcp-eval/mcp-eval/llm/providertest"
)

// TestProbeCatchesABaseURLThatIsNoModelAPI: a base URL that answers but is
// not a model API is one probe line with the likely fix, a configuration
// error (never "unreachable", and never every case errored): the server's
// root where its API is under /v1, and a web page.
func TestProbeCatchesABaseURLThatIsNoModelAPI(t *testing.T) {
	def, _ := Lookup("openai")
	probe := func(t *testing.T, base string) error {
		t.Helper()
		p, err := New(def.Name, func(k string) string { return map[string]string{"OPENAI_BASE_URL": base}[k] }, llm.WithMaxRetries(0))
		if err != nil {
			t.Fatal(err)
		}
		err = p.(llm.Prober).Probe(t.Context(), "m")
		var pe *llm.ProbeError
		var ne *llm.NotModelAPIError
		if !errors.As(err, &pe) || pe.Unreachable() || !errors.As(err, &ne) {
			t.Fatalf("probe of %s: %v; want a NotModelAPIError, not unreachable", base, err)
		}
		return err
	}

	srv, env, _ := providertest.Serve(t, def, llmtest.Options{Models: []string{"m"}})
	if !strings.HasSuffix(env["OPENAI_BASE_URL"], "/v1") {
		t.Fatalf("the emulation's base %q", env["OPENAI_BASE_URL"])
	}
	err := probe(t, srv.URL)
	if want := "the base URL lacks /v1: " + srv.URL + "/v1 answers as a model API"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v\nwant %q", err, want)
	}

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<!doctype html><html><title>Open WebUI</title></html>"))
	}))
	t.Cleanup(page.Close)
	err = probe(t, page.URL)
	for _, want := range []string{"not a model API: GET " + page.URL + "/models answered a page that is not JSON", "Open WebUI", "try " + page.URL + "/v1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant %q", err, want)
		}
	}
	if err := probe(t, page.URL+"/v1"); !strings.Contains(err.Error(), "check the base URL") {
		t.Errorf("a page at /v1: %v", err)
	}
}
