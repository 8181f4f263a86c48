package schema

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Kind classifies a compile error. The values are stable: conformance checks
// put them into report evidence and branch on them, for instance to tell an
// invalid 2020-12 schema from one with an unresolvable $ref.
type Kind string

// The kinds of compile error.
const (
	// KindInvalidJSON: the document is not a single JSON value.
	KindInvalidJSON Kind = "invalid-json"
	// KindInvalidSchema: the document does not conform to its dialect's
	// metaschema, or is otherwise not a schema (bad regex, duplicate $id or
	// $anchor).
	KindInvalidSchema Kind = "invalid-schema"
	// KindUnresolvedRef: a $ref or $dynamicRef points into this document at
	// something that is not there.
	KindUnresolvedRef Kind = "unresolved-ref"
	// KindExternalRef: a $ref or $dynamicRef resolves outside this document
	// (network, file, or a relative name); such refs are never loaded.
	KindExternalRef Kind = "external-ref"
	// KindUnknownDialect: $schema names a dialect other than draft-04, -06,
	// -07, 2019-09 or 2020-12.
	KindUnknownDialect Kind = "unknown-dialect"
	// KindTooLarge: the document exceeds MaxSize bytes.
	KindTooLarge Kind = "too-large"
	// KindTooDeep: the document nests deeper than MaxDepth.
	KindTooDeep Kind = "too-deep"
	// KindTooComplex: in-place applicators fan out beyond MaxFanout.
	KindTooComplex Kind = "too-complex"
	// KindInternal: the JSON Schema library failed (panicked) on the
	// document. That is a bug here or in the library, not by itself proof
	// that the schema is wrong.
	KindInternal Kind = "internal"
)

// Error is a compile error.
type Error struct {
	Kind Kind
	// Pointer is the RFC 6901 JSON pointer of the offending keyword in the
	// schema document ("" is the root). For ref errors it points at the
	// $ref keyword itself, e.g. "/properties/a/$ref".
	Pointer string
	// Ref is the $ref (or $dynamicRef) value for ref errors.
	Ref string
	// Message says what is wrong, without the kind or the pointer.
	Message string
	// Violations lists, for KindInvalidSchema, where the document breaks
	// its metaschema: Location is a pointer into the schema document. It
	// holds at most MaxViolations entries; Total counts all of them.
	Violations []Violation
	Total      int
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s at %s: %s", e.Kind, displayPointer(e.Pointer), e.Message)
}

// Violation is one reason a value fails a schema.
type Violation struct {
	// Location is the JSON pointer of the failing value ("" is the root).
	Location string
	Message  string
}

func (v Violation) String() string {
	return displayPointer(v.Location) + ": " + v.Message
}

// ValidationError is returned by Validate. Its violations are sorted by
// location and message, so the text is the same on every run.
type ValidationError struct {
	Violations []Violation // at most MaxViolations
	Total      int         // all violations, including those cut off
}

// Error renders one violation per line after a summary line.
func (e *ValidationError) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "instance does not match the schema (%d %s)", e.Total, plural(e.Total, "violation"))
	for _, v := range e.Violations {
		sb.WriteString("\n  ")
		sb.WriteString(v.String())
	}
	if n := e.Total - len(e.Violations); n > 0 {
		fmt.Fprintf(&sb, "\n  … and %d more", n)
	}
	return sb.String()
}

func displayPointer(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// classify turns a library compile error into an *Error. Ref problems are
// normally caught earlier by auditRefs, with the pointer of the $ref; the
// ref cases here are a backstop that keeps the kind right if the library
// and the audit ever disagree.
func classify(err error, dialect string) *Error {
	var own *Error
	if errors.As(err, &own) {
		return own
	}
	var (
		sve  *jsonschema.SchemaValidationError
		lue  *jsonschema.LoadURLError
		jpnf *jsonschema.JSONPointerNotFoundError
		anf  *jsonschema.AnchorNotFoundError
		ijp  *jsonschema.InvalidJsonPointerError
		pue  *jsonschema.ParseURLError
	)
	switch {
	case errors.As(err, &sve):
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			vs := flatten(ve)
			// The library checks a subschema reached only by a $ref (say
			// "#/required/0") on its own, so locations are relative to it.
			if base := locationPointer(sve.URL); base != "" {
				for i := range vs {
					vs[i].Location = base + vs[i].Location
				}
			}
			e := &Error{Kind: KindInvalidSchema, Violations: capViolations(vs), Total: len(vs)}
			e.Message = "not a valid " + dialectName(dialect) + " schema"
			if len(vs) > 0 {
				// The first location, with every reason given for it: for
				// "type":"strnig" one reason alone ("got string, want
				// array") would hide the useful one (the allowed names).
				e.Pointer = vs[0].Location
				var msgs []string
				for _, v := range vs {
					if v.Location == e.Pointer {
						msgs = append(msgs, v.Message)
					}
				}
				e.Message += ": " + strings.Join(msgs, "; ")
				if n := len(vs) - len(msgs); n > 0 {
					e.Message += fmt.Sprintf(" (and %d more %s elsewhere)", n, plural(n, "violation"))
				}
			}
			return e
		}
		return &Error{Kind: KindInvalidSchema, Message: clean(sve.Error())}
	case errors.As(err, &lue), errors.As(err, &jpnf), errors.As(err, &anf),
		errors.As(err, &ijp), errors.As(err, &pue):
		if lue != nil {
			return &Error{Kind: KindExternalRef, Ref: clean(lue.URL),
				Message: fmt.Sprintf("reference to %q is outside this schema and is not loaded", clean(lue.URL))}
		}
		if pue != nil {
			return &Error{Kind: KindInvalidSchema, Message: clean(err.Error())}
		}
		return &Error{Kind: KindUnresolvedRef, Message: clean(err.Error())}
	}
	var (
		ude *jsonschema.UnsupportedDraftError
		uve *jsonschema.UnsupportedVocabularyError
		mce *jsonschema.MetaSchemaCycleError
		ime *jsonschema.InvalidMetaSchemaURLError
	)
	if errors.As(err, &ude) || errors.As(err, &uve) || errors.As(err, &mce) || errors.As(err, &ime) {
		return &Error{Kind: KindUnknownDialect, Message: clean(err.Error())}
	}
	return &Error{Kind: KindInvalidSchema, Message: clean(err.Error())}
}
