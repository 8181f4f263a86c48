package bench

// Masking cost on a large report ("Secrets"): a 50 MB report.json
// and its Markdown rendering masked with six secrets, as the outputs are.
//
//	MCP_EVAL_BENCH_SPEED=1 go test ./bench -run TestRedactLargeReport -v
//	go test ./bench -run '^$' -bench Redact -benchtime 5x

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/redact"
)

// largeReport is a report.json of about size bytes shaped like a real one:
// checks whose evidence quotes server answers (JSON with escapes, URLs
// with %XX, HTML entities, line breaks), and a secret echoed in a few.
func largeReport(size int) []byte {
	type check struct {
		ID, Message string
		Evidence    json.RawMessage
	}
	var checks []check
	n := 0
	for i := 0; n < size; i++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"line one\nline \"two\" <b>&amp;</b> https://example.com/a%%2Fb?q=%%C3%%BC&x=1 caf\u00e9 %d"}],"resultType":"complete"}}`, i, i)
		msg := fmt.Sprintf("tools/call answered in %d ms; see the evidence", i%997)
		if i%5000 == 0 {
			msg += " key sk-proj-" + strings.Repeat("a1B2", 10)
		}
		ev, _ := json.Marshal(map[string]any{"request": `{"method":"tools/call","params":{"name":"get_forecast"}}`, "response": body})
		checks = append(checks, check{ID: fmt.Sprintf("group/check-%d", i), Message: msg, Evidence: ev})
		n += len(body) + len(msg) + 200
	}
	b, _ := json.MarshalIndent(map[string]any{"checks": checks}, "", "  ")
	return b
}

func redactor(tb testing.TB) *redact.Redactor {
	r, err := redact.New(
		redact.Secret{Source: "OPENAI_API_KEY", Value: "sk-proj-" + strings.Repeat("a1B2", 10)},
		redact.Secret{Source: "ANTHROPIC_API_KEY", Value: "sk-ant-api03-" + strings.Repeat("Zz9_", 20)},
		redact.Secret{Source: "GITHUB_TOKEN", Value: "ghs_" + strings.Repeat("Q7w", 12)},
		redact.Secret{Source: "--header Authorization", Value: "Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"},
		redact.Secret{Source: "--header Authorization (credential)", Value: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"},
		redact.Secret{Source: "--secrets DB_PASSWORD", Value: "p@ss/w0rd<&>"},
	)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestRedactLargeReport masks a 50 MB report.json (JSON) and the same
// bytes as text (the Markdown, XML and HTML sinks), and reports the
// medians of three runs each; it fails only if a pass takes over 20 s, a
// bound for a hung or quadratic masker rather than a speed target.
func TestRedactLargeReport(t *testing.T) {
	speedBench(t) // builds and masks a 50 MB report
	doc := largeReport(50 << 20)
	r := redactor(t)
	for _, sink := range []struct {
		name string
		mask func([]byte) []byte
	}{{"JSON", r.JSON}, {"text", r.Bytes}} {
		var ds []time.Duration
		var out []byte
		for range 3 {
			start := time.Now()
			out = sink.mask(doc)
			ds = append(ds, time.Since(start))
		}
		med := p50(ds)
		t.Logf("%s: %.1f MB masked in %v (median of 3; %.0f MB/s); %d bytes out", sink.name, float64(len(doc))/1e6, med.Round(time.Millisecond), float64(len(doc))/1e6/med.Seconds(), len(out))
		if strings.Contains(string(out), "sk-proj-"+strings.Repeat("a1B2", 10)) {
			t.Errorf("%s: the key survived", sink.name)
		}
		if med > 20*time.Second {
			overLimit(t, "%s: %v for 50 MB", sink.name, med)
		}
	}
}

func BenchmarkRedactJSON(b *testing.B) {
	doc := largeReport(50 << 20)
	r := redactor(b)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r.JSON(doc)
	}
}

func BenchmarkRedactText(b *testing.B) {
	doc := largeReport(50 << 20)
	r := redactor(b)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		r.Bytes(doc)
	}
}
