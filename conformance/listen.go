package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/mcp"
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
	// declared says whether the server declares what filter asks for.
	declared bool
	id       json.RawMessage
	cancel   context.CancelFunc
	done     chan struct{}
	x        *mcp.Exchange
	err      error
	st       *mcp.Stdio
	before   int
}

// listenFilter picks what to subscribe to: the first list-changed
// capability the server declares, else resource updates of its first
// resource, else (nothing declared) tool-list changes, which the server
// then acknowledges with an empty subset or refuses with -32601. declared
// says whether the server declares what the filter asks for.
func listenFilter(e *Env) (filter map[string]any, declared bool, reason string) {
	f, reason := declaredFilter(e)
	if f != nil || reason != "" {
		return f, f != nil, reason
	}
	return map[string]any{"toolsListChanged": true}, false, ""
}

// declaredFilter is the filter of what the server declares, nil with no
// reason when it declares nothing to notify.
func declaredFilter(e *Env) (map[string]any, string) {
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
	return nil, ""
}

// startListen opens the run's subscription (once).
func (e *Env) startListen(ctx context.Context) {
	e.listen.once.Do(func() {
		l := &e.listen
		l.filter, l.declared, _ = listenFilter(e)
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
	return e.seen(&e.unsolicited, (*mcp.Stdio).Notifications, func(m *mcp.Message) bool {
		if !isSubscriptionNote(m.Method) {
			return false
		}
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		sid, ok := p.Meta[metaSubscriptionID]
		return !ok || e.listen.id == nil || !canon.EqualJSON(sid, e.listen.id)
	})
}

func isSubscriptionNote(method string) bool {
	for _, m := range subscriptionMethods {
		if m == method {
			return true
		}
	}
	return false
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
