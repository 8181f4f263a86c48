package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestUnauthorizedSaysWhy: a 403 is blamed on scope only when its
// challenge says insufficient_scope, and quotes the answer's body
// otherwise; a static bearer JWT refused after its exp is named expired.
func TestUnauthorizedSaysWhy(t *testing.T) {
	t.Parallel()
	exp := time.Now().Add(-time.Hour).Truncate(time.Second)
	expired := "eyJhbGciOiJSUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"exp":%d}`, exp.Unix()))) + ".c2ln"
	tests := []struct {
		name    string
		h       http.HandlerFunc
		header  http.Header
		want    []string
		notWant string
	}{
		{"403 invalid Host", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(403)
			io.WriteString(w, "invalid Host header\n")
		}, nil, []string{`forbidden: the server refused the request: HTTP 403; body: "invalid Host header"`}, "scope"},
		{"403 insufficient_scope", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="mcp:tools"`)
			w.WriteHeader(403)
		}, http.Header{"Authorization": {"Bearer some-token-value"}}, []string{"forbidden: the server refused the token for lack of scope: HTTP 403", `scope="mcp:tools"`}, ""},
		{"401 to an expired static JWT", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			w.WriteHeader(401)
		}, http.Header{"Authorization": {"Bearer " + expired}}, []string{"unauthorized: the bearer token of --header Authorization expired at " + exp.UTC().Format(time.RFC3339) + ": HTTP 401"}, "wants credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.h)
			defer srv.Close()
			_, err := Connect(context.Background(), &HTTPTarget{URL: srv.URL, Header: tt.header}, Options{Timeout: 2 * time.Second})
			var ue *UnauthorizedError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v, want *UnauthorizedError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			if tt.notWant != "" && strings.Contains(err.Error(), tt.notWant) {
				t.Errorf("err %q says %q", err, tt.notWant)
			}
		})
	}
}
