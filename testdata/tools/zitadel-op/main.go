// Command zitadel-op is an OpenID provider built on the op package of
// github.com/zitadel/oidc/v3 (the version in go.mod), for the e2e auth
// corpus: discovery, the token endpoint, client authentication, error
// answers, JWT signing and the JWKS are the library's; the storage is the
// library's example storage (example/server/storage), which
// zitadel/oidc leaves to each deployment to write, with the client
// credentials grant filled in for the corpus.
//
//	zitadel-op -port PORT -client ID:SECRET [-resource PATTERN]... [-scope 'a b'] [-ttl SECONDS] [-no-resource]
//
// The issuer is http://127.0.0.1:PORT. What the example storage does not
// do and the corpus needs: its one service user issues opaque tokens that
// only its introspection endpoint understands (the corpus's servers check
// JWTs against the JWKS), lasting five minutes, with the client id as
// their audience and no scope claim. Here a client of -client gets RFC 9068
// JWT access tokens of -ttl seconds whose scope claim is the granted
// scopes and whose aud is the request's resource (RFC 8707) or, failing
// it, audience= (the parameter Hydra and Auth0 read): zitadel/oidc's
// client credentials request (oidc.ClientCredentialsRequest) has no
// resource field, so a handler in front of the provider reads it and a
// resource that matches no -resource pattern is refused with
// invalid_target (RFC 8707 §2). -no-resource leaves that out, as the
// library is: the token's aud is the client id whatever was asked, which
// is what a deployment of zitadel/oidc without resource indicators issues.
package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	port := flag.Int("port", 0, "port to listen on at 127.0.0.1")
	clientFlag := flag.String("client", "", "the client, ID:SECRET")
	var resources multiFlag
	flag.Var(&resources, "resource", "a resource the client may ask a token for; a trailing * matches any rest (repeatable)")
	scope := flag.String("scope", "", "space-separated scopes the client may ask for")
	ttl := flag.Int("ttl", 300, "access-token lifetime in seconds")
	noResource := flag.Bool("no-resource", false, "ignore resource= and audience=, as zitadel/oidc does: aud is the client id")
	flag.Parse()
	id, secret, ok := strings.Cut(*clientFlag, ":")
	if *port == 0 || !ok || id == "" || secret == "" {
		log.Fatal("zitadel-op: -port and -client ID:SECRET are required")
	}
	issuer := fmt.Sprintf("http://127.0.0.1:%d", *port)
	s := &store{
		Storage:    storage.NewStorage(storage.NewUserStore(issuer + "/")),
		id:         id,
		secret:     secret,
		resources:  resources,
		scopes:     strings.Fields(*scope),
		ttl:        time.Duration(*ttl) * time.Second,
		noResource: *noResource,
	}
	provider, err := op.NewProvider(&op.Config{
		CryptoKey:      sha256.Sum256([]byte("mcp-eval-e2e-zitadel-op")),
		CodeMethodS256: true, // as the example's configuration (example/server/exampleop)
		AuthMethodPost: true,
	}, s, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", *port), Handler: withTarget(provider), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("zitadel-op: issuer %s", issuer)
	log.Fatal(srv.ListenAndServe())
}

type targetKey struct{}

// target is what a token request asked its token for: its resource
// parameters (RFC 8707 §2), or audience=.
type target struct{ resources, audiences []string }

// withTarget reads the token request's resource and audience parameters
// (ParseForm keeps the form for the provider) into the context.
func withTarget(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.ParseForm() == nil {
			r = r.WithContext(context.WithValue(r.Context(), targetKey{},
				target{resources: r.PostForm["resource"], audiences: r.PostForm["audience"]}))
		}
		next.ServeHTTP(w, r)
	})
}

// store is the example storage with the corpus's client credentials.
type store struct {
	*storage.Storage
	id, secret string
	resources  []string
	scopes     []string
	ttl        time.Duration
	noResource bool
}

// client is the example's web client turned into a service client: the
// client credentials grant only, JWT access tokens.
type client struct{ op.Client }

func (client) GrantTypes() []oidc.GrantType        { return []oidc.GrantType{oidc.GrantTypeClientCredentials} }
func (client) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }
func (client) ClockSkew() time.Duration            { return 0 }

var errClient = errors.New("wrong client id or secret")

func (s *store) ClientCredentials(ctx context.Context, id, secret string) (op.Client, error) {
	if id != s.id || secret != s.secret {
		return nil, errClient
	}
	return client{storage.WebClient(id, secret)}, nil
}

func (s *store) ClientCredentialsTokenRequest(ctx context.Context, id string, scopes []string) (op.TokenRequest, error) {
	if id != s.id {
		return nil, errClient
	}
	for _, sc := range scopes {
		if !slices.Contains(s.scopes, sc) {
			return nil, oidc.ErrInvalidScope().WithDescription("unknown scope %q", sc)
		}
	}
	aud := []string{id}
	if t, _ := ctx.Value(targetKey{}).(target); !s.noResource {
		asked := t.resources
		if len(asked) == 0 {
			asked = t.audiences
		}
		if len(asked) > 1 {
			return nil, oidc.ErrInvalidTarget().WithDescription("one resource per token")
		}
		if len(asked) == 1 {
			if !s.allowed(asked[0]) {
				return nil, oidc.ErrInvalidTarget().WithDescription("unknown resource %q", asked[0])
			}
			aud = asked
		}
	}
	return &oidc.JWTTokenRequest{Subject: id, Audience: aud, Scopes: scopes}, nil
}

func (s *store) allowed(resource string) bool {
	for _, p := range s.resources {
		if prefix, ok := strings.CutSuffix(p, "*"); ok && strings.HasPrefix(resource, prefix) || p == resource {
			return true
		}
	}
	return false
}

// CreateAccessToken issues the token's id and expiry (the example's own
// keeps every token five minutes, in memory for introspection; these are
// JWTs, read by the resource servers themselves).
func (s *store) CreateAccessToken(ctx context.Context, _ op.TokenRequest) (string, time.Time, error) {
	return uuid.NewString(), time.Now().Add(s.ttl), nil
}

// GetPrivateClaimsFromRequest puts the granted scopes in the JWT's scope
// claim (RFC 9068 §2.2.3), which op.CreateJWT leaves out.
func (s *store) GetPrivateClaimsFromRequest(ctx context.Context, r op.TokenRequest, scopes []string) (map[string]any, error) {
	if len(scopes) == 0 {
		return nil, nil
	}
	return map[string]any{"scope": strings.Join(scopes, " ")}, nil
}
