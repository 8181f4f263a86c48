package resilience

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// probeDefs returns the probes in the order they run: the cheap bad-input
// probes first, then those that call tools, so that a server killed by a
// tool call has been judged on everything else.
func probeDefs() []*probeDef {
	// A bad body (not JSON, a batch) is probed once, by the conformance
	// checks jsonrpc/malformed-json and jsonrpc/batch-rejected, which
	// replace the probes resilience/malformed-json and resilience/batch
	// (report.CheckAliases).
	return []*probeDef{
		{ID: "resilience/oversized-request", Level: report.LevelShould, SpecRef: specRef("basic/transports"),
			Title: "an oversized request gets an answer (a 4xx with a JSON-RPC error, or a result), never a 5xx, a hang or a dead server",
			Run:   runOversized},
		{ID: "resilience/burst", Level: report.LevelShould, Transport: "http", SpecRef: specRef("basic/transports/streamable-http"),
			Title:   "a burst of concurrent tools/list on separate connections all succeed and agree (statelessness)",
			Prepare: prepareBurst, Run: runBurst},
		// MUST: server/tools.mdx §Security Considerations: "Servers MUST
		// validate all tool inputs"; the error split puts validation
		// failures in a result with isError (or -32602 for a malformed
		// request).
		{ID: "resilience/invalid-arguments", Level: report.LevelMust, SpecRef: specRef("server/tools") + "#security-considerations",
			Title:   "tools/call with arguments the tool's inputSchema rejects → -32602 or isError, never a 5xx, an internal error or a dead server",
			Prepare: prepareBadArgs, Run: runBadArgs},
		{ID: "resilience/cut-stream", Level: report.LevelShould, Transport: "http", SpecRef: specRef("basic/transports/streamable-http"),
			Title:   "after a response stream is cut, the request re-issued with a new id is answered (2026-07-28 has no resumption)",
			Prepare: prepareCut, Run: runCut},
	}
}

// paddingKey is the _meta member that makes the oversized request large; a
// prefixed _meta key is valid on any request and means nothing to a server.
const paddingKey = "dev.mcp-eval/padding"

// runOversized sends a tools/list of exactly MaxRequestBytes bytes of JSON.
// A server may refuse it (a 4xx with a JSON-RPC error, ideally 413) or
// serve it; it must not fail, hang or die.
func runOversized(ctx context.Context, p *prober) check.Outcome {
	call := p.c.NewCall("tools/list", nil)
	const mark = "mcp-eval-padding-mark"
	call.Meta()[paddingKey] = mark
	base, err := json.Marshal(&mcp.Request{ID: call.ID, Method: call.Method, Params: call.Params})
	if err != nil {
		return check.Errored(err, nil)
	}
	pad := max(int(p.o.MaxRequestBytes)-len(base)+len(mark), 0)
	call.Body = bytes.Replace(base, []byte(mark), bytes.Repeat([]byte("x"), pad), 1)
	size := byteSize(len(call.Body))
	what := "a " + size + " request"
	st, isStdio := p.stdio()
	seen := 0
	if isStdio {
		seen = len(st.Orphans())
	}
	x, err := p.do(ctx, p.c, call)
	if isStdio {
		if err != nil {
			// A server that drops an overlong line may answer without the
			// id it could not read.
			for _, m := range st.Orphans()[seen:] {
				if m.Error != nil && (m.ID == nil || string(m.ID) == "null") {
					return check.PassInfo(fmt.Sprintf("stdio: %s got error %d without an id", size, m.Error.Code))
				}
			}
			return check.Failf(check.WithError(check.Probe.Of(x), err), "%s got no answer: %s", what, describeErr(err))
		}
		if rerr := x.RPCError(); rerr != nil {
			return check.PassInfo(fmt.Sprintf("stdio: %s got error %d", size, rerr.Code))
		}
		return check.PassInfo(fmt.Sprintf("stdio: %s got a result (the server accepts lines this long)", size))
	}
	if err != nil {
		return check.Failf(check.WithError(check.Probe.Of(x), err), "%s got no answer: %s", what, describeErr(err))
	}
	info := fmt.Sprintf("%s: HTTP %d", size, x.Status)
	ev := check.Probe.Of(x)
	switch rerr := x.RPCError(); {
	case x.Status >= 500:
		return check.Outcome{Status: report.StatusFail, Info: info, Evidence: ev,
			Message: fmt.Sprintf("%s got HTTP %d: a server fault where a client error (4xx, ideally 413) is due", what, x.Status)}
	case x.Status >= 400 && rerr == nil:
		return check.Outcome{Status: report.StatusFail, Info: info + ", no JSON-RPC error body", Evidence: ev,
			Message: fmt.Sprintf("%s got HTTP %d without a JSON-RPC error body", what, x.Status)}
	case x.Status >= 400:
		return check.PassInfo(fmt.Sprintf("%s, error %d", info, rerr.Code))
	case x.Response == nil:
		return check.Outcome{Status: report.StatusFail, Info: info, Evidence: ev,
			Message: fmt.Sprintf("%s got HTTP %d without a JSON-RPC answer", what, x.Status)}
	case rerr != nil:
		return check.PassInfo(fmt.Sprintf("%s, error %d", info, rerr.Code))
	}
	return check.PassInfo(info + ", a result (the server accepts requests this large)")
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d-byte", n)
}

// toolArgs is a safe tool with the arguments a probe sends it.
type toolArgs struct {
	tool mcp.Tool
	args any
	// why says what is wrong with args (the first schema violation).
	why string
}

// prepareBadArgs picks, for each safe tool, arguments its inputSchema
// rejects.
func prepareBadArgs(_ context.Context, p *prober) string {
	if p.toolsErr != nil && len(p.tools) == 0 {
		return "tools/list failed, so no tool is known: " + p.toolsErr.Error()
	}
	tools := p.safeTools()
	if len(tools) == 0 {
		return noSafeTool
	}
	var notes []string
	for _, t := range tools {
		args, why, reason := violatingArgs(t.InputSchema)
		if reason != "" {
			notes = append(notes, t.Name+": "+reason)
			continue
		}
		p.badArgs = append(p.badArgs, toolArgs{tool: t, args: args, why: why})
	}
	if len(p.badArgs) == 0 {
		return "no safe tool could be probed: " + strings.Join(notes, "; ")
	}
	return ""
}

// violatingArgs returns arguments that the schema rejects, trying in turn
// a value of the wrong type for each property, no arguments (when some are
// required), an undeclared property, and arguments that are not an object.
// The schema itself decides: a candidate is used only if Validate rejects
// it, so the server's own contract says the call is invalid.
func violatingArgs(raw json.RawMessage) (args any, why, skipReason string) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, "", "no inputSchema"
	}
	s, err := schema.Compile(raw)
	if err != nil {
		return nil, "", "its inputSchema does not compile (" + clip.Bytes(err.Error(), 200) + ")"
	}
	var root struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(raw, &root)
	names := make([]string, 0, len(root.Properties))
	for n := range root.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	var candidates []any
	for _, n := range names {
		for _, v := range []any{12345, "mcp-eval-probe", map[string]any{"mcp-eval-probe": true}} {
			candidates = append(candidates, map[string]any{n: v})
		}
	}
	candidates = append(candidates, map[string]any{}, map[string]any{"mcp-eval-probe": true}, "mcp-eval-probe")
	for _, c := range candidates {
		b, err := json.Marshal(c)
		if err != nil {
			continue
		}
		inst, err := schema.DecodeJSON(b)
		if err != nil {
			continue
		}
		var ve *schema.ValidationError
		if err := s.Validate(inst); errors.As(err, &ve) {
			why := ve.Error()
			if len(ve.Violations) > 0 {
				why = ve.Violations[0].String()
			}
			return c, why, ""
		}
	}
	return nil, "", "its inputSchema accepts every argument the probe tries"
}

// runBadArgs calls each safe tool with arguments its schema rejects.
func runBadArgs(ctx context.Context, p *prober) check.Outcome {
	var notes []string
	for _, ta := range p.badArgs {
		call := p.c.NewCall("tools/call", map[string]any{"name": ta.tool.Name, "arguments": ta.args})
		x, err := p.do(ctx, p.c, call)
		note, bad := judgeBadArgs(call, x, err)
		argsJSON, _ := json.Marshal(ta.args)
		if bad != "" {
			ev := check.WithError(check.Probe.Of(x), err)
			ev["tool"] = ta.tool.Name
			ev["arguments"] = string(argsJSON)
			ev["violation"] = ta.why
			return check.Outcome{Status: report.StatusFail, Evidence: ev, Info: strings.Join(append(notes, ta.tool.Name+": "+note), "; "),
				Message: fmt.Sprintf("tool %s, called with %s (%s): %s", ta.tool.Name, clip.Bytes(string(argsJSON), 120), ta.why, bad)}
		}
		notes = append(notes, ta.tool.Name+": "+note)
	}
	return check.PassInfo(strings.Join(notes, "; "))
}

// judgeBadArgs classifies the answer to a tools/call with invalid
// arguments. note describes it; bad, when set, says why it fails.
func judgeBadArgs(call *mcp.Call, x *mcp.Exchange, err error) (note, bad string) {
	if err != nil {
		return "no answer", "no answer: " + describeErr(err)
	}
	status := ""
	if x.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", x.Status)
	}
	if x.Status >= 500 {
		note = "HTTP " + fmt.Sprint(x.Status)
		if rerr := x.RPCError(); rerr != nil {
			note += fmt.Sprintf(", error %d", rerr.Code)
		}
		return note, fmt.Sprintf("HTTP %d: a server fault where the arguments should have been rejected", x.Status)
	}
	res, rerr := mcp.Result(call, x)
	var rpcErr *mcp.Error
	switch {
	case errors.As(rerr, &rpcErr) && rpcErr.Code == mcp.CodeInvalidParams:
		return "-32602" + status, ""
	case errors.As(rerr, &rpcErr) && rpcErr.Code == mcp.CodeInternalError:
		return "-32603" + status, "-32603 Internal error: the server failed on the arguments instead of rejecting them"
	case errors.As(rerr, &rpcErr):
		// Refused for another reason first (a missing client capability,
		// a header rule): the call was still turned away cleanly.
		return fmt.Sprintf("refused with %d%s before the arguments were judged", rpcErr.Code, status), ""
	case rerr != nil:
		return "no usable answer", rerr.Error()
	}
	var r struct {
		ResultType string `json:"resultType"`
		IsError    bool   `json:"isError"`
	}
	if json.Unmarshal(res, &r) != nil {
		return "a result that is not an object", "the result is not a JSON object"
	}
	switch {
	case r.IsError:
		return "isError" + status, ""
	case r.ResultType == "input_required":
		return "input_required (arguments are judged once the input arrives)", ""
	}
	return "a successful result", "the tool accepted arguments its inputSchema rejects; servers MUST validate tool inputs (an isError result or -32602 is due)"
}
