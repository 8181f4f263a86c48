package oauthtest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// SignRS256 returns a compact JWS (RFC 7515) of claims signed with key.
func SignRS256(key *rsa.PrivateKey, kid string, claims map[string]any) string {
	hdr, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": kid})
	body, _ := json.Marshal(claims)
	in := b64(hdr) + "." + b64(body)
	sum := sha256.Sum256([]byte(in))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		panic(err)
	}
	return in + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// checkAssertion verifies a jwt-bearer assertion as RFC 7523 §3 asks: a
// JWT from a trusted issuer with a valid signature, a sub, an aud that
// names this server's token endpoint (or its issuer), and an exp in the
// future. It returns the subject.
func (a *AuthServer) checkAssertion(tok string) (string, error) {
	if tok == "" {
		return "", errors.New("assertion is missing")
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return "", errors.New("the assertion is not a JWT")
	}
	var hdr struct{ Alg string }
	var claims struct {
		Iss string          `json:"iss"`
		Sub string          `json:"sub"`
		Aud json.RawMessage `json:"aud"`
		Exp float64         `json:"exp"`
	}
	hb, err1 := base64.RawURLEncoding.DecodeString(parts[0])
	cb, err2 := base64.RawURLEncoding.DecodeString(parts[1])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(hb, &hdr) != nil || json.Unmarshal(cb, &claims) != nil {
		return "", errors.New("the assertion is not a JWT")
	}
	if hdr.Alg != "RS256" {
		return "", fmt.Errorf("alg %q is not accepted", hdr.Alg)
	}
	a.mu.Lock()
	key := a.trusted[claims.Iss]
	a.mu.Unlock()
	if key == nil {
		return "", fmt.Errorf("issuer %q is not trusted", claims.Iss)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, sum[:], sig) != nil {
		return "", errors.New("the assertion's signature does not verify")
	}
	var auds []string
	if json.Unmarshal(claims.Aud, &auds) != nil {
		var one string
		json.Unmarshal(claims.Aud, &one)
		auds = []string{one}
	}
	if !slices.Contains(auds, a.TokenEndpoint()) && !slices.Contains(auds, a.Issuer) {
		return "", fmt.Errorf("the assertion's aud %v names neither the token endpoint nor the issuer", auds)
	}
	if claims.Exp == 0 || !a.now().Before(time.Unix(int64(claims.Exp), 0)) {
		return "", errors.New("the assertion has expired")
	}
	if claims.Sub == "" {
		return "", errors.New("the assertion has no sub")
	}
	return claims.Sub, nil
}

// RunnerIssuer is the iss of the job tokens GitHub issues.
const RunnerIssuer = "https://token.actions.githubusercontent.com"

// Runner is the Actions runner's OIDC token service, as core.getIDToken
// (actions/toolkit) uses it: GET the request URL (which already holds a
// query) with &audience=…, the request token as a bearer token, answered
// {"value": JWT}. The JWT is RS256-signed by Key with iss RunnerIssuer.
type Runner struct {
	*httptest.Server
	Key          *rsa.PrivateKey
	RequestToken string
	// Lifetime of the ID tokens; 0 is five minutes.
	Lifetime time.Duration

	mu        sync.Mutex
	audiences []string
}

// NewRunner starts the token service on loopback with a fresh key.
func NewRunner(t testing.TB) *Runner {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	rn := &Runner{Key: key, RequestToken: "runner-request-" + randomToken()}
	rn.Server = httptest.NewServer(http.HandlerFunc(rn.serve))
	t.Cleanup(rn.Close)
	return rn
}

// RequestURL is what the runner puts in ACTIONS_ID_TOKEN_REQUEST_URL.
func (rn *Runner) RequestURL() string {
	return rn.URL + "/_apis/distributedtask/hubs/Actions/plans/p/jobs/j/idtoken?api-version=2.0"
}

// Env returns the two variables the runner sets for id-token: write.
func (rn *Runner) Env() map[string]string {
	return map[string]string{"ACTIONS_ID_TOKEN_REQUEST_URL": rn.RequestURL(), "ACTIONS_ID_TOKEN_REQUEST_TOKEN": rn.RequestToken}
}

// Audiences returns the audience of every token issued so far.
func (rn *Runner) Audiences() []string {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return slices.Clone(rn.audiences)
}

func (rn *Runner) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/idtoken") || r.URL.Query().Get("api-version") != "2.0" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+rn.RequestToken {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "bad request token"})
		return
	}
	aud := r.URL.Query().Get("audience")
	if aud == "" {
		aud = "https://github.com/org" // the runner's default audience
	}
	life := rn.Lifetime
	if life <= 0 {
		life = 5 * time.Minute
	}
	now := time.Now()
	jwt := SignRS256(rn.Key, "runner-key", map[string]any{
		"iss": RunnerIssuer, "aud": aud, "sub": "repo:org/repo:ref:refs/heads/main",
		"repository": "org/repo", "ref": "refs/heads/main", "jti": randomToken(),
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(life).Unix(),
	})
	rn.mu.Lock()
	rn.audiences = append(rn.audiences, aud)
	rn.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]string{"count": "1", "value": jwt})
}
