package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/engine/wire"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// uniqueNamesID is judged on the message recorder (engine/wire), again
// after every layer has run, like jsonrpc/wire-schema.
const uniqueNamesID = "jsonrpc/unique-member-names"

// framingChecks: what a reader of the server's bytes cannot take at face
// value, below the message's meaning.
//
// JSON, RFC 8259 §4 (https://www.rfc-editor.org/rfc/rfc8259#section-4):
// "The names within an object SHOULD be unique", and "When the names
// within an object are not unique, the behavior of software that receives
// such an object is unpredictable": a SHOULD. A later value must not hide
// an invalid earlier one, so the recorder also validates the reading that
// keeps the first value, and jsonrpc/wire-schema (MUST) fails on what
// fails there (engine/wire/dupnames.go).
//
// HTTP/1.1 framing, RFC 9112 §6.3
// (https://www.rfc-editor.org/rfc/rfc9112#section-6.3): a body that ends
// before its Content-Length, or chunked data that does not follow the
// chunked grammar (§7.1), leaves the message incomplete ("the recipient
// MUST consider the message to be incomplete and close the connection");
// bytes after a complete response are no response at all ("A client MUST
// NOT process, cache, or forward such extra data as a separate response").
// Those rules bind the recipient; the sender's is RFC 9110 §2.2: "A sender
// MUST NOT generate protocol elements that do not match the grammar
// defined by the corresponding ABNF rules" — a message whose body is not
// the length its framing declares, or bytes that start no message, do
// not match HTTP-message. So the check is a MUST of the server.
func framingChecks() []*Check {
	return []*Check{
		{ID: uniqueNamesID, Reqs: []string{"base/json-unique-names"}, Level: report.LevelShould, Revision: revBoth, Once: true, After: true,
			SpecRef: "https://www.rfc-editor.org/rfc/rfc8259#section-4",
			Title:   "no object in a message from the server gives a member name twice",
			Skip: func(e *Env) string {
				if e.opts.Wire == nil {
					return "no message recorder is attached to this run's transports"
				}
				return ""
			},
			Run: func(ctx context.Context, e *Env) Outcome { return judgeDuplicates(e.opts.Wire.Duplicates()) }},
		{ID: "http/message-framing", Reqs: []string{"http/message-framing"}, Level: report.LevelMust, Revision: revBoth, Transport: "http", After: true,
			SpecRef: "https://www.rfc-editor.org/rfc/rfc9112#section-6.3",
			Title:   "every HTTP answer is framed as its headers say: the whole Content-Length, well-formed chunks, nothing after the response",
			Run: func(ctx context.Context, e *Env) Outcome {
				f := e.findAnomalies(mcp.AnomalyFraming)
				if f.total > 0 {
					return check.Failf(f.evidence(), "the server sent %s not framed as HTTP/1.1 requires (RFC 9112 §6.3)%s",
						plural(f.total, "answer"), f.example())
				}
				return check.Pass()
			}},
	}
}

func judgeDuplicates(d wire.Dups) Outcome {
	seen := fmt.Sprintf("%d messages scanned", d.Scanned)
	if len(d.Findings) == 0 {
		return check.PassInfo(seen)
	}
	var parts []string
	for _, f := range d.Findings[:min(len(d.Findings), 3)] {
		p := f.Pointer
		if p == "" {
			p = "/"
		}
		how := "twice, both " + clip.Runes(f.First, 40)
		if f.Differs {
			how = fmt.Sprintf("twice, first %s then %s", clip.Runes(f.First, 40), clip.Runes(f.Later, 40))
		}
		parts = append(parts, fmt.Sprintf("%s %s: %q %s", f.Method, p, f.Name, how))
	}
	more := ""
	if len(d.Findings) > 3 {
		more = fmt.Sprintf(" and %d more", len(d.Findings)-3)
	}
	ev := map[string]any{"findings": d.Findings[:min(len(d.Findings), maxWireEvidence)], "distinct": len(d.Findings), "messages": d.Messages}
	if d.Overflow > 0 {
		ev["notKept"] = d.Overflow
	}
	return check.Failf(ev, "%s gave a member name twice in an object, which readers resolve differently (some keep the first value, most the last): %s%s (%s)",
		plural(d.Messages, "message"), strings.Join(parts, "; "), more, seen)
}
