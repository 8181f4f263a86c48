package apptest

import (
	"bytes"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/mcptest"
	"github.com/mcp-eval/mcp-eval/internal/oauth/oauthtest"
	"github.com/mcp-eval/mcp-eval/internal/proc"
	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
)

// EchoingAuthServer is the fixture behind an OAuth resource server whose
// MCP handler echoes the access token it receives, in every spelling an
// encoder may give it, into its serverInfo name and every JSON-RPC error
// message: a server that logs or reflects credentials.
func EchoingAuthServer(t testing.TB, o oauthtest.Options, client oauthtest.Client) (*oauthtest.AuthServer, *oauthtest.Resource) {
	as, res, _ := EchoingAuthServerDeclared(t, o, client)
	return as, res
}

// EchoingAuthServerDeclared is EchoingAuthServer that also records, for
// each method, whether a request of it declared the
// oauth-client-credentials extension in its _meta.
func EchoingAuthServerDeclared(t testing.TB, o oauthtest.Options, client oauthtest.Client) (*oauthtest.AuthServer, *oauthtest.Resource, func(string) bool) {
	as := oauthtest.NewAuthServer(t, o)
	h := mcptest.NewHandler(mcptest.Options{})
	var mu sync.Mutex
	declared := map[string]bool{}
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(b))
			var m struct {
				Params struct {
					Meta map[string]json.RawMessage `json:"_meta"`
				} `json:"params"`
			}
			json.Unmarshal(b, &m)
			var caps struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			}
			json.Unmarshal(m.Params.Meta["io.modelcontextprotocol/clientCapabilities"], &caps)
			if _, ok := caps.Extensions["io.modelcontextprotocol/oauth-client-credentials"]; ok {
				mu.Lock()
				declared[r.Header.Get("Mcp-Method")] = true
				mu.Unlock()
			}
		}
		if r.Header.Get("Mcp-Method") == "subscriptions/listen" {
			h.ServeHTTP(w, r)
			return
		}
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		var sp []string
		for _, s := range redacttest.Spellings(tok) {
			sp = append(sp, s)
		}
		echoed := "ECHO[" + strings.Join(sp, " ") + "]"
		// Inside JSON strings: quote what JSON needs quoted.
		q, _ := json.Marshal(echoed)
		echoed = string(q[1 : len(q)-1])
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		body := bytes.ReplaceAll(rec.Body.Bytes(), []byte(mcptest.ServerName), []byte(mcptest.ServerName+" "+echoed))
		body = bytes.ReplaceAll(body, []byte(`"message":"`), []byte(`"message":"`+echoed+" "))
		for k, v := range rec.Header() {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(rec.Code)
		w.Write(body)
	})
	res := &oauthtest.Resource{AS: as, Path: "/mcp", Next: echo}
	res.Serve(t)
	client.Audiences = append(client.Audiences, res.ID)
	as.AddClient(client)
	return as, res, func(method string) bool { mu.Lock(); defer mu.Unlock(); return declared[method] }
}

// The OAuth client against real components: the Go SDK
// v1.8.0's protected server (testdata/servers/go-sdk-auth) behind
// oidc-provider 9.13.3 and Ory Hydra v2.3.0, as .ci/install-deps.sh
// installs them. Each test skips with one line without them (fails under
// CI=true, where .ci/run requires them).

// RealAuthSecret is the secret of the client mcp-eval-ci that StartRealAS
// registers.
const RealAuthSecret = "mcp-eval-real-client-secret-0123"

// JWT finds a JWT: an access token that reached an output.
var JWT = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)

// RealAuth are the installed components.
type RealAuth struct{ Node22, OIDCProvider, Hydra, GoAuthServer string }

// RequireRealAuth finds the installed components and builds the Go SDK's
// protected server, or skips the test saying what is missing.
func RequireRealAuth(t testing.TB) RealAuth {
	t.Helper()
	if testing.Short() {
		t.Skip("real authorization servers skipped in -short mode")
	}
	d := RealAuth{Node22: os.Getenv("MCP_EVAL_NODE22"), OIDCProvider: os.Getenv("MCP_EVAL_OIDC_PROVIDER"), Hydra: os.Getenv("MCP_EVAL_HYDRA")}
	var missing []string
	for name, v := range map[string]string{"MCP_EVAL_NODE22": d.Node22, "MCP_EVAL_OIDC_PROVIDER": d.OIDCProvider, "MCP_EVAL_HYDRA": d.Hydra} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	root := Root(t)
	_, noSource := os.Stat(filepath.Join(root, "testdata/servers/go-sdk-auth"))
	if noSource != nil {
		missing = append(missing, "testdata/servers/go-sdk-auth")
	}
	if len(missing) > 0 {
		msg := fmt.Sprintf("oidc-provider, Hydra and the Go SDK's protected server are not installed (%s): run .ci/install-deps.sh and source its env.sh", strings.Join(missing, ", "))
		// Under CI the components must be there once their sources are.
		if os.Getenv("CI") == "true" && noSource == nil {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	d.GoAuthServer = filepath.Join(t.TempDir(), "go-sdk-auth")
	build := exec.Command("go", "build", "-o", d.GoAuthServer, "./testdata/servers/go-sdk-auth")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/servers/go-sdk-auth: %v\n%s", err, out)
	}
	return d
}

// StartProc runs argv with extra environment in its own process group
// (internal/proc), waits until ready answers 200 (30 s at most), and stops
// it with everything it started when the test ends.
func StartProc(t testing.TB, name string, argv, extra []string, ready string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), extra...)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	p, err := proc.Start(cmd)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { p.Stop(nil) })
	// Each try waits long: Hydra makes its keys inside the first discovery
	// request and, with a 2 s client timeout beside 24 CPU-bound processes,
	// started over on every try (the abandoned request's keys were never
	// kept), so it never answered.
	hc := &http.Client{Timeout: time.Minute}
	// A readiness wait, not a bound: Hydra generating its keys beside 24
	// CPU-bound processes took over 30 s.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if resp, err := hc.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-p.Exited():
			t.Fatalf("%s exited before %s answered:\n%s", name, ready, log.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s did not answer 200 within 2 min:\n%s", name, ready, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// lockedBuffer is a process's output, read while it still writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// RealAS is one running authorization server with a protected server
// behind it.
type RealAS struct {
	Name, Issuer, Server string
	admin                string // Hydra's admin API
}

// StartRealAS starts the authorization server kind ("oidc-provider" or
// "hydra") and the Go SDK's protected server trusting it, and registers
// the client mcp-eval-ci with RealAuthSecret (Hydra: allowed the server as
// its audience).
func StartRealAS(t testing.TB, d RealAuth, kind string) *RealAS {
	asPort, srvPort := FreePort(t), FreePort(t)
	a := &RealAS{Name: kind, Issuer: "http://127.0.0.1:" + strconv.Itoa(asPort), Server: fmt.Sprintf("http://127.0.0.1:%d/mcp", srvPort)}
	switch kind {
	case "oidc-provider":
		StartProc(t, kind, []string{d.Node22, d.OIDCProvider, "--port", strconv.Itoa(asPort), "--client", "mcp-eval-ci:" + RealAuthSecret,
			"--resource", a.Server, "--scope", "mcp:tools"}, nil, a.Issuer+"/.well-known/openid-configuration")
	case "hydra":
		adminPort := FreePort(t)
		a.admin = "http://127.0.0.1:" + strconv.Itoa(adminPort)
		StartProc(t, kind, []string{d.Hydra, "serve", "all", "--dev", "--sqa-opt-out"}, []string{
			"DSN=memory", "SECRETS_SYSTEM=mcp-eval-real-system-secret-0123456789", "URLS_SELF_ISSUER=" + a.Issuer,
			"SERVE_PUBLIC_HOST=127.0.0.1", "SERVE_PUBLIC_PORT=" + strconv.Itoa(asPort),
			"SERVE_ADMIN_HOST=127.0.0.1", "SERVE_ADMIN_PORT=" + strconv.Itoa(adminPort),
			"STRATEGIES_ACCESS_TOKEN=jwt", "LOG_LEVEL=warn"}, a.Issuer+"/.well-known/openid-configuration")
		a.hydraPost(t, "/admin/clients", map[string]any{"client_id": "mcp-eval-ci", "client_secret": RealAuthSecret,
			"grant_types": []string{"client_credentials"}, "audience": []string{a.Server}, "scope": "mcp:tools",
			"token_endpoint_auth_method": "client_secret_basic"})
		a.warmToken(t)
	}
	StartProc(t, "go-sdk-auth", []string{d.GoAuthServer, "-http", fmt.Sprintf("127.0.0.1:%d", srvPort), "-issuer", a.Issuer}, nil,
		fmt.Sprintf("http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp", srvPort))
	return a
}

// warmToken asks Hydra for mcp-eval-ci's first token (WarmHydraToken).
func (a *RealAS) warmToken(t testing.TB) {
	t.Helper()
	WarmHydraToken(t, a.Issuer, "mcp-eval-ci", RealAuthSecret, "grant_type=client_credentials&scope=mcp%3Atools")
}

// WarmHydraToken asks the Hydra at issuer for a first token with the
// client's credentials and the form, which makes it generate its
// access-token keys. Its HTTP server has a fixed 10 s write timeout
// (github.com/ory/graceful's DefaultWriteTimeout), so on a loaded machine
// the first answer can be a closed connection while the keys are still
// made and kept: it asks again, for 3 min at most, so that the run under
// test does not meet the key generation inside its own --timeout.
func WarmHydraToken(t testing.TB, issuer, clientID, secret, form string) {
	t.Helper()
	hc := &http.Client{Timeout: 2 * time.Minute}
	var last string
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(time.Second) {
		req, _ := http.NewRequest(http.MethodPost, issuer+"/oauth2/token", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(clientID, secret)
		resp, err := hc.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
			if last = resp.Status; resp.StatusCode < 500 {
				break
			}
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) {
			break
		}
	}
	t.Fatalf("hydra: first token request: %s", last)
}

// hydraPost posts body to Hydra's admin API and wants 201.
func (a *RealAS) hydraPost(t testing.TB, path string, body any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(a.admin+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatalf("hydra %s: %v", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		t.Fatalf("hydra %s: HTTP %d %s", path, resp.StatusCode, msg)
	}
}

// TrustRunner makes Hydra take the runner's job tokens as jwt-bearer
// assertions (its trust relationships for RFC 7523 grants) and registers
// the public client mcp-eval-federation for them: Hydra authenticates a
// client on every token request, so a federated run names this one.
func (a *RealAS) TrustRunner(t testing.TB, issuer string, key *rsa.PublicKey) {
	t.Helper()
	jwk := map[string]string{"kty": "RSA", "kid": "runner-key", "use": "sig", "alg": "RS256",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes())}
	a.hydraPost(t, "/admin/trust/grants/jwt-bearer/issuers", map[string]any{"issuer": issuer,
		"subject": "repo:org/repo:ref:refs/heads/main", "scope": []string{"mcp:tools"}, "jwk": jwk,
		"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)})
	a.hydraPost(t, "/admin/clients", map[string]any{"client_id": "mcp-eval-federation",
		"grant_types": []string{"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "audience": []string{a.Server},
		"scope": "mcp:tools", "token_endpoint_auth_method": "none"})
}
