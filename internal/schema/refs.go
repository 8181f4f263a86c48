package schema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// auditRefs checks every $ref and $dynamicRef in a schema position of doc,
// in a fixed walk order, and returns an error for the first one that does
// not resolve inside the document.
//
// MCP 2026-07-28 §JSON Schema Usage (https://modelcontextprotocol.io/specification/2026-07-28/basic): clients MUST
// NOT dereference $refs that resolve to network URIs, and a schema with an
// unresolved external $ref SHOULD be rejected rather than treated as
// permissive. The audit runs before the library compiles, for three reasons:
//   - it sees refs the library never follows, such as one in an unused $defs
//     entry, which a client that dereferences eagerly would still try to load;
//   - it treats refs to the json-schema.org metaschemas as external, since
//     the library would quietly serve them from built-in copies while other
//     clients would have to fetch them;
//   - it reports the same ref on every run, with the pointer of the keyword,
//     where the library stops at whichever bad ref its map order reaches.
//
// $dynamicRef is resolved like $ref here, which is how it starts out in
// 2020-12; its dynamic scope can only move it to another $dynamicAnchor in
// an already-compiled resource, never to a new document.
func auditRefs(doc any, dialect string) *Error {
	a := &refAudit{
		doc:       doc,
		resources: map[string]string{rootURL: ""},
		anchors:   map[string]bool{},
	}
	a.collect(doc, "", rootURL, draftVersion(dialect), true)
	for _, r := range a.refs {
		if e := a.check(r); e != nil {
			return e
		}
	}
	return nil
}

// plainRefs is what one pointer-free walk of a 2020-12 document finds of
// its references, for compile to skip what it shows cannot fail: the
// reference audit (auditRefs) and, for Check, the library's compiling
// (surelyCompiles).
type plainRefs struct {
	// sure: auditRefs surely finds nothing. No subschema moves the base
	// URI or names an anchor ($id, $anchor, $dynamicAnchor, or a dialect
	// of its own), none has a $dynamicRef or $recursiveRef, and every
	// $ref is "#" or a plain JSON pointer (plainRef) naming a subschema
	// (schemaAt), which resolves inside the document.
	sure bool
	// schemas counts the subschemas walked; targets are the subschemas
	// the $refs name, one per $ref (set when sure).
	schemas int
	targets []any
}

func findPlainRefs(doc any) plainRefs {
	r := plainRefs{sure: true}
	var walk func(v any, root bool)
	walk = func(v any, root bool) {
		if !r.sure {
			return
		}
		r.schemas++
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, k := range [...]string{"$id", "id", "$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveRef", "$recursiveAnchor", "$schema"} {
			if _, has := obj[k]; has && (k != "$schema" || !root) {
				r.sure = false
				return
			}
		}
		if ref, has := obj["$ref"]; has {
			ptr, plain := plainRef(ref)
			target, found := schemaAt(doc, ptr)
			if !plain || !found {
				r.sure = false
				return
			}
			r.targets = append(r.targets, target)
		}
		eachSubschema(obj, func(sub any) { walk(sub, false) })
	}
	walk(doc, true)
	return r
}

type refSite struct {
	ptr     string // pointer of the keyword, e.g. /properties/a/$ref
	keyword string // $ref or $dynamicRef
	value   string
	base    string // base URI in effect, without fragment
}

type refAudit struct {
	doc       any
	resources map[string]string // resource URI -> pointer of its root
	anchors   map[string]bool   // resource URI + "#" + anchor name
	refs      []refSite
}

func (a *refAudit) collect(v any, ptr, base string, draft int, root bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	// A subschema with its own $id and $schema is a resource in another
	// dialect; $schema without an identifier is ignored, as the library
	// does.
	if s, ok := obj["$schema"].(string); ok && !root {
		if d := knownDialect(s); d != "" {
			if _, ok := obj[idKeyword(draftVersion(d))].(string); ok {
				draft = draftVersion(d)
			}
		}
	}
	_, hasRef := obj["$ref"]
	// Before 2019-09, every sibling of $ref is ignored, including the
	// identifier; the subschemas below are still walked because a $ref may
	// point into them (zod-to-json-schema puts "definitions" next to a root
	// "$ref").
	if !(draft < 2019 && hasRef) {
		if id, ok := obj[idKeyword(draft)].(string); ok {
			docPart, frag, _ := strings.Cut(id, "#")
			if docPart != "" {
				if nb, _, err := resolveRef(base, docPart); err == nil {
					base = nb
					if _, dup := a.resources[base]; !dup {
						a.resources[base] = ptr
					}
				}
			}
			if draft < 2019 && frag != "" {
				// Before 2019-09 a plain-name fragment in the id is an anchor.
				if name, err := url.PathUnescape(frag); err == nil {
					a.anchors[base+"#"+name] = true
				}
			}
		}
		if draft >= 2019 {
			if s, ok := obj["$anchor"].(string); ok {
				a.anchors[base+"#"+s] = true
			}
		}
		if draft >= 2020 {
			if s, ok := obj["$dynamicAnchor"].(string); ok {
				a.anchors[base+"#"+s] = true
			}
		}
	}
	if s, ok := obj["$ref"].(string); ok {
		a.refs = append(a.refs, refSite{ptr + "/$ref", "$ref", s, base})
	}
	if draft >= 2020 {
		if s, ok := obj["$dynamicRef"].(string); ok {
			a.refs = append(a.refs, refSite{ptr + "/$dynamicRef", "$dynamicRef", s, base})
		}
	}
	forEachSubschema(obj, ptr, func(_, _, p string, sub any) {
		a.collect(sub, p, base, draft, false)
	})
}

func (a *refAudit) check(r refSite) *Error {
	target, frag, err := resolveRef(r.base, r.value)
	if err != nil {
		return &Error{Kind: KindUnresolvedRef, Pointer: r.ptr, Ref: r.value,
			Message: fmt.Sprintf("%s %q is not a valid URI reference: %v", r.keyword, r.value, err)}
	}
	resPtr, ok := a.resources[target]
	if !ok {
		var msg string
		switch {
		case strings.HasPrefix(target, "mcp-eval:"):
			msg = fmt.Sprintf("%s %q names another document", r.keyword, r.value)
		case target != r.value && target+"#"+frag != r.value:
			msg = fmt.Sprintf("%s %q resolves to %q, outside this schema", r.keyword, r.value, target)
		default:
			msg = fmt.Sprintf("%s %q is outside this schema", r.keyword, r.value)
		}
		return &Error{Kind: KindExternalRef, Pointer: r.ptr, Ref: r.value,
			Message: msg + "; remote and file schemas are never loaded"}
	}
	switch {
	case frag == "":
		return nil
	case strings.HasPrefix(frag, "/"):
		if lookupPointer(a.doc, resPtr+frag) {
			return nil
		}
		return &Error{Kind: KindUnresolvedRef, Pointer: r.ptr, Ref: r.value,
			Message: fmt.Sprintf("%s %q does not resolve: nothing at %q in this schema", r.keyword, r.value, resPtr+frag)}
	default:
		if a.anchors[target+"#"+frag] {
			return nil
		}
		return &Error{Kind: KindUnresolvedRef, Pointer: r.ptr, Ref: r.value,
			Message: fmt.Sprintf("%s %q does not resolve: no anchor %q in this schema", r.keyword, r.value, frag)}
	}
}

func idKeyword(draft int) string {
	if draft == 4 {
		return "id"
	}
	return "$id"
}

// resolveRef resolves ref against base (RFC 3986 §5) and returns the target
// document URI without fragment and the percent-decoded fragment.
func resolveRef(base, ref string) (target, frag string, err error) {
	refDoc, rawFrag, _ := strings.Cut(ref, "#")
	frag, err = url.PathUnescape(rawFrag)
	if err != nil {
		return "", "", err
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", "", err
	}
	r, err := url.Parse(refDoc)
	if err != nil {
		return "", "", err
	}
	u := b.ResolveReference(r)
	// net/url drops an opaque base (golang/go#66084); a relative reference
	// against "urn:…" stays in that document.
	if !r.IsAbs() && b.Opaque != "" {
		u.Opaque = b.Opaque
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String(), frag, nil
}

// lookupPointer reports whether the RFC 6901 pointer ptr names a value in doc.
func lookupPointer(doc any, ptr string) bool {
	if ptr == "" {
		return true
	}
	if !strings.HasPrefix(ptr, "/") {
		return false
	}
	v := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok, ok := unescapeToken(tok)
		if !ok {
			return false
		}
		switch c := v.(type) {
		case map[string]any:
			if v, ok = c[tok]; !ok {
				return false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return false
			}
			v = c[i]
		default:
			return false
		}
	}
	return true
}

func unescapeToken(t string) (string, bool) {
	if !strings.Contains(t, "~") {
		return t, true
	}
	var sb strings.Builder
	for i := 0; i < len(t); i++ {
		if t[i] != '~' {
			sb.WriteByte(t[i])
			continue
		}
		if i+1 == len(t) {
			return "", false
		}
		switch t[i+1] {
		case '0':
			sb.WriteByte('~')
		case '1':
			sb.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return sb.String(), true
}
