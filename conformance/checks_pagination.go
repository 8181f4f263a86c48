package conformance

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// paginated are the list methods with cursors (server/utilities/pagination).
var paginated = []listMethod{cacheable[1], cacheable[2], cacheable[3], cacheable[4]}

func declaredLists(e *Env) []listMethod {
	var out []listMethod
	for _, lm := range paginated {
		if e.declares(lm.capability) || (lm.capability == "tools" && e.capabilities == nil) {
			out = append(out, lm)
		}
	}
	return out
}

func needsLists(e *Env) string {
	if len(declaredLists(e)) == 0 {
		return "the server declares none of tools, prompts and resources, so it has no list to page"
	}
	return ""
}

func paginationChecks() []*Check {
	ref := spec("server/utilities/pagination")
	return []*Check{
		{ID: "pagination/cursor-round-trip", Reqs: []string{"base/state-explicit-id", "utilities/pagination-stable-cursors"}, Level: report.LevelMust, Revision: revBoth, SpecRef: ref,
			Title: "every declared list can be paged to its end: each nextCursor sent back gets the next page, and no page or cursor repeats",
			Skip:  needsLists,
			Run: func(ctx context.Context, e *Env) Outcome {
				// The run's shared walks: the same pages the caching and
				// tool checks judge.
				pages := 0
				var bounded []string
				var fail *Outcome
				for _, lm := range declaredLists(e) {
					l := e.listingOf(ctx, lm)
					if l.fail != nil && fail == nil {
						o := l.failure(lm.method)
						fail = &o
					}
					pages += len(l.pages)
					if l.bounded != "" {
						bounded = append(bounded, l.bounded)
					}
				}
				if fail != nil {
					// The first failure, and a list that did not end
					// beside it is said too: both are findings.
					if len(bounded) > 0 {
						fail.Message += "; and a list was not paged to its end within mcp-eval's bound: " + strings.Join(bounded, "; ")
					}
					return *fail
				}
				if len(bounded) > 0 {
					// Not paged to its end within mcp-eval's bound: every
					// cursor read round-tripped, and the bound is
					// mcp-eval's, not the spec's (it sets none), so the
					// check passes on what was read and names the bound.
					// An error here failed the run on a correct list that
					// a loaded machine walked slower than --timeout (the
					// fixture's 40-tool stdio list beside 24 CPU-bound
					// processes), which is a false hard failure.
					return check.PassInfo(fmt.Sprintf("%d pages read; a list was not paged to its end within mcp-eval's bound: %s", pages, strings.Join(bounded, "; ")))
				}
				return check.PassInfo(fmt.Sprintf("%d pages in all", pages))
			}},
		{ID: "pagination/invalid-cursor", Reqs: []string{"utilities/pagination-invalid-cursor"}, Level: report.LevelShould, Revision: revBoth, SpecRef: ref,
			Title: "a cursor the server never issued → -32602 on every declared list",
			Skip:  needsLists,
			Run: func(ctx context.Context, e *Env) Outcome {
				for _, lm := range declaredLists(e) {
					call := e.client.NewCall(lm.method, map[string]any{"cursor": probeCursor})
					x, _, err := e.do(ctx, e.client, call)
					if o := e.expectError(x, err, lm.method+" with an invalid cursor", 0, mcp.CodeInvalidParams); o.Status != report.StatusPass {
						return o
					}
				}
				return check.Pass()
			}},
	}
}
