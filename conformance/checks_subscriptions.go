package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/check"
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
		{ID: "subscriptions/listen", Reqs: []string{"base/subscription-id-meta", "base/listen-requested-only", "base/listen-ack-first", "utilities/logging-request-scoped"}, Level: report.LevelMust, Revision: revModern, SpecRef: spec("basic/patterns/subscriptions"),
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
