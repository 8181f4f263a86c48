package report

// SurfaceDiff is the server's tool surface compared with the baseline's,
// one SurfaceChange per difference (engine/surfacediff computes it).
type SurfaceDiff struct {
	// Baseline names what the surface was compared with: the baseline
	// run's commit or run id, or its file.
	Baseline string `json:"baseline,omitempty"`
	// Changes are sorted by tool, then in the order of the change kinds.
	Changes []SurfaceChange `json:"changes"`
	// Tools counts the tools that changed (added and removed included).
	Tools int `json:"tools"`
	// Breaking counts the changes a call valid before may now fail on,
	// Security those that flip readOnlyHint or destructiveHint.
	Breaking int `json:"breaking,omitempty"`
	Security int `json:"security,omitempty"`
	// Undefined names tools whose definition one side did not record (a
	// report older than the definitions, or past the surface budget): a
	// change of theirs is named by its hash only.
	Undefined []string `json:"undefined,omitempty"`
}

// The kinds of SurfaceChange.
const (
	ChangeAdded   = "added"
	ChangeRemoved = "removed"
	// ChangeDescription and ChangeTitle: the tool's text changed.
	ChangeDescription = "description"
	ChangeTitle       = "title"
	// ChangeParamAdded is a new optional parameter (property);
	// ChangeRequiredAdded a new parameter that is required, or an
	// existing one that became required; ChangeRequiredRemoved one that is
	// no longer required; ChangeParamRemoved a parameter that is gone.
	ChangeParamAdded      = "param-added"
	ChangeRequiredAdded   = "required-added"
	ChangeRequiredRemoved = "required-removed"
	ChangeParamRemoved    = "param-removed"
	// ChangeTypeWidened: the type accepts everything it did and more
	// (integer to number, a type added to a list, the type dropped);
	// ChangeTypeNarrowed the reverse; ChangeTypeChanged neither.
	ChangeTypeWidened  = "type-widened"
	ChangeTypeNarrowed = "type-narrowed"
	ChangeTypeChanged  = "type-changed"
	// ChangeEnumWidened: values added to an enum (or the enum dropped);
	// ChangeEnumNarrowed values removed (or an enum imposed);
	// ChangeEnumChanged both.
	ChangeEnumWidened  = "enum-widened"
	ChangeEnumNarrowed = "enum-narrowed"
	ChangeEnumChanged  = "enum-changed"
	// ChangeParamDescription: a parameter's description changed.
	ChangeParamDescription = "param-description"
	// ChangeConstraint: another keyword at a path changed (minimum,
	// pattern, format, default, $ref…), named in Path.
	ChangeConstraint = "constraint"
	// ChangeAnnotation: an annotation's effective value changed (the
	// spec's defaults apply to an absent hint).
	ChangeAnnotation = "annotation"
	// ChangeDefinition: the hashes differ and no definition says how (a
	// side recorded only hashes).
	ChangeDefinition = "definition"
)

// Where a SurfaceChange is.
const (
	InInputSchema  = "inputSchema"
	InOutputSchema = "outputSchema"
	InAnnotations  = "annotations"
)

// SurfaceChange is one difference of one tool from the baseline.
type SurfaceChange struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
	// Where is InInputSchema, InOutputSchema or InAnnotations, empty for
	// the tool as a whole (added, removed, description, title).
	Where string `json:"where,omitempty"`
	// Path is the parameter (dotted, [] for array items) or annotation
	// the change is at, with the keyword for a constraint ("limit.maximum").
	Path string `json:"path,omitempty"`
	// Before and After are the old and new values, shortened.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Breaking: a call or a consumer that worked with the baseline's tool
	// may now fail (a new required parameter, a narrowed input type or
	// enum, a removed parameter or tool, a widened output).
	Breaking bool `json:"breaking,omitempty"`
	// Security: readOnlyHint or destructiveHint flipped, which changes
	// what a client lets the tool do without asking.
	Security bool `json:"security,omitempty"`
}

// ChangedTools are the names of the tools that changed, sorted.
func (d *SurfaceDiff) ChangedTools() []string {
	if d == nil {
		return nil
	}
	var out []string
	for _, c := range d.Changes {
		if len(out) == 0 || out[len(out)-1] != c.Tool {
			out = append(out, c.Tool)
		}
	}
	return out
}
