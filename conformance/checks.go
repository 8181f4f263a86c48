package conformance

import (
	"sort"
	"sync"
)

// spec links a section of the 2026-07-28 specification.
func spec(path string) string {
	return "https://modelcontextprotocol.io/specification/2026-07-28/" + path
}

// withReqs sets the requirement rows (internal/requirements) a check
// built by a helper enforces.
func withReqs(c *Check, reqs ...string) *Check {
	c.Reqs = reqs
	return c
}

var (
	checksOnce sync.Once
	allChecks  []*Check
)

// The checks of each group of ids live in checks_<group>.go (the jsonrpc
// group's protocol-hygiene checks in checks_hygiene.go), each file starting
// with its group's list, like actionlint's rule_*.go; the judging helpers
// several groups share are in answers.go. This file is only the registry.

// Checks returns every check, sorted by id. The ids are stable: they are
// listed in docs/checks.md, which a test keeps in step with this list.
func Checks() []*Check {
	checksOnce.Do(func() {
		var all []*Check
		all = append(all, discoverChecks()...)
		all = append(all, orderingChecks()...)
		all = append(all, cachingChecks()...)
		all = append(all, resultTypeChecks()...)
		all = append(all, schemaChecks()...)
		all = append(all, errorChecks()...)
		all = append(all, headerChecks()...)
		all = append(all, httpChecks()...)
		all = append(all, jsonrpcChecks()...)
		all = append(all, eraChecks()...)
		all = append(all, metaChecks()...)
		all = append(all, mrtrChecks()...)
		all = append(all, lintChecks()...)
		all = append(all, paginationChecks()...)
		all = append(all, completionChecks()...)
		all = append(all, subscriptionChecks()...)
		all = append(all, resourceChecks()...)
		all = append(all, hygieneChecks()...)
		all = append(all, wireChecks()...)
		all = append(all, taskChecks()...)
		all = append(all, loggingChecks()...)
		all = append(all, authChecks()...)
		all = append(all, utf8Checks()...)
		all = append(all, framingChecks()...)
		all = append(all, appsChecks()...)
		all = append(all, skillsChecks()...)
		all = append(all, surfaceChecks()...)
		all = append(all, traceChecks()...)
		sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
		allChecks = all
	})
	return allChecks
}
