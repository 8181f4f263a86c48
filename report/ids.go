package report

import "slices"

// HardGroups are the seven assertion groups of DESIGN.md ("The seven
// assertions"), in the order every renderer lists them: every check in
// them is a hard gate whatever its level. This is the one list; the
// conformance checks, the renderers and the docs use it.
var HardGroups = []string{"discover", "ordering", "caching", "result-type", "schema", "errors", "headers"}

// IsHardGroup reports whether group is one of HardGroups.
func IsHardGroup(group string) bool { return slices.Contains(HardGroups, group) }

// CheckAliases maps retired check ids to the id that now makes the same
// check. A waiver or a baseline that names an old id applies to the new
// one, so that a rename fails no gate.
//
// Remove in the next minor release: the aliases hold for one release
// (CHANGELOG.md, Unreleased).
var CheckAliases = map[string]string{
	// The resilience probes of a bad body were the conformance
	// checks jsonrpc/batch-rejected and jsonrpc/malformed-json a second
	// time; the conformance checks now cover both transports.
	"resilience/batch":          "jsonrpc/batch-rejected",
	"resilience/malformed-json": "jsonrpc/malformed-json",
}

// CanonicalCheckID returns the id that id names now: its CheckAliases
// entry, or id itself.
func CanonicalCheckID(id string) string {
	if to, ok := CheckAliases[id]; ok {
		return to
	}
	return id
}
