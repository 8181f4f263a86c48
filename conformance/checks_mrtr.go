package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func mrtrChecks() []*Check {
	return []*Check{
		{ID: "mrtr/no-server-requests", Reqs: []string{"base/notification-no-id", "base/no-server-requests", "base/mrtr-server-requests", "http/sse-no-requests", "stdio/no-requests"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("changelog"),
			Title: "no server-to-client request (roots/list, sampling/createMessage, elicitation/create) arrives on a 2026-07-28 connection",
			Run: func(ctx context.Context, e *Env) Outcome {
				// The likeliest trigger: the safe tools, called declaring
				// every client capability (setup called them too, and every
				// answer the checks read is watched).
				tools := e.safeTools()
				if len(tools) > maxProbedTools {
					tools = tools[:maxProbedTools]
				}
				for _, t := range tools {
					_, _, _ = e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)},
						func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() })
				}
				seen := e.seenServerRequests()
				if len(seen) == 0 {
					return check.PassInfo(fmt.Sprintf("watched every answer of the run so far, %d safe tools called", len(tools)))
				}
				return sentWhereNot(seen, "requests", "a %s request", "during", "on stdout",
					"2026-07-28 removed server-to-client requests (a server asks for input with an input_required result instead)")
			}},
		{ID: "mrtr/retry", Reqs: []string{"base/state-explicit-id"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "retrying an input_required tool call with inputResponses (and requestState echoed) gets a result, not an error (safe tools only)",
			Skip:  needsInputTool,
			Run:   roundTrip(false)},
		{ID: "mrtr/tampered-state", Reqs: []string{"base/mrtr-state-untrusted", "base/mrtr-validate-state"}, Level: report.LevelShould, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "a retry with an altered requestState is refused (an error or a new input_required), not completed (safe tools only)",
			Skip:  needsInputTool,
			Run:   roundTrip(true)},
		{ID: "mrtr/shape", Reqs: []string{"base/mrtr-request-types", "base/mrtr-at-least-one", "features/elicitation-params", "guidance/schema-shapes"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/mrtr"),
			Title: "an input_required result is well formed",
			Skip: func(e *Env) string {
				if len(e.inputTools) == 0 {
					return "no safe tool answered input_required"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome {
				p := e.inputTools[0]
				call, x, err := e.send(ctx, "tools/call", map[string]any{"name": p.Tool.Name, "arguments": p.Args},
					func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() })
				m, o := resultMembers(call, x, err)
				if o != nil {
					return *o
				}
				if resultTypeOf(m) != "input_required" {
					return check.Skip(p.Tool.Name + " no longer answers input_required")
				}
				return judgeInputRequired(m, x)
			}},
	}
}

// roundTrip is the Run of a check that judges one MRTR round trip, with the
// requestState echoed or tampered with.
func roundTrip(tamper bool) func(context.Context, *Env) Outcome {
	return func(ctx context.Context, e *Env) Outcome {
		o, _, _ := e.mrtrRoundTrip(ctx, tamper)
		return o
	}
}

func needsInputTool(e *Env) string {
	if len(e.inputTools) == 0 {
		return "no safe tool answered input_required"
	}
	return ""
}

// maxRounds bounds the retries of one MRTR round trip: a server may ask
// again (multi-round), but not forever.
const maxRounds = 3

// mrtrRoundTrip calls the first safe tool that answered input_required,
// declaring every client capability, and retries it as a client would
// (basic/patterns/mrtr.mdx): a new request with a new id repeating the
// params, inputResponses answering every input request (an elicitation
// accepted with values synthesised from its requestedSchema, a sampling
// request answered with a text, roots with none), and requestState echoed
// byte for byte, or altered when tamper is set.
func (e *Env) mrtrRoundTrip(ctx context.Context, tamper bool) (Outcome, *mcp.Exchange, error) {
	p := e.inputTools[0]
	caps := func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = allClientCapabilities() }
	params := map[string]any{"name": p.Tool.Name, "arguments": p.Args}
	call, x, err := e.send(ctx, "tools/call", params, caps)
	m, o := resultMembers(call, x, err)
	if o != nil {
		return *o, x, err
	}
	if resultTypeOf(m) != "input_required" {
		return check.Skip(p.Tool.Name + " no longer answers input_required"), x, nil
	}
	for round := 1; round <= maxRounds; round++ {
		var state *string
		if raw, ok := m["requestState"]; ok {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return check.Fail("requestState is not a string (see mrtr/shape)", check.Protocol.Of(x)), x, nil
			}
			state = &s
		}
		if tamper && state == nil {
			return check.Skip(p.Tool.Name + " sent no requestState, so there is none to alter"), x, nil
		}
		retry := map[string]any{"name": p.Tool.Name, "arguments": p.Args, "inputResponses": inputResponses(m["inputRequests"])}
		if state != nil {
			s := *state
			if tamper {
				s = alterState(s)
			}
			retry["requestState"] = s
		}
		_, x, err = e.send(ctx, "tools/call", retry, caps)
		if err != nil {
			return check.Errored(err, check.Protocol.Of(x)), x, err
		}
		if x.Response == nil {
			return check.Failf(check.Protocol.Of(x), "the retry got no JSON-RPC answer (%s)", cameBack(x)), x, nil
		}
		if rerr := x.Response.Error; rerr != nil {
			if tamper {
				return check.PassInfo(fmt.Sprintf("the altered requestState was refused with error %d", rerr.Code)), x, nil
			}
			return check.Failf(check.Protocol.Of(x), "the retry of %s with inputResponses%s got error %d: %s; a server answers a retry with a result (or asks again with input_required)",
				p.Tool.Name, map[bool]string{true: " and requestState echoed", false: ""}[state != nil], rerr.Code, clip.Bytes(rerr.Message, 120)), x, nil
		}
		if json.Unmarshal(x.Response.Result, &m) != nil || m == nil {
			return check.Fail("the retry's result is not a JSON object", check.Protocol.Of(x)), x, nil
		}
		switch rt := resultTypeOf(m); {
		case rt == "input_required" && tamper:
			return check.PassInfo("the altered requestState was answered with a new input_required"), x, nil
		case rt == "input_required":
			continue // another round
		case tamper:
			return check.Failf(check.Protocol.Of(x), "a retry whose requestState was altered completed (resultType %q): servers must treat requestState as attacker-controlled and reject state that fails verification when it influences what the tool does", rt), x, nil
		default:
			return check.PassInfo(fmt.Sprintf("completed after %d round(s)", round)), x, nil
		}
	}
	return check.PassInfo(fmt.Sprintf("still input_required after %d rounds", maxRounds)), x, nil
}

// inputResponses answers every input request of an input_required result.
func inputResponses(raw json.RawMessage) map[string]any {
	var reqs map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode            string          `json:"mode"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		} `json:"params"`
	}
	_ = json.Unmarshal(raw, &reqs)
	out := map[string]any{}
	for k, r := range reqs {
		switch r.Method {
		case "elicitation/create":
			if r.Params.Mode == "url" {
				out[k] = map[string]any{"action": "accept"}
				continue
			}
			out[k] = map[string]any{"action": "accept", "content": schema.SampleArgs(r.Params.RequestedSchema)}
		case "sampling/createMessage":
			out[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcp-eval probe answer"},
				"model": "mcp-eval-probe", "stopReason": "endTurn"}
		case "roots/list":
			out[k] = map[string]any{"roots": []any{}}
		}
	}
	return out
}

// alterState changes one character in the middle of a requestState, within
// the same alphabet, so that only its integrity check can tell.
func alterState(s string) string {
	if s == "" {
		return "mcp-eval-probe-altered"
	}
	b := []byte(s)
	i := len(b) / 2
	switch c := b[i]; {
	case c == 'A':
		b[i] = 'B'
	case c >= '0' && c <= '9':
		b[i] = '0' + (c-'0'+1)%10
	case c >= 'a' && c <= 'z':
		b[i] = 'a' + (c-'a'+1)%26
	default:
		b[i] = 'A'
	}
	return string(b)
}

// judgeInputRequired applies the InputRequiredResult rules
// (basic/patterns/mrtr.mdx): at least one of inputRequests and
// requestState; each input request an embedded request of a known method
// with params and without jsonrpc or id; requestState a string.
func judgeInputRequired(m map[string]json.RawMessage, x *mcp.Exchange) Outcome {
	reqs, hasReqs := m["inputRequests"]
	state, hasState := m["requestState"]
	if !hasReqs && !hasState {
		return check.Fail("input_required without inputRequests or requestState (it MUST carry at least one)", check.Protocol.Of(x))
	}
	if hasState {
		var s string
		if json.Unmarshal(state, &s) != nil {
			return check.Fail("requestState is not a string", check.Protocol.Of(x))
		}
	}
	if hasReqs {
		var rs map[string]map[string]json.RawMessage
		if json.Unmarshal(reqs, &rs) != nil {
			return check.Fail("inputRequests is not a map of request objects", check.Protocol.Of(x))
		}
		for k, r := range rs {
			var method string
			_ = json.Unmarshal(r["method"], &method)
			if _, ok := inputCapability[method]; !ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] has method %q; want elicitation/create, sampling/createMessage or roots/list", k, method)
			}
			if _, ok := r["jsonrpc"]; ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] carries jsonrpc; embedded requests have neither jsonrpc nor id", k)
			}
			if _, ok := r["id"]; ok {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] carries an id; embedded requests have neither jsonrpc nor id", k)
			}
			if method != "roots/list" {
				if p := bytes.TrimSpace(r["params"]); len(p) == 0 || p[0] != '{' {
					return check.Failf(check.Protocol.Of(x), "inputRequests[%q] (%s) has no params object", k, method)
				}
			}
		}
	}
	return check.Pass()
}
