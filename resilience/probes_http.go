package resilience

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// burstMaxAnswer caps each answer of the burst. Fifty answers are in flight
// at once; with this cap the probe's memory stays bounded whatever the
// server sends (a tools/list page above 1 MiB would be some 250,000 tokens).
const burstMaxAnswer = 1 << 20

// httpTransport returns the HTTP transport in use, or why a probe that
// needs one cannot run.
func (p *prober) httpTransport() (*mcp.HTTP, string) {
	h, ok := p.c.Transport().(*mcp.HTTP)
	if !ok {
		return nil, fmt.Sprintf("the client's transport (%T) is not the plain HTTP transport this probe drives", p.c.Transport())
	}
	return h, ""
}

func prepareBurst(_ context.Context, p *prober) string {
	if p.c.Era() == mcp.EraLegacy {
		return "the server speaks only " + p.c.Version() + ", whose sessions tie a client to one server; statelessness across connections is a 2026-07-28 property"
	}
	_, reason := p.httpTransport()
	return reason
}

// burstAnswer is what one request of the burst keeps: a hash of the tool
// list and the tool names, or why it failed. Only this much is kept per
// answer, so that the burst's memory does not grow with the server's lists.
type burstAnswer struct {
	hash   string
	names  []string
	status int
	err    string
}

// runBurst sends BurstSize identical tools/list requests at once, each on
// a connection of its own (as a round-robin balancer would spread them over
// replicas), and wants every one to succeed with the same list.
func runBurst(ctx context.Context, p *prober) check.Outcome {
	h, reason := p.httpTransport()
	if reason != "" {
		return check.Skip(reason)
	}
	n := p.o.BurstSize
	answers := make([]burstAnswer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		f := h.Fresh()
		if f.MaxBytes <= 0 || f.MaxBytes > burstMaxAnswer {
			f.MaxBytes = burstMaxAnswer
		}
		cl := p.c.WithTransport(f)
		call := cl.NewCall("tools/list", nil)
		call.ID = p.c.NextID()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer f.Close()
			<-start
			x, err := p.do(ctx, cl, call)
			answers[i] = summarizeListing(call, x, err)
		}()
	}
	close(start)
	wg.Wait()
	return judgeBurst(answers)
}

func summarizeListing(call *mcp.Call, x *mcp.Exchange, err error) burstAnswer {
	var a burstAnswer
	if x != nil {
		a.status = x.Status
	}
	if err != nil {
		if errors.Is(err, mcp.ErrTooLarge) {
			err = fmt.Errorf("%w: the burst reads at most %d bytes per answer", err, burstMaxAnswer)
		}
		a.err = err.Error()
		return a
	}
	res, err := mcp.Result(call, x)
	if err != nil {
		a.err = err.Error()
		return a
	}
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		a.err = "the result's tools member is not an array of objects"
		return a
	}
	h := sha256.New()
	for _, t := range r.Tools {
		// Canonical, so that two replicas that serialise the same tool
		// differently still agree.
		c, _ := canon.JSON(t)
		h.Write(c)
		h.Write([]byte{'\n'})
		var named struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(t, &named)
		a.names = append(a.names, named.Name)
	}
	a.hash = hex.EncodeToString(h.Sum(nil))
	return a
}

func judgeBurst(answers []burstAnswer) check.Outcome {
	n := len(answers)
	var errs []map[string]any
	limited := 0
	type variant struct {
		Count int      `json:"count"`
		Hash  string   `json:"sha256"`
		Tools []string `json:"tools"`
	}
	byHash := map[string]*variant{}
	var order []*variant
	ok := 0
	for _, a := range answers {
		if a.err != "" {
			if a.status == http.StatusTooManyRequests {
				limited++
			}
			if len(errs) < 5 {
				errs = append(errs, map[string]any{"status": a.status, "error": clip.Bytes(a.err, 300)})
			}
			continue
		}
		v := byHash[a.hash]
		if v == nil {
			v = &variant{Hash: a.hash, Tools: a.names}
			byHash[a.hash] = v
			order = append(order, v)
		}
		v.Count++
		ok++
	}
	if failures := n - ok; failures > 0 {
		msg := fmt.Sprintf("%d of %d concurrent tools/list requests failed; first: %s", failures, n, errs[0]["error"])
		if limited > 0 {
			msg += fmt.Sprintf(" (%d answered 429: the server rate-limits a burst of %d)", limited, n)
		}
		return check.Failf(map[string]any{"failures": errs, "failed": failures, "requests": n}, "%s", msg)
	}
	if len(order) > 1 {
		sort.SliceStable(order, func(i, j int) bool { return order[i].Count > order[j].Count })
		common := map[string]bool{}
		for _, t := range order[0].Tools {
			common[t] = true
		}
		var diffs []string
		for _, v := range order[1:] {
			other := map[string]bool{}
			for _, t := range v.Tools {
				other[t] = true
				if !common[t] {
					diffs = append(diffs, "+"+t)
				}
			}
			for _, t := range order[0].Tools {
				if !other[t] {
					diffs = append(diffs, "-"+t)
				}
			}
		}
		detail := "the lists differ in content or order"
		if len(diffs) > 0 {
			detail = "against the most common list: " + strings.Join(dedupe(diffs), ", ")
		}
		return check.Failf(map[string]any{"variants": order, "requests": n},
			"%d concurrent identical tools/list requests got %d different tool lists (%s); a stateless server's replicas must answer alike", n, len(order), detail)
	}
	return check.PassInfo(fmt.Sprintf("%d concurrent tools/list on %d connections agreed (%d tools on the first page)", n, n, len(order[0].Tools)))
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// streamTarget is the request whose SSE answer the cut-stream probe cuts,
// with what the server answered to it when the stream was not cut.
type streamTarget struct {
	label    string
	method   string
	params   map[string]any
	baseline string
}

// prepareCut finds a request the server answers with an SSE stream:
// tools/list, else a call of a safe tool with arguments its schema accepts
// (servers often stream only tool calls).
func prepareCut(ctx context.Context, p *prober) string {
	if p.c.Era() == mcp.EraLegacy {
		return "the server speaks only " + p.c.Version() + ", which resumed broken streams with Last-Event-ID; re-issuing with a new id is the 2026-07-28 rule"
	}
	if _, reason := p.httpTransport(); reason != "" {
		return reason
	}
	type candidate struct {
		label  string
		method string
		params map[string]any
	}
	cands := []candidate{{"tools/list", "tools/list", nil}}
	for _, t := range p.safeTools() {
		if args, ok := validArgs(t.InputSchema); ok {
			cands = append(cands, candidate{"tools/call " + t.Name, "tools/call", map[string]any{"name": t.Name, "arguments": args}})
		}
	}
	var tried []string
	for _, c := range cands {
		call := p.c.NewCall(c.method, c.params)
		x, err := p.do(ctx, p.c, call)
		switch {
		case err != nil:
			tried = append(tried, c.label+" (no answer: "+clip.Bytes(describeErr(err), 120)+")")
		case x.ContentType == "text/event-stream" && x.Response != nil && x.Status < 500:
			p.stream = &streamTarget{label: c.label, method: c.method, params: c.params, baseline: answerKind(x)}
			return ""
		default:
			tried = append(tried, fmt.Sprintf("%s (%s, HTTP %d)", c.label, orNone(x.ContentType), x.Status))
		}
	}
	reason := "no request got a streamed (text/event-stream) answer, so there is no stream to cut: " + strings.Join(tried, "; ")
	if len(cands) == 1 {
		reason += "; and " + noSafeTool
	}
	return reason
}

func orNone(s string) string {
	if s == "" {
		return "no Content-Type"
	}
	return s
}

// answerKind names the kind of answer, for comparing the re-issued request
// with the uncut one.
func answerKind(x *mcp.Exchange) string {
	switch {
	case x == nil || x.Response == nil:
		return "no JSON-RPC answer"
	case x.Response.Error != nil:
		return fmt.Sprintf("error %d", x.Response.Error.Code)
	}
	return "a result"
}

// validArgs returns arguments the schema accepts: none, or the required
// properties with plain values (schema.SampleArgs).
func validArgs(raw json.RawMessage) (map[string]any, bool) {
	s, err := schema.Compile(raw)
	if err != nil {
		return nil, false
	}
	for _, args := range []map[string]any{{}, schema.SampleArgs(raw)} {
		b, err := json.Marshal(args)
		if err != nil {
			continue
		}
		inst, err := schema.DecodeJSON(b)
		if err == nil && s.Validate(inst) == nil {
			return args, true
		}
	}
	return nil, false
}

// cutPause is how long the probe waits between cutting a stream and
// re-issuing the request, as a client's retry back-off would; it gives the
// server time to see the disconnect.
const cutPause = 100 * time.Millisecond

// runCut sends the stream request, closes the answer after its first
// bytes, re-issues the request with a new id, and wants the same kind of
// answer the uncut request got. 2026-07-28 removed stream resumption: a
// client whose stream broke MUST re-issue the request with a new id
// (changelog, "SSE resumability removed"), so a server that wedges on a
// cut stream leaves its clients no way to finish a call.
func runCut(ctx context.Context, p *prober) check.Outcome {
	h, reason := p.httpTransport()
	if reason != "" {
		return check.Skip(reason)
	}
	st := p.stream
	cut := p.c.NewCall(st.method, st.params)
	ct, status, err := p.cutStream(ctx, h, cut)
	if err != nil {
		return check.Failf(map[string]any{"request": st.method, "id": cut.ID, "error": err.Error()},
			"the request to be cut (%s) got no answer: %s", st.label, describeErr(err))
	}
	if ct != "text/event-stream" {
		return check.Skip(fmt.Sprintf("this time %s was answered with %s (HTTP %d), not a stream", st.label, orNone(ct), status))
	}
	select {
	case <-ctx.Done():
		return check.Errored(ctx.Err(), nil)
	case <-time.After(cutPause):
	}
	again := p.c.NewCall(st.method, st.params)
	x, err := p.do(ctx, p.c, again)
	ev := check.WithError(check.Probe.Of(x), err)
	ev["cutId"] = cut.ID
	if err != nil {
		return check.Failf(ev, "the %s stream (id %v) was cut after its first bytes, and the request re-issued with id %v got no answer: %s",
			st.label, cut.ID, again.ID, describeErr(err))
	}
	got := answerKind(x)
	switch {
	case x.Status >= 500:
		return check.Failf(ev, "after the %s stream (id %v) was cut, the request re-issued with id %v got HTTP %d (%s); uncut, it got %s",
			st.label, cut.ID, again.ID, x.Status, got, st.baseline)
	case got != st.baseline:
		return check.Failf(ev, "after the %s stream (id %v) was cut, the request re-issued with id %v got %s; uncut, it got %s",
			st.label, cut.ID, again.ID, got, st.baseline)
	}
	if _, err := mcp.Result(again, x); err != nil && x.Response.Error == nil {
		return check.Failf(ev, "after the %s stream was cut, the re-issued request's answer is not usable: %v", st.label, err)
	}
	return check.PassInfo(fmt.Sprintf("cut the %s stream after its first bytes; the request re-issued with a new id got %s", st.label, got))
}

// cutStream posts call on a connection of its own, reads the first bytes of
// the answer and closes it. It returns the answer's media type and status.
func (p *prober) cutStream(ctx context.Context, h *mcp.HTTP, call *mcp.Call) (contentType string, status int, err error) {
	body, err := json.Marshal(&mcp.Request{ID: call.ID, Method: call.Method, Params: call.Params})
	if err != nil {
		return "", 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return "", 0, err
	}
	// The headers the transport would send (streamable-http.mdx §Sending
	// Messages): both media types in Accept, the user's headers, and the
	// call's MCP headers.
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range h.Header {
		req.Header[k] = append([]string(nil), vs...)
	}
	for k, vs := range call.Header {
		req.Header[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
	}
	// The run's OAuth token, as the client would send it (--oauth-*).
	if v, err := p.c.Authorization(ctx); err == nil && v != "" {
		req.Header.Set("Authorization", v)
	}
	client := mcp.NewHTTPClient()
	// One connection that dies with the body: closing it early is the cut.
	client.Transport.(*http.Transport).DisableKeepAlives = true
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, err
	}
	contentType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	buf := make([]byte, 32)
	_, rerr := io.ReadAtLeast(resp.Body, buf, 1)
	resp.Body.Close()
	cancel()
	if rerr != nil && contentType == "text/event-stream" {
		return contentType, resp.StatusCode, fmt.Errorf("the stream ended before its first bytes: %w", rerr)
	}
	return contentType, resp.StatusCode, nil
}
