package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

func subscriptionChecks() []*Check {
	return []*Check{
		{ID: "subscriptions/no-unsolicited", Reqs: []string{"base/listen-requested-only", "http/sse-related"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/subscriptions"),
			Title: "no list-changed or resource-updated notification arrives outside a subscriptions/listen stream (HTTP request streams; stdio without the subscription's id)",
			Once:  true, After: true,
			Run: func(ctx context.Context, e *Env) Outcome {
				seen := e.unsolicitedNotes()
				if len(seen) == 0 {
					return check.PassInfo("watched every answer of the run")
				}
				return sentWhereNot(seen, "notifications", "%s", "on the answer stream of", "on stdout without the run's subscription id",
					"notification types are opt-in through subscriptions/listen (servers MUST NOT send a type the client did not request)")
			}},
		{ID: "subscriptions/listen", Reqs: []string{"http/method-not-found-404", "base/subscription-id-meta", "base/listen-requested-only", "base/listen-ack-first", "utilities/logging-request-scoped"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/subscriptions"),
			Title: "subscriptions/listen, whenever the server answers it, is acknowledged first (honoured filter, subscription id), and every notification on the stream carries the id and a requested type; a server with nothing to notify acknowledges an empty subset or refuses with -32601 (HTTP 404)",
			Once:  true, After: true,
			Skip: func(e *Env) string {
				_, _, reason := listenFilter(e)
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
			if l.declared {
				return check.Failf(ev, "subscriptions/listen got error %d (%s) although the server declares what the filter %v asks for", rerr.Code, clip.Bytes(rerr.Message, 100), l.filter)
			}
			// Nothing declared: a server without subscriptions does not
			// implement the method, which is -32601 with HTTP 404
			// (streamable-http §Protocol Version Header).
			o := e.expectError(x, nil, "subscriptions/listen on a server that declares nothing to notify", e.httpStatus(http.StatusNotFound), mcp.CodeMethodNotFound)
			if o.Status == report.StatusPass {
				return check.PassInfo("refused with -32601: the server declares no listChanged or subscribe capability and does not serve subscriptions")
			}
			o.Message += " (a server that does not serve subscriptions refuses the method with -32601; one that serves it acknowledges first)"
			return o
		}
	}
	if len(msgs) == 0 && x != nil && x.Response != nil {
		return check.Failf(ev, "subscriptions/listen was answered at once with a result (%s) and no notifications/subscriptions/acknowledged before it: a server that answers the method MUST acknowledge first (with the subset it honours, empty when it declares nothing to notify), or refuse it with -32601",
			clip.Bytes(string(x.Response.Result), 160))
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
	if l.st != nil {
		// On stdio every subscription shares stdout, and the ordering is
		// per subscription id (subscriptions.mdx §Acknowledgment): judge
		// the messages that carry this one's.
		msgs = withSubscription(msgs, l.id)
		if len(msgs) == 0 {
			return check.Failf(ev, "no message on stdout carried the subscription's id %s within %v (notifications/subscriptions/acknowledged MUST come first, carrying it)", l.id, time.Since(l.start).Round(10*time.Millisecond))
		}
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
	if r := x.Response; l.st != nil && r != nil && r.Error == nil && r.Line() > 0 && r.Line() < ack.Line() {
		// The result ends a subscription (graceful closure) and carries
		// its id: it came before the acknowledgement.
		return check.Failf(ev, "the server answered subscriptions/listen with a result (stdout line %d), which ends the subscription, before its acknowledgement (line %d); notifications/subscriptions/acknowledged MUST be the first message carrying the subscription's id",
			r.Line(), ack.Line())
	}
	var ap struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(ack.Params, &ap) != nil || ap.Notifications == nil {
		return check.Fail("the acknowledgement has no params.notifications object (the honoured subset of the filter)", ev)
	}
	if sid, ok := ap.Meta[metaSubscriptionID]; !ok || !canon.EqualJSON(sid, l.id) {
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
		if sid, ok := p.Meta[metaSubscriptionID]; !ok || !canon.EqualJSON(sid, l.id) {
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

// withSubscription keeps the messages whose _meta carries subscription id.
func withSubscription(msgs []*mcp.Message, id json.RawMessage) []*mcp.Message {
	var out []*mcp.Message
	for _, m := range msgs {
		var p struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(m.Params, &p)
		if sid, ok := p.Meta[metaSubscriptionID]; ok && canon.EqualJSON(sid, id) {
			out = append(out, m)
		}
	}
	return out
}
