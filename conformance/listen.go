package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// subscriptions/listen (basic/patterns/subscriptions.mdx) is a long-lived
// stream. Rather than hold a check slot open for a fixed window, the run
// opens one subscription before the checks start and reads it while they
// run; the check is judged after them (Check.After) on everything the
// stream carried: the acknowledgement first, with the honoured subset of
// the filter and the subscription id (the listen request's id); every later
// notification with that id, and of a requested type only.

// minListen is how long the stream is read at least, for a run that ends
// sooner (a --checks run of this check alone).
const minListen = 100 * time.Millisecond

const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// subscriptionMethods maps a SubscriptionFilter key to the notification it
// opts in to.
var subscriptionMethods = map[string]string{
	"toolsListChanged":      "notifications/tools/list_changed",
	"promptsListChanged":    "notifications/prompts/list_changed",
	"resourcesListChanged":  "notifications/resources/list_changed",
	"resourceSubscriptions": "notifications/resources/updated",
}

type listenState struct {
	once    sync.Once
	stopped sync.Once
	start   time.Time
	filter  map[string]any
	id      json.RawMessage
	cancel  context.CancelFunc
	done    chan struct{}
	x       *mcp.Exchange
	err     error
	st      *mcp.Stdio
	before  int
}

// listenFilter picks what to subscribe to: the first list-changed
// capability the server declares, else resource updates of its first
// resource ("" reason when there is something).
func listenFilter(e *Env) (map[string]any, string) {
	declared := func(capability, flag string) bool {
		var v bool
		return json.Unmarshal(objectMembers(e.capabilities[capability])[flag], &v) == nil && v
	}
	switch {
	case declared("tools", "listChanged"):
		return map[string]any{"toolsListChanged": true}, ""
	case declared("prompts", "listChanged"):
		return map[string]any{"promptsListChanged": true}, ""
	case declared("resources", "listChanged"):
		return map[string]any{"resourcesListChanged": true}, ""
	case declared("resources", "subscribe"):
		if uri := firstResourceURI(e); uri != "" {
			return map[string]any{"resourceSubscriptions": []string{uri}}, ""
		}
		return nil, "the server declares resources.subscribe but lists no resource to subscribe to"
	}
	return nil, "the server declares no listChanged or subscribe capability, so it has nothing to notify"
}

// startListen opens the run's subscription (once).
func (e *Env) startListen(ctx context.Context) {
	e.listen.once.Do(func() {
		l := &e.listen
		l.filter, _ = listenFilter(e)
		l.start = time.Now()
		l.done = make(chan struct{})
		call := e.modern.NewCall("subscriptions/listen", map[string]any{"notifications": l.filter})
		l.id, _ = json.Marshal(call.ID)
		if st, ok := e.modern.Transport().(*mcp.Stdio); ok {
			l.st, l.before = st, len(st.Notifications())
		}
		lctx, cancel := context.WithCancel(ctx)
		l.cancel = cancel
		go func() {
			defer close(l.done)
			l.x, l.err = e.modern.Do(lctx, call)
		}()
	})
}

// stopListen ends the subscription (closing the stream, or on stdio
// notifications/cancelled, which the client sends for a cancelled call)
// and returns what it carried.
func (e *Env) stopListen(ctx context.Context) (msgs []*mcp.Message, x *mcp.Exchange, err error) {
	l := &e.listen
	if l.done == nil {
		return nil, nil, errors.New("the subscription was not opened")
	}
	l.stopped.Do(func() {
		if d := minListen - time.Since(l.start); d > 0 {
			time.Sleep(d)
		}
		l.cancel()
	})
	select {
	case <-l.done:
	case <-ctx.Done():
		return nil, nil, fmt.Errorf("subscriptions/listen did not end: %w", ctx.Err())
	}
	if l.x != nil {
		for _, m := range l.x.Messages {
			if m.IsNotification() {
				msgs = append(msgs, m)
			}
		}
	}
	if l.st != nil {
		all := l.st.Notifications()
		for _, m := range all[min(l.before, len(all)):] {
			if m.Method == "notifications/subscriptions/acknowledged" || isSubscriptionNote(m.Method) {
				msgs = append(msgs, m)
			}
		}
	}
	return msgs, l.x, l.err
}

// unsolicitedNotes returns the subscription notifications seen outside the
// run's subscription: on HTTP request streams (recorded by do), and on
// stdio those that lack the subscription's id.
func (e *Env) unsolicitedNotes() []seenRequest {
	e.s2cMu.Lock()
	out := append([]seenRequest(nil), e.unsolicited...)
	e.s2cMu.Unlock()
	seen := map[mcp.Transport]bool{}
	for _, c := range []*mcp.Client{e.client, e.modern} {
		st, ok := c.Transport().(*mcp.Stdio)
		if !ok || seen[st] {
			continue
		}
		seen[st] = true
		for _, m := range st.Notifications() {
			if !isSubscriptionNote(m.Method) {
				continue
			}
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if sid, ok := p.Meta[metaSubscriptionID]; ok && e.listen.id != nil && sameJSON(sid, e.listen.id) {
				continue
			}
			out = append(out, seenRequest{During: "stdio", Method: m.Method, Raw: m.Raw})
		}
	}
	return out
}

func isSubscriptionNote(method string) bool {
	for _, m := range subscriptionMethods {
		if m == method {
			return true
		}
	}
	return false
}

func subscriptionChecks() []*Check {
	return []*Check{
		{ID: "subscriptions/no-unsolicited", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/subscriptions"),
			Title: "no list-changed or resource-updated notification arrives outside a subscriptions/listen stream (HTTP request streams; stdio without the subscription's id)",
			Once:  true, After: true,
			Run: func(ctx context.Context, e *Env) Outcome {
				seen := e.unsolicitedNotes()
				if len(seen) == 0 {
					return check.PassInfo("watched every answer of the run")
				}
				first := seen[0]
				where := "on the answer stream of " + first.During
				if first.During == "stdio" {
					where = "on stdout without the run's subscription id"
				}
				return check.Failf(map[string]any{"notifications": seen},
					"the server sent %s %s; notification types are opt-in through subscriptions/listen (servers MUST NOT send a type the client did not request): %s",
					first.Method, where, clip.Bytes(string(first.Raw), 200))
			}},
		{ID: "subscriptions/listen", Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/subscriptions"),
			Title: "subscriptions/listen is acknowledged first (honoured filter, subscription id), and every notification on the stream carries the id and a requested type",
			Once:  true, After: true,
			Skip: func(e *Env) string {
				_, reason := listenFilter(e)
				return reason
			},
			Run: func(ctx context.Context, e *Env) Outcome { return e.judgeListen(ctx) }},
	}
}

func (e *Env) judgeListen(ctx context.Context) Outcome {
	msgs, x, err := e.stopListen(ctx)
	l := &e.listen
	ev := map[string]any{"filter": l.filter}
	if x != nil {
		ev = check.With(check.Protocol.Of(x), "filter", l.filter)
	}
	if x != nil && x.Response != nil {
		if rerr := x.Response.Error; rerr != nil {
			return check.Failf(ev, "subscriptions/listen got error %d (%s) although the server declares what the filter %v asks for", rerr.Code, clip.Bytes(rerr.Message, 100), l.filter)
		}
	}
	if len(msgs) == 0 {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			var te *mcp.TimeoutError
			if !errors.As(err, &te) {
				return check.Errored(fmt.Errorf("subscriptions/listen: %w", err), ev)
			}
		}
		return check.Failf(ev, "subscriptions/listen got no acknowledgement in %v (notifications/subscriptions/acknowledged MUST be the stream's first message)", time.Since(l.start).Round(10*time.Millisecond))
	}
	shown := make([]json.RawMessage, 0, min(len(msgs), 10))
	for _, m := range msgs[:min(len(msgs), 10)] {
		shown = append(shown, m.Raw)
	}
	ev["notifications"] = shown
	ack := msgs[0]
	if ack.Method != "notifications/subscriptions/acknowledged" {
		return check.Failf(ev, "the stream's first message is %s; notifications/subscriptions/acknowledged MUST come first", ack.Method)
	}
	var ap struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(ack.Params, &ap) != nil || ap.Notifications == nil {
		return check.Fail("the acknowledgement has no params.notifications object (the honoured subset of the filter)", ev)
	}
	if sid, ok := ap.Meta[metaSubscriptionID]; !ok || !sameJSON(sid, l.id) {
		return check.Failf(ev, "the acknowledgement's _meta %s is %s, want the listen request's id %s", metaSubscriptionID, orAbsent(ap.Meta[metaSubscriptionID]), l.id)
	}
	var extra []string
	for k := range ap.Notifications {
		if _, asked := l.filter[k]; !asked {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return check.Failf(ev, "the acknowledgement honours %s, which the filter did not ask for (it is the requested subset)", strings.Join(extra, ", "))
	}
	allowed := map[string]bool{}
	for k := range l.filter {
		allowed[subscriptionMethods[k]] = true
	}
	for i, m := range msgs[1:] {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if sid, ok := p.Meta[metaSubscriptionID]; !ok || !sameJSON(sid, l.id) {
			if l.st != nil {
				// On stdio every subscription shares stdout: a
				// notification without this id is another's, or
				// unsolicited (subscriptions/no-unsolicited).
				continue
			}
			return check.Failf(ev, "notification %d on the stream (%s) carries _meta %s %s, want the listen request's id %s", i+2, m.Method, metaSubscriptionID, orAbsent(p.Meta[metaSubscriptionID]), l.id)
		}
		if !allowed[m.Method] {
			return check.Failf(ev, "the stream carried %s, a type the filter %v did not ask for (servers MUST NOT send it)", m.Method, l.filter)
		}
	}
	return check.PassInfo(fmt.Sprintf("acknowledged %s; %d notifications on the stream", jsonString(ap.Notifications), len(msgs)-1))
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
