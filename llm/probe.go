package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

// ProbeError is a provider endpoint that failed its probe: one line naming
// the provider, the base URL, the model and what went wrong.
type ProbeError struct {
	Provider, Model, Base string
	Err                   error
}

func (e *ProbeError) Error() string {
	msg := e.Err.Error()
	// The provider's own name starts its errors; it is said once.
	msg = strings.TrimPrefix(msg, e.Provider+": ")
	return fmt.Sprintf("model %s:%s at %s: %s", e.Provider, e.Model, e.Base, msg)
}

func (e *ProbeError) Unwrap() error { return e.Err }

// Unreachable reports whether the probe got no HTTP answer at all (a
// refused connection, a wrong host, a timeout), as opposed to an answer
// that refused the credentials or the model.
func (e *ProbeError) Unreachable() bool {
	var ae *APIError
	var me *ModelNotServedError
	var ne *NotModelAPIError
	return !errors.As(e.Err, &ae) && !errors.As(e.Err, &me) && !errors.As(e.Err, &ne)
}

// NotModelAPIError is a base URL that answers, but not as a model API: a
// web page where the models list should be, or no list where BASE/v1 has
// one. It is a configuration error with a likely fix, caught before any
// case runs (otherwise every case errors, which reads as the server's
// fault).
type NotModelAPIError struct {
	URL    string // the models list asked for
	Answer string // what answered instead
	Fix    string // the likely fix
}

func (e *NotModelAPIError) Error() string {
	return fmt.Sprintf("not a model API: GET %s answered %s; %s", e.URL, e.Answer, e.Fix)
}

// withV1 is modelsURL with /v1 before /models, or "" when its path
// already ends in /v1/models (or has no /models to put it before).
func withV1(modelsURL string) string {
	u, err := url.Parse(modelsURL)
	if err != nil || !strings.HasSuffix(u.Path, "/models") {
		return ""
	}
	root := strings.TrimSuffix(u.Path, "/models")
	if strings.HasSuffix(root, "/v1") {
		return ""
	}
	u.Path = root + "/v1/models"
	u.RawPath = ""
	return u.String()
}

// snippet is the start of an answer's body on one line, for an error.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b[:min(len(b), 200)])), " ")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return strconv.Quote(s)
}

// ModelNotServedError is a model the server's list does not have.
type ModelNotServedError struct {
	Model  string
	Served []string
	// Get says how to get the model ("ollama pull …"), or "".
	Get string
}

func (e *ModelNotServedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the server serves no model %q", e.Model)
	switch near := suggest.Nearest(e.Model, e.Served); {
	case len(e.Served) == 0:
		b.WriteString(" (it lists none)")
	case near != "":
		fmt.Fprintf(&b, " (did you mean %q? it serves %s)", near, listSome(e.Served))
	default:
		fmt.Fprintf(&b, " (it serves %s)", listSome(e.Served))
	}
	if e.Get != "" {
		b.WriteString("; " + e.Get)
	}
	return b.String()
}

// listSome lists at most 10 names.
func listSome(names []string) string {
	const limit = 10
	if len(names) > limit {
		return strings.Join(names[:limit], ", ") + fmt.Sprintf(" and %d more", len(names)-limit)
	}
	return strings.Join(names, ", ")
}

// listedIDs reads an OpenAI-style models list ({"data": [{"id"}]}), the
// shape every Chat Completions server here and Anthropic's API share.
func listedIDs(body []byte) []string {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &list)
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

func exactModel(want, have string) bool { return want == have }

// CheckListed returns a *ModelNotServedError unless same finds model in
// served; getModel (optional) says how to get a missing one.
func CheckListed(model string, served []string, same func(want, have string) bool, getModel func(string) string) error {
	return checkListed(model, served, same, getModel)
}

func checkListed(model string, served []string, same func(want, have string) bool, getModel func(string) string) error {
	if slices.ContainsFunc(served, func(h string) bool { return same(model, h) }) {
		return nil
	}
	e := &ModelNotServedError{Model: model, Served: slices.Sorted(slices.Values(served))}
	if getModel != nil {
		e.Get = getModel(model)
	}
	return e
}

// probeTool is the one tool of a ProbeTools request.
var probeTool = Tool{Name: "mcp_eval_probe", Description: "Never call this tool.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}

// ProbeTool is probeTool, for providers outside this package.
func ProbeTool() Tool { return probeTool }

// Once POSTs body once: no retry, no observer (a probe is not a model call
// of the run), within the settings' timeout.
func (c *Client) Once(ctx context.Context, body []byte, decode func([]byte) (*Response, error)) (*Response, error) {
	r, _, err := c.roundTrip(ctx, body, decode)
	return r, err
}
