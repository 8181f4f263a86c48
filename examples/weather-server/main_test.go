package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

func TestLookupWeather(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      weatherInput
		want    weatherOutput
		wantErr string // substring; "" means success
	}{
		{
			name: "celsius by default",
			in:   weatherInput{City: "Paris"},
			want: weatherOutput{City: "Paris", Country: "FR", StationID: "LFPG", Units: "celsius",
				Temperature: 22.4, Conditions: "sunny", HumidityPercent: 45, WindKph: 9, ObservedAt: observedAt},
		},
		{
			name: "fahrenheit rounded to one decimal",
			in:   weatherInput{City: "paris", Units: "fahrenheit"},
			want: weatherOutput{City: "Paris", Country: "FR", StationID: "LFPG", Units: "fahrenheit",
				Temperature: 72.3, Conditions: "sunny", HumidityPercent: 45, WindKph: 9, ObservedAt: observedAt},
		},
		{
			name: "alias with surrounding space",
			in:   weatherInput{City: "  NYC "},
			want: weatherOutput{City: "New York", Country: "US", StationID: "KJFK", Units: "celsius",
				Temperature: 27.9, Conditions: "humid and sunny", HumidityPercent: 72, WindKph: 11, ObservedAt: observedAt},
		},
		{name: "empty city", in: weatherInput{City: " "}, wantErr: "city is empty"},
		{name: "unknown city lists the covered ones", in: weatherInput{City: "Atlantis"}, wantErr: "covered cities: Berlin"},
		{name: "bad units", in: weatherInput{City: "Paris", Units: "kelvin"}, wantErr: `units "kelvin"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lookupWeather(tt.in)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr == "" {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("lookupWeather(%+v) mismatch (-want +got):\n%s", tt.in, diff)
				}
			}
		})
	}
}

func TestSearchInvoices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        searchInvoicesInput
		wantIDs   []string
		wantTotal int
		wantErr   string
	}{
		{
			name:      "every invoice of a customer, newest first",
			in:        searchInvoicesInput{Customer: "Acme Corp"},
			wantIDs:   []string{"INV-1012", "INV-1009", "INV-1006", "INV-1003", "INV-1001"},
			wantTotal: 5,
		},
		{
			name:      "partial, case-insensitive customer and a status",
			in:        searchInvoicesInput{Customer: "acme", Status: "paid"},
			wantIDs:   []string{"INV-1009", "INV-1003", "INV-1001"},
			wantTotal: 3,
		},
		{
			name:      "limit keeps the total",
			in:        searchInvoicesInput{Customer: "acme", Status: "paid", Limit: 2},
			wantIDs:   []string{"INV-1009", "INV-1003"},
			wantTotal: 3,
		},
		{
			name:      "since is inclusive",
			in:        searchInvoicesInput{Customer: "globex", Since: "2026-05-22"},
			wantIDs:   []string{"INV-1011", "INV-1007"},
			wantTotal: 2,
		},
		{
			name:      "no match is an empty list",
			in:        searchInvoicesInput{Customer: "Wayne Enterprises"},
			wantIDs:   []string{},
			wantTotal: 0,
		},
		{name: "empty customer", in: searchInvoicesInput{Customer: ""}, wantErr: "customer is empty"},
		{name: "unknown status", in: searchInvoicesInput{Customer: "acme", Status: "void"}, wantErr: `status "void"`},
		{name: "limit too large", in: searchInvoicesInput{Customer: "acme", Limit: 51}, wantErr: "limit 51"},
		{name: "negative limit", in: searchInvoicesInput{Customer: "acme", Limit: -1}, wantErr: "limit -1"},
		{name: "since not a date", in: searchInvoicesInput{Customer: "acme", Since: "last week"}, wantErr: `since "last week"`},
		{name: "since not a calendar date", in: searchInvoicesInput{Customer: "acme", Since: "2026-02-30"}, wantErr: "since"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := searchInvoices(tt.in)
			checkErr(t, err, tt.wantErr)
			if tt.wantErr != "" {
				return
			}
			if got.Invoices == nil {
				t.Fatal("Invoices is nil; want a non-nil slice so that it encodes as []")
			}
			ids := []string{}
			for _, inv := range got.Invoices {
				ids = append(ids, inv.ID)
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("invoice ids mismatch (-want +got):\n%s", diff)
			}
			if got.TotalMatches != tt.wantTotal {
				t.Errorf("TotalMatches = %d, want %d", got.TotalMatches, tt.wantTotal)
			}
		})
	}
}

func TestValidateEmail(t *testing.T) {
	t.Parallel()
	ok := sendEmailInput{To: "ana@example.com", Subject: "Invoice INV-1006", Body: "Please pay."}
	tests := []struct {
		name    string
		edit    func(*sendEmailInput)
		wantErr string
	}{
		{name: "valid", edit: func(*sendEmailInput) {}},
		{name: "not an address", edit: func(in *sendEmailInput) { in.To = "ana" }, wantErr: "not a bare email address"},
		{name: "display name", edit: func(in *sendEmailInput) { in.To = "Ana <ana@example.com>" }, wantErr: "not a bare email address"},
		{name: "two recipients", edit: func(in *sendEmailInput) { in.To = "a@example.com, b@example.com" }, wantErr: "not a bare email address"},
		{name: "blank subject", edit: func(in *sendEmailInput) { in.Subject = "  " }, wantErr: "subject is empty"},
		{name: "long subject", edit: func(in *sendEmailInput) { in.Subject = strings.Repeat("é", maxSubjectLen+1) }, wantErr: "subject has 201 characters"},
		{name: "blank body", edit: func(in *sendEmailInput) { in.Body = "\n" }, wantErr: "body is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := ok
			tt.edit(&in)
			checkErr(t, validateEmail(in), tt.wantErr)
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatalf("unexpected error: %v", err)
	case want != "" && err == nil:
		t.Fatalf("got no error, want one containing %q", want)
	case want != "" && !strings.Contains(err.Error(), want):
		t.Fatalf("error %q does not contain %q", err, want)
	}
}

// connect returns a client session to a fresh server over in-memory
// transports, and the server's outbox.
func connect(t *testing.T) (*mcp.ClientSession, *outbox) {
	t.Helper()
	ob := new(outbox)
	srv := newServer(ob, testLogger(t))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "weather-test", Version: "0"}, nil)
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ob
}

// TestToolCalls goes through the SDK, so that schema validation runs too: bad
// input must come back as a tool result with isError, never as a protocol
// error or a crash.
func TestToolCalls(t *testing.T) {
	t.Parallel()
	cs, ob := connect(t)
	tests := []struct {
		tool       string
		args       map[string]any
		wantError  bool
		wantInText string
	}{
		{"get_weather", map[string]any{"city": "Tokyo"}, false, `"stationId":"RJTT"`},
		{"get_weather", map[string]any{"city": "Tokyo", "units": "fahrenheit"}, false, `"temperature":86.2`},
		{"get_weather", map[string]any{}, true, "city"},
		{"get_weather", map[string]any{"city": "Tokyo", "units": "kelvin"}, true, "units"},
		{"get_weather", map[string]any{"city": 42}, true, "city"},
		{"get_weather", map[string]any{"city": "Tokyo", "extra": true}, true, "extra"},
		{"get_weather", map[string]any{"city": "Gotham"}, true, "covered cities"},
		{"search_invoices", map[string]any{"customer": "initech", "status": "overdue"}, false, `"INV-1005"`},
		{"search_invoices", map[string]any{"customer": "initech", "limit": 0}, true, "limit"},
		{"search_invoices", map[string]any{"customer": "initech", "limit": 51}, true, "limit"},
		{"search_invoices", map[string]any{"customer": "initech", "status": "void"}, true, "status"},
		{"search_invoices", map[string]any{"customer": "initech", "since": "yesterday"}, true, "since"},
		{"send_email", map[string]any{"to": "ana@example.com", "subject": "Hi", "body": "Hello"}, false, `"messageId":"msg-000001"`},
		{"send_email", map[string]any{"to": "ana", "subject": "Hi", "body": "Hello"}, true, "email address"},
		{"send_email", map[string]any{"to": "ana@example.com", "subject": "", "body": "Hello"}, true, "subject"},
		{"send_email", map[string]any{"to": "ana@example.com", "subject": "Hi"}, true, "body"},
	}
	for _, tt := range tests {
		args, _ := json.Marshal(tt.args)
		t.Run(tt.tool+string(args), func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("CallTool: protocol error %v; want a tool result", err)
			}
			if res.IsError != tt.wantError {
				t.Errorf("IsError = %v, want %v (content %s)", res.IsError, tt.wantError, text(res))
			}
			if !strings.Contains(text(res), tt.wantInText) {
				t.Errorf("content %s does not contain %s", text(res), tt.wantInText)
			}
			if !tt.wantError && res.StructuredContent == nil {
				t.Error("StructuredContent is missing")
			}
		})
	}
	// Exactly the one valid send_email call reached the outbox.
	if got := ob.messages(); len(got) != 1 || got[0].To != "ana@example.com" {
		t.Errorf("outbox = %+v, want the one message to ana@example.com", got)
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestToolMetadata keeps the promise that this server passes mcp-eval's
// tool-metadata lint: specific descriptions and a description on every
// parameter, and the annotations the README describes.
func TestToolMetadata(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.Description) < 40 {
			t.Errorf("%s: description %q is shorter than 40 characters", tool.Name, tool.Description)
		}
		var schema struct {
			Type       string `json:"type"`
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		raw, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s: input schema: %v", tool.Name, err)
		}
		if schema.Type != "object" {
			t.Errorf("%s: input schema type = %q, want object", tool.Name, schema.Type)
		}
		for p, s := range schema.Properties {
			if len(s.Description) < 10 {
				t.Errorf("%s.%s: parameter description %q is missing or too short", tool.Name, p, s.Description)
			}
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		if tool.Annotations == nil {
			t.Fatalf("%s: no annotations", tool.Name)
		}
		readOnly := tool.Name != "send_email"
		if tool.Annotations.ReadOnlyHint != readOnly {
			t.Errorf("%s: readOnlyHint = %v, want %v", tool.Name, tool.Annotations.ReadOnlyHint, readOnly)
		}
	}
	if diff := cmp.Diff([]string{"get_weather", "search_invoices", "send_email"}, names); diff != "" {
		t.Errorf("tools/list names (-want +got):\n%s", diff)
	}
	ann := res.Tools[2].Annotations
	if ann.DestructiveHint == nil || *ann.DestructiveHint || ann.OpenWorldHint == nil || !*ann.OpenWorldHint {
		t.Errorf("send_email annotations = %+v, want destructiveHint false and openWorldHint true", ann)
	}
}

func TestResourcesAndPrompt(t *testing.T) {
	t.Parallel()
	cs, _ := connect(t)
	ctx := t.Context()

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "weather://stations/LFPG"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; !strings.Contains(got, `"city":"Paris"`) {
		t.Errorf("weather://stations/LFPG = %s, want Paris", got)
	}
	if res.TTLMs != readTTLMilliseconds || res.CacheScope != "public" {
		t.Errorf("cache fields = %d %q, want %d public", res.TTLMs, res.CacheScope, readTTLMilliseconds)
	}
	res, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: stationsURI})
	if err != nil {
		t.Fatal(err)
	}
	var list []station
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &list); err != nil || len(list) != len(stations) {
		t.Errorf("weather://stations: %d stations, error %v; want %d", len(list), err, len(stations))
	}
	for _, uri := range []string{"weather://stations/NOPE", "weather://elsewhere"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "Resource not found") {
			t.Errorf("ReadResource(%s) error = %v, want resource not found", uri, err)
		}
	}

	for _, args := range []map[string]string{nil, {"city": "sydney"}} {
		p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weather_report", Arguments: args})
		if err != nil {
			t.Fatalf("GetPrompt(%v): %v", args, err)
		}
		if len(p.Messages) != 1 || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, "get_weather") {
			t.Errorf("GetPrompt(%v) = %+v, want one message mentioning get_weather", args, p.Messages)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weather_report", Arguments: map[string]string{"city": "Gotham"}}); err == nil {
		t.Error("GetPrompt(city=Gotham) succeeded, want invalid params")
	}
}

// modernMeta is the _meta every 2026-07-28 request carries.
func modernMeta(version string) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	}
}

type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Result map[string]any  `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// post sends one raw JSON-RPC request the way a 2026-07-28 client does and
// decodes the answer, whether it comes as JSON or as an SSE stream.
func post(t *testing.T, url, method, name string, params map[string]any, header map[string]string) (int, rpcResponse) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	resp, data := postRaw(t, url, method, name, body, header)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = lastSSEData(t, data)
	}
	var r rpcResponse
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: status %d, body %q: %v", method, resp.StatusCode, data, err)
	}
	return resp.StatusCode, r
}

// lastSSEData returns the data of the last event in an SSE stream, which
// for a request-scoped stream is the JSON-RPC response.
func lastSSEData(t *testing.T, stream []byte) []byte {
	t.Helper()
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if d, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			last = bytes.TrimSpace(d)
		}
	}
	if last == nil {
		t.Fatalf("no data in SSE stream %q", stream)
	}
	return last
}

func withMeta(params map[string]any) map[string]any {
	out := map[string]any{"_meta": modernMeta(modernVersion)}
	for k, v := range params {
		out[k] = v
	}
	return out
}

func TestHTTPEndToEnd(t *testing.T) {
	t.Parallel()
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("jsonResponse=%v", jsonResponse), func(t *testing.T) {
			t.Parallel()
			ts := httptest.NewServer(newHTTPHandler(newServer(new(outbox), testLogger(t)), jsonResponse, testLogger(t)))
			t.Cleanup(ts.Close)

			for _, path := range []string{"/mcp", "/"} {
				status, r := post(t, ts.URL+path, "server/discover", "", withMeta(nil), nil)
				if status != http.StatusOK || r.Error != nil {
					t.Fatalf("server/discover at %s: status %d, error %+v", path, status, r.Error)
				}
				checkCacheable(t, "server/discover", r.Result)
				if got := fmt.Sprint(r.Result["supportedVersions"]); !strings.Contains(got, modernVersion) {
					t.Errorf("supportedVersions = %s, want it to include %s", got, modernVersion)
				}
				if _, ok := r.Result["capabilities"].(map[string]any)["tools"]; !ok {
					t.Errorf("capabilities = %v, want tools", r.Result["capabilities"])
				}
			}

			status, r := post(t, ts.URL+"/mcp", "tools/call", "get_weather",
				withMeta(map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "London"}}), nil)
			if status != http.StatusOK || r.Error != nil {
				t.Fatalf("tools/call: status %d, error %+v", status, r.Error)
			}
			if got := r.Result["resultType"]; got != "complete" {
				t.Errorf("tools/call resultType = %v, want complete", got)
			}
			sc, _ := r.Result["structuredContent"].(map[string]any)
			if sc["stationId"] != "EGLL" || sc["temperature"] != 17.2 || sc["units"] != "celsius" {
				t.Errorf("structuredContent = %v, want London in celsius", sc)
			}
			// The same JSON also travels as text for older clients.
			content, _ := r.Result["content"].([]any)
			if len(content) != 1 || !strings.Contains(fmt.Sprint(content[0]), `"stationId":"EGLL"`) {
				t.Errorf("content = %v, want the structured JSON as text", content)
			}

			status, r = post(t, ts.URL+"/mcp", "tools/list", "", withMeta(nil), nil)
			if status != http.StatusOK || r.Error != nil {
				t.Fatalf("tools/list: status %d, error %+v", status, r.Error)
			}
			checkCacheable(t, "tools/list", r.Result)
		})
	}
}

func checkCacheable(t *testing.T, method string, result map[string]any) {
	t.Helper()
	if got := result["resultType"]; got != "complete" {
		t.Errorf("%s resultType = %v, want complete", method, got)
	}
	if ttl, ok := result["ttlMs"].(float64); !ok || ttl < 0 || ttl != float64(int64(ttl)) {
		t.Errorf("%s ttlMs = %v, want an integer >= 0", method, result["ttlMs"])
	}
	if got := result["cacheScope"]; got != "public" && got != "private" {
		t.Errorf("%s cacheScope = %v, want public or private", method, got)
	}
	if _, ok := result["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"]; !ok {
		t.Errorf("%s: no serverInfo in _meta", method)
	}
}

// TestHTTPErrors pins the 2026-07-28 error answers, including the ones
// compat.go fixes; if a newer SDK gets them right on its own, the
// corresponding workaround can go.
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(newHTTPHandler(newServer(new(outbox), testLogger(t)), false, testLogger(t)))
	t.Cleanup(ts.Close)
	url := ts.URL + "/mcp"
	call := withMeta(map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}})

	tests := []struct {
		name       string
		method     string
		mcpName    string
		params     map[string]any
		header     map[string]string
		wantStatus int
		wantCode   int // 0: a result
	}{
		{"unsupported old version", "server/discover", "", map[string]any{"_meta": modernMeta("1900-01-01")},
			map[string]string{"MCP-Protocol-Version": "1900-01-01"}, 400, codeUnsupportedVersion},
		{"unsupported new version", "server/discover", "", map[string]any{"_meta": modernMeta("2099-01-01")},
			map[string]string{"MCP-Protocol-Version": "2099-01-01"}, 400, codeUnsupportedVersion},
		{"old header, other body version", "server/discover", "", map[string]any{"_meta": modernMeta(modernVersion)},
			map[string]string{"MCP-Protocol-Version": "1900-01-01"}, 400, codeHeaderMismatch},
		{"header and body versions differ", "server/discover", "", map[string]any{"_meta": modernMeta("1900-01-01")},
			nil, 400, codeHeaderMismatch},
		{"no _meta", "server/discover", "", map[string]any{}, nil, 400, -32602},
		{"removed method", "ping", "", withMeta(nil), nil, 404, -32601},
		{"Mcp-Name missing", "tools/call", "", call, nil, 400, codeHeaderMismatch},
		{"Mcp-Name differs", "tools/call", "send_email", call, nil, 400, codeHeaderMismatch},
		{"Mcp-Name in base64", "tools/call", "=?base64?Z2V0X3dlYXRoZXI=?=", call, nil, 200, 0},
		{"Mcp-Name in broken base64", "tools/call", "=?base64?Z2V0X3dlYXRoZXI?=", call, nil, 400, codeHeaderMismatch},
		{"resource not found", "resources/read", "weather://stations/NOPE",
			withMeta(map[string]any{"uri": "weather://stations/NOPE"}), nil, 400, -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, r := post(t, url, tt.method, tt.mcpName, tt.params, tt.header)
			gotCode := 0
			if r.Error != nil {
				gotCode = r.Error.Code
			}
			if status != tt.wantStatus || gotCode != tt.wantCode {
				t.Errorf("got status %d code %d (%+v), want %d %d", status, gotCode, r.Error, tt.wantStatus, tt.wantCode)
			}
			if string(r.ID) != "7" {
				t.Errorf("id = %s, want 7 echoed", r.ID)
			}
			if tt.wantCode == codeUnsupportedVersion {
				var data struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				}
				if err := json.Unmarshal(r.Error.Data, &data); err != nil || len(data.Supported) == 0 || data.Requested == "" {
					t.Errorf("error data = %s, want supported and requested", r.Error.Data)
				}
			}
		})
	}

	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequestWithContext(t.Context(), m, url, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d, want 405", m, resp.StatusCode)
		}
	}
	status, _ := postStatus(t, url, map[string]string{"Origin": "http://evil.example"})
	if status != http.StatusForbidden {
		t.Errorf("cross-origin POST: status %d, want 403", status)
	}
}

func postStatus(t *testing.T, url string, header map[string]string) (int, []byte) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp, data := postRaw(t, url, "server/discover", "", []byte(body), header)
	return resp.StatusCode, data
}

// postRaw POSTs body with the headers of a 2026-07-28 request for method
// (and name, when not ""), header on top, and returns the response with
// its whole body read.
func postRaw(t *testing.T, url, method, name string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", modernVersion)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// TestStdio drives the stdio transport with raw lines, as mcp-eval does: no
// initialize, every request with its own _meta.
func TestStdio(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := newServer(new(outbox), testLogger(t))
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), newStdioTransport(inR, outW)) }()

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + meta + `,"name":"get_weather","arguments":{"city":"Berlin"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		// Without _meta, even after modern requests on the same process.
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{` + meta + `}}`,
		`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{` + meta + `,"uri":"weather://nowhere"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{` + meta + `,"uri":"weather://stations"}}`,
	}
	go func() {
		for _, l := range lines {
			io.WriteString(inW, l+"\n")
		}
	}()

	wantCodes := map[string]int{"1": 0, "2": 0, "3": codeUnsupportedVersion, "4": -32602, "5": -32601, "6": -32602, "7": 0}
	got := map[string]rpcResponse{}
	dec := json.NewDecoder(outR)
	for len(got) < len(wantCodes) {
		var r rpcResponse
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("reading stdout after %d responses: %v", len(got), err)
		}
		got[string(r.ID)] = r
	}
	for id, want := range wantCodes {
		r := got[id]
		code := 0
		if r.Error != nil {
			code = r.Error.Code
		}
		if code != want {
			t.Errorf("id %s: code %d (%+v), want %d", id, code, r.Error, want)
		}
	}
	checkCacheable(t, "server/discover", got["1"].Result)
	checkCacheable(t, "resources/read", got["7"].Result)
	if sc, _ := got["2"].Result["structuredContent"].(map[string]any); sc["stationId"] != "EDDB" {
		t.Errorf("get_weather Berlin structuredContent = %v", sc)
	}

	// Closing stdin is how a client stops a stdio server.
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after stdin EOF: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("server did not stop after stdin was closed")
	}
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-nope"}, &stderr); code != 2 {
		t.Errorf("run(-nope) = %d, want 2", code)
	}
	if code := run(t.Context(), []string{"extra"}, &stderr); code != 2 {
		t.Errorf("run(extra) = %d, want 2", code)
	}
	if code := run(t.Context(), []string{"-http", "256.0.0.1:bad"}, &stderr); code != 1 {
		t.Errorf("run(-http bad) = %d, want 1", code)
	}
}

// TestSDKClient checks that the Go SDK's own client, which negotiates
// 2026-07-28 through server/discover, works through the workarounds on both
// transports.
func TestSDKClient(t *testing.T) {
	t.Parallel()
	transports := map[string]func(t *testing.T) mcp.Transport{
		"http": func(t *testing.T) mcp.Transport {
			ts := httptest.NewServer(newHTTPHandler(newServer(new(outbox), testLogger(t)), false, testLogger(t)))
			t.Cleanup(ts.Close)
			return &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}
		},
		"stdio": func(t *testing.T) mcp.Transport {
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			srv := newServer(new(outbox), testLogger(t))
			done := make(chan struct{})
			go func() {
				defer close(done)
				srv.Run(context.Background(), newStdioTransport(inR, outW))
			}()
			t.Cleanup(func() { inW.Close(); <-done })
			return &mcp.IOTransport{Reader: outR, Writer: inW}
		},
	}
	for name, newTransport := range transports {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			client := mcp.NewClient(&mcp.Implementation{Name: "weather-test", Version: "0"}, nil)
			cs, err := client.Connect(t.Context(), newTransport(t), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != modernVersion {
				t.Errorf("negotiated %q, want %q", got, modernVersion)
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_weather", Arguments: map[string]any{"city": "Cape Town"}})
			if err != nil || res.IsError {
				t.Fatalf("CallTool: %v %s", err, text(res))
			}
			if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "weather://stations/FACT"}); err != nil {
				t.Errorf("ReadResource: %v", err)
			}
		})
	}
}

// TestStdioAnswersBeforeExit: a client that writes its requests and closes
// stdin at once (echo '…' | weather-server) still gets every answer.
func TestStdioAnswersBeforeExit(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	var in strings.Builder
	for i := range 5 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s,"name":"get_weather","arguments":{"city":"Sydney"}}}`+"\n", i, meta)
	}
	// The last line has no newline, and a cancelled request is not waited for.
	fmt.Fprintf(&in, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone"}}`+"\n")
	fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":"last","method":"server/discover","params":{%s}}`, meta)

	var out bytes.Buffer
	srv := newServer(new(outbox), testLogger(t))
	start := time.Now()
	if err := srv.Run(t.Context(), newStdioTransport(strings.NewReader(in.String()), &out)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if d := time.Since(start); d >= drainTimeout {
		t.Errorf("Run took %v, want well under the drain timeout", d)
	}
	if got := strings.Count(out.String(), `"result"`); got != 6 {
		t.Errorf("got %d results, want 6:\n%s", got, out.String())
	}
}

// TestStdioSurvivesMalformedJSON: a line that is not JSON gets a parse error
// and the server goes on serving (workaround 5).
func TestStdioSurvivesMalformedJSON(t *testing.T) {
	t.Parallel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n" +
		fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{%s}}`, meta) + "\n"
	var out bytes.Buffer
	srv := newServer(new(outbox), testLogger(t))
	if err := srv.Run(t.Context(), newStdioTransport(strings.NewReader(in), &out)); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := out.String()
	if !strings.Contains(got, `"code":-32700`) || !strings.Contains(got, `"id":2,"result"`) {
		t.Errorf("want a parse error and then the discover result, got:\n%s", got)
	}
}

func (o *outbox) messages() []sentEmail {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]sentEmail(nil), o.sent...)
}
