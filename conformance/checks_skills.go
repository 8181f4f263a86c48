package conformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// The Skills extension (io.modelcontextprotocol/skills, SEP-2640,
// seps/2640-skills-extension.md of modelcontextprotocol/modelcontextprotocol):
// a skill is a directory of files, each served as a resource (by
// convention skill://<skill-path>/<file-path>); skills/list enumerates the
// skills with their frontmatter and a manifest of their files (digest and
// size of each), skills/get answers one skill's entry by URI, and, where
// the server declares directoryRead, resources/directory/read lists a
// directory's direct children. The checks run when the server declares
// the extension under capabilities.extensions; most of the SEP binds the
// host (verification, approval, caching, origin tagging) and is not a
// server's. They read only: skills/list, skills/get, resources/read and
// resources/directory/read.

const (
	skillsExt = "io.modelcontextprotocol/skills"
	skillsRef = "https://modelcontextprotocol.io/seps/2640-skills-extension"
	// maxSkills bounds the skills whose entry, files and directory one
	// check reads; maxSkillFiles the files skills/file-digest reads.
	maxSkills     = 10
	maxSkillFiles = 20
	// maxSkillPages bounds the skills/list pages followed.
	maxSkillPages = 10
	dirMIME       = "inode/directory"
	// The per-skill limits of SEP-2640 §Limits.
	maxSkillEntries = 512
	maxSkillBytes   = 16 << 20
)

func skillsChecks() []*Check {
	return []*Check{
		skillsCheck(&Check{ID: "skills/list", Reqs: []string{"skills/list-method", "skills/entry-shape", "skills/resources-form", "skills/resources-complete", "skills/digest-format"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#enumeration-via-skillslist",
			Title:   "skills/list answers, each entry a uri, a frontmatter with name and description, and resources: \"dynamic\" or every file of the skill once (its SKILL.md included) with a sha256 digest and a size",
			Run:     skillsList}),
		skillsCheck(&Check{ID: "skills/uri-name", Reqs: []string{"skills/uri-name", "skills/name-rules"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#resource-mapping",
			Title:   "a listed skill's uri ends in /SKILL.md after a last path segment equal to its frontmatter name, a name of the Agent Skills naming rules",
			Run:     skillsURIName}),
		skillsCheck(&Check{ID: "skills/get", Reqs: []string{"skills/get-method", "skills/get-entry"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#retrieval-via-skillsget",
			Title:   "skills/get of a listed skill's uri answers the same entry as skills/list (up to 10)",
			Run:     skillsGet}),
		skillsCheck(&Check{ID: "skills/get-unknown", Reqs: []string{"skills/get-unknown"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#retrieval-via-skillsget",
			Title:   "skills/get of a URI that is no skill is refused with -32602",
			Run:     skillsGetUnknown}),
		skillsCheck(&Check{ID: "skills/file-digest", Reqs: []string{"skills/file-digest", "skills/file-size"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#integrity-and-verification",
			Title:   "every file a skill's resources list reads with resources/read as bytes of the listed size and sha256 digest (up to 20 files)",
			Run:     skillsFileDigest}),
		skillsCheck(&Check{ID: "skills/frontmatter", Reqs: []string{"skills/skillmd-frontmatter", "skills/frontmatter-identical"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#frontmatter",
			Title:   "a listed skill's SKILL.md begins with YAML frontmatter holding name and description, the same in content as the entry's frontmatter (up to 10)",
			Run:     skillsFrontmatter}),
		skillsCheck(&Check{ID: "skills/limits", Reqs: []string{"skills/limits"}, Level: report.LevelShould,
			SpecRef: skillsRef + "#limits",
			Title:   "no listed skill exceeds 512 files or 16 MiB in all (the sizes its resources list)",
			Run:     skillsLimits}),
		skillsCheck(&Check{ID: "skills/skillmd-mime", Reqs: []string{"skills/skillmd-metadata"}, Level: report.LevelShould,
			SpecRef: skillsRef + "#resource-metadata",
			Title:   "a listed skill's SKILL.md reads as text/markdown (up to 10)",
			Run:     skillsSkillMDMIME}),
		skillsCheck(&Check{ID: "skills/directory-read", Reqs: []string{"skills/directory-read", "skills/directory-read-unknown"}, Level: report.LevelMust,
			SpecRef: skillsRef + "#resourcesdirectoryread",
			Title:   "with directoryRead declared, resources/directory/read of a skill's root lists its direct children (SKILL.md among them, subdirectories as inode/directory), and of a URI that is no directory is refused with -32602",
			Run:     skillsDirectoryRead}),
	}
}

// skillsCheck fills in what the extension's checks share.
func skillsCheck(c *Check) *Check {
	c.Revision, c.Skip = revBoth, needsSkills
	return c
}

// needsSkills is the Skip of the extension's checks.
func needsSkills(e *Env) string {
	if !e.declaresExtension(skillsExt) {
		return "the server does not declare the extension " + skillsExt
	}
	return ""
}

// skillEntry is one entry of skills/list or the skill of skills/get.
type skillEntry struct {
	raw         json.RawMessage
	uri         string
	frontmatter map[string]any // nil when absent or not an object
	files       []skillFile    // the resources array; nil when dynamic or malformed
	dynamic     bool
}

type skillFile struct {
	URI    string          `json:"uri"`
	Digest string          `json:"digest"`
	Size   json.RawMessage `json:"size"`
}

// parseSkill reads an entry without judging it.
func parseSkill(raw json.RawMessage) skillEntry {
	s := skillEntry{raw: raw}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return s
	}
	_ = json.Unmarshal(m["uri"], &s.uri)
	_ = json.Unmarshal(m["frontmatter"], &s.frontmatter)
	var dyn string
	if json.Unmarshal(m["resources"], &dyn) == nil && dyn == "dynamic" {
		s.dynamic = true
	} else {
		_ = json.Unmarshal(m["resources"], &s.files)
	}
	return s
}

// name returns the frontmatter's name ("" when it is not a string).
func (s skillEntry) name() string {
	n, _ := s.frontmatter["name"].(string)
	return n
}

// listSkills follows skills/list's pages (up to maxSkillPages). The
// outcome is set when a page brought no result.
func (e *Env) listSkills(ctx context.Context) ([]skillEntry, *Outcome) {
	var out []skillEntry
	params := map[string]any{}
	for range maxSkillPages {
		call, x, err := e.send(ctx, "skills/list", params, nil)
		m, o := resultMembers(call, x, err)
		if o != nil {
			if o.Status == report.StatusFail {
				o.Message += " (a server declaring " + skillsExt + " MUST implement skills/list)"
			}
			return out, o
		}
		var raws []json.RawMessage
		if json.Unmarshal(m["skills"], &raws) != nil {
			o := check.Failf(check.Protocol.Of(x), "skills/list answered skills %s, not an array", orAbsent(m["skills"]))
			return out, &o
		}
		for _, r := range raws {
			out = append(out, parseSkill(bytes.Clone(r)))
		}
		var next string
		if json.Unmarshal(m["nextCursor"], &next) != nil || next == "" {
			break
		}
		params = map[string]any{"cursor": next}
	}
	return out, nil
}

// listedSkills is listSkills for the checks that judge the entries: a
// skip when skills/list gave none (skills/list judges why).
func (e *Env) listedSkills(ctx context.Context) ([]skillEntry, *Outcome) {
	skills, o := e.listSkills(ctx)
	if o != nil {
		if o.Status == report.StatusError {
			return nil, o
		}
		s := check.Skip("skills/list gave no listing (see skills/list)")
		return nil, &s
	}
	if len(skills) == 0 {
		s := check.Skip("skills/list lists no skill (a listing MAY be empty)")
		return nil, &s
	}
	return skills[:min(len(skills), maxSkills)], nil
}

var skillDigestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// skillsList: SEP-2640 §Enumeration via skills/list, "A server declaring
// the io.modelcontextprotocol/skills extension MUST implement the
// skills/list method"; the result table's required fields; §Resources,
// "resources MUST be complete: it lists every file of the skill, each
// exactly once, including an entry matching the skill's top-level uri",
// "Each uri MUST be the skill's SKILL.md or a file within the skill's
// directory", "Each entry MUST carry size", and "an entry with no
// resources at all, or with any value other than an array or "dynamic",
// is invalid"; §Integrity and verification, digests "formatted as
// sha256:{hex} where {hex} is 64 lowercase hexadecimal characters".
func skillsList(ctx context.Context, e *Env) Outcome {
	skills, o := e.listSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	for i, s := range skills {
		p = append(p, skillShape(fmt.Sprintf("skills[%d]", i), s)...)
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skills listed", len(skills)))
	}
	return p.outcome("skills/list entries that break the extension's rules")
}

// skillShape judges one entry's members; where names it.
func skillShape(where string, s skillEntry) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(s.raw, &m) != nil {
		return []string{where + ": not an object"}
	}
	var p []string
	if s.uri == "" {
		p = append(p, where+": uri is absent or not a string")
	} else {
		where += " (" + s.uri + ")"
	}
	switch {
	case s.frontmatter == nil:
		p = append(p, where+": frontmatter is absent or not an object")
	default:
		for _, k := range []string{"name", "description"} {
			if v, ok := s.frontmatter[k].(string); !ok || v == "" {
				b, _ := json.Marshal(s.frontmatter[k])
				p = append(p, fmt.Sprintf("%s: frontmatter.%s is %s, not a non-empty string (SKILL.md's frontmatter has name and description)", where, k, b))
			}
		}
	}
	res, ok := m["resources"]
	switch {
	case !ok:
		return append(p, where+`: no resources (an array of the skill's files or "dynamic" is REQUIRED)`)
	case s.dynamic:
		return p
	case s.files == nil && string(bytes.TrimSpace(res)) != "[]":
		return append(p, fmt.Sprintf(`%s: resources is %s, neither an array nor "dynamic"`, where, clip.Bytes(string(res), 60)))
	}
	dir := strings.TrimSuffix(s.uri, "SKILL.md")
	seen := map[string]bool{}
	for j, f := range s.files {
		fw := fmt.Sprintf("%s: resources[%d]", where, j)
		if f.URI == "" {
			p = append(p, fw+": uri is absent or not a string")
			continue
		}
		fw += " " + f.URI
		if seen[f.URI] {
			p = append(p, fw+": listed twice (each file exactly once)")
		}
		seen[f.URI] = true
		if f.URI != s.uri && (!strings.HasSuffix(s.uri, "/SKILL.md") || !strings.HasPrefix(f.URI, dir)) {
			p = append(p, fw+": neither the skill's SKILL.md nor a file within its directory")
		}
		if !skillDigestRE.MatchString(f.Digest) {
			p = append(p, fmt.Sprintf("%s: digest %q is not sha256: and 64 lowercase hex digits", fw, f.Digest))
		}
		if _, ok := skillSize(f.Size); !ok {
			p = append(p, fmt.Sprintf("%s: size is %s, not a byte count", fw, orAbsent(f.Size)))
		}
	}
	if s.uri != "" && !seen[s.uri] {
		p = append(p, where+": resources does not list the skill's own SKILL.md (resources MUST be complete)")
	}
	return p
}

// skillSize reads a size: a non-negative integer.
func skillSize(raw json.RawMessage) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil && n >= 0
}

// skillsURIName: SEP-2640 §Resource Mapping, "The final segment of
// <skill-path> MUST equal the skill's name as declared in its SKILL.md
// frontmatter" and "The final <skill-path> segment, being the skill name,
// MUST satisfy the Agent Skills specification's naming rules"; §Skill
// URIs, uri "is the full resource URI of the skill's SKILL.md". The
// naming rules (agentskills.io/specification, name field): 1 to 64
// characters, lowercase letters, digits and hyphens, no hyphen first,
// last or twice in a row.
func skillsURIName(ctx context.Context, e *Env) Outcome {
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	judged := 0
	for _, s := range skills {
		if s.uri == "" || s.name() == "" {
			continue // skills/list's
		}
		judged++
		rest, ok := strings.CutSuffix(s.uri, "/SKILL.md")
		if !ok {
			p = append(p, fmt.Sprintf("%s: does not end in /SKILL.md (a skill's uri is its SKILL.md's)", s.uri))
			continue
		}
		seg := rest[strings.LastIndex(rest, "/")+1:]
		if seg != s.name() {
			p = append(p, fmt.Sprintf("%s: the skill path ends in %q but the frontmatter name is %q (they MUST be equal)", s.uri, seg, s.name()))
		}
		if why := skillNameRule(s.name()); why != "" {
			p = append(p, fmt.Sprintf("%s: the name %q %s (the Agent Skills naming rules)", s.uri, s.name(), why))
		}
	}
	if judged == 0 {
		return check.Skip("no listed skill has a uri and a frontmatter name (see skills/list)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skills named as their path", judged))
	}
	return p.outcome("skills whose uri and name disagree")
}

// skillNameRule says how name breaks the Agent Skills naming rules, ""
// when it does not.
func skillNameRule(name string) string {
	switch n := utf8.RuneCountInString(name); {
	case n == 0 || n > 64:
		return fmt.Sprintf("has %d characters, not 1 to 64", n)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return "starts or ends with a hyphen"
	case strings.Contains(name, "--"):
		return "has two hyphens in a row"
	}
	for _, r := range name {
		if r != '-' && !unicode.IsLower(r) && !unicode.IsDigit(r) {
			return fmt.Sprintf("has %q, not a lowercase letter, digit or hyphen", r)
		}
	}
	return ""
}

// getSkill asks skills/get for uri.
func (e *Env) getSkill(ctx context.Context, uri string) (map[string]json.RawMessage, *mcp.Exchange, *Outcome) {
	call, x, err := e.send(ctx, "skills/get", map[string]any{"uri": uri}, nil)
	m, o := resultMembers(call, x, err)
	return m, x, o
}

// skillsGet: SEP-2640 §Retrieval via skills/get, "A server declaring the
// io.modelcontextprotocol/skills extension MUST also implement the
// skills/get method"; "The skill object is a skill entry, identical in
// shape and meaning to an entry of skills/list"; "A server MUST answer
// for every skill it serves". Both answers are snapshots: a skill that
// changed between the two calls differs for that reason, which the
// message says.
func skillsGet(ctx context.Context, e *Env) Outcome {
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	var ev any
	asked := 0
	for _, s := range skills {
		if s.uri == "" {
			continue
		}
		asked++
		m, x, o := e.getSkill(ctx, s.uri)
		if o != nil {
			if o.Status == report.StatusError {
				return *o
			}
			p = append(p, fmt.Sprintf("%s: %s (a server MUST answer for every skill it serves)", s.uri, o.Message))
			ev = o.Evidence
			continue
		}
		if diff := jsonDiff(s.raw, m["skill"]); diff != "" {
			p = append(p, fmt.Sprintf("%s: skills/get answered another entry than skills/list (%s); unless the skill changed between the two calls, the entries are the same", s.uri, diff))
			if ev == nil {
				ev = check.Protocol.Of(x)
			}
		}
	}
	if asked == 0 {
		return check.Skip("no listed skill has a uri (see skills/list)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skills answered as listed", asked))
	}
	out := p.outcome("skills/get answers that are not the listed entry")
	out.Evidence = map[string]any{"problems": p, "first": ev}
	return out
}

// jsonDiff names the first member where two JSON values differ, "" when
// they are equal as JSON values.
func jsonDiff(a, b json.RawMessage) string {
	var va, vb any
	if json.Unmarshal(a, &va) != nil {
		return "the listed entry is no JSON value"
	}
	if b == nil || json.Unmarshal(b, &vb) != nil || vb == nil {
		return "skill is " + orAbsent(b)
	}
	return valueDiff("skill", va, vb)
}

func valueDiff(path string, a, b any) string {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		for k, v := range ma {
			w, ok := mb[k]
			if !ok {
				return path + "." + k + " is missing"
			}
			if d := valueDiff(path+"."+k, v, w); d != "" {
				return d
			}
		}
		for k := range mb {
			if _, ok := ma[k]; !ok {
				return path + "." + k + " is added"
			}
		}
		return ""
	}
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB && len(la) == len(lb) {
		for i := range la {
			if d := valueDiff(fmt.Sprintf("%s[%d]", path, i), la[i], lb[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return fmt.Sprintf("%s is %s, listed %s", path, clip.Bytes(string(jb), 80), clip.Bytes(string(ja), 80))
}

// skillsProbeURI names no skill a server serves.
const skillsProbeURI = "skill://mcp-eval-no-such-skill/SKILL.md"

// skillsGetUnknown: SEP-2640 §Retrieval via skills/get, "If the URI does
// not identify a skill the server serves, the server MUST return error
// -32602 (Invalid params)".
func skillsGetUnknown(ctx context.Context, e *Env) Outcome {
	_, x, err := e.send(ctx, "skills/get", map[string]any{"uri": skillsProbeURI}, nil)
	return e.expectError(x, err, "skills/get of "+skillsProbeURI+", which no server serves", 0, mcp.CodeInvalidParams)
}

// readSkillFile reads uri with resources/read and returns the raw bytes
// of its content (text as UTF-8, blob decoded).
func (e *Env) readSkillFile(ctx context.Context, uri string) ([]byte, any, *Outcome, string) {
	call, x, err := e.send(ctx, "resources/read", map[string]any{"uri": uri}, nil)
	m, o := resultMembers(call, x, err)
	ev := check.Protocol.Of(x)
	if o != nil {
		return nil, ev, o, ""
	}
	var contents []struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     *string `json:"blob"`
	}
	if json.Unmarshal(m["contents"], &contents) != nil || len(contents) == 0 {
		return nil, ev, nil, "resources/read answered no contents"
	}
	c := contents[0]
	for _, k := range contents {
		if k.URI == uri {
			c = k
			break
		}
	}
	switch {
	case c.Text != nil:
		return []byte(*c.Text), ev, nil, ""
	case c.Blob != nil:
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			return nil, ev, nil, "the blob is not base64: " + err.Error()
		}
		return b, ev, nil, ""
	}
	return nil, ev, nil, "the content has neither text nor blob"
}

// skillsFileDigest: SEP-2640 §Resource Mapping, "Each file within a skill
// directory is exposed as an MCP resource"; §Resources, "Each entry MUST
// carry size: the length in bytes of the file's raw content — the same
// bytes the digest covers"; §Integrity and verification, "Each entry in a
// skill's resources carries the digest of the file at its uri" (a host
// MUST NOT use content that does not match it).
func skillsFileDigest(ctx context.Context, e *Env) Outcome {
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	var ev any
	read := 0
	for _, s := range skills {
		for _, f := range s.files {
			if read >= maxSkillFiles {
				break
			}
			size, okSize := skillSize(f.Size)
			if f.URI == "" || !skillDigestRE.MatchString(f.Digest) || !okSize {
				continue // skills/list's
			}
			read++
			b, x, o, bad := e.readSkillFile(ctx, f.URI)
			switch {
			case o != nil && o.Status == report.StatusError:
				return *o
			case o != nil:
				p = append(p, fmt.Sprintf("%s (of %s): cannot be read: %s (each file of a skill is a resource)", f.URI, s.uri, o.Message))
			case bad != "":
				p = append(p, fmt.Sprintf("%s (of %s): %s", f.URI, s.uri, bad))
			default:
				sum := sha256.Sum256(b)
				got := "sha256:" + hex.EncodeToString(sum[:])
				if int64(len(b)) != size || got != f.Digest {
					p = append(p, fmt.Sprintf("%s (of %s): read %d bytes of digest %s; the listing says %d bytes of %s", f.URI, s.uri, len(b), got, size, f.Digest))
				} else {
					continue
				}
			}
			if ev == nil {
				ev = x
			}
		}
	}
	if read == 0 {
		return check.Skip("no listed skill has a resources array of files (\"dynamic\" skills publish no digests)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skill files match their size and digest", read))
	}
	out := p.outcome("skill files that do not match their listing")
	out.Evidence = map[string]any{"problems": p, "first": ev}
	return out
}

// skillsFrontmatter: SEP-2640 §Skill Format, "SKILL.md MUST begin with
// YAML frontmatter containing at minimum the name and description
// fields"; §Frontmatter, "The frontmatter object MUST be identical in
// content to the frontmatter of the SKILL.md it describes".
func skillsFrontmatter(ctx context.Context, e *Env) Outcome {
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	var ev any
	read := 0
	for _, s := range skills {
		if s.uri == "" || s.frontmatter == nil {
			continue // skills/list's
		}
		b, x, o, bad := e.readSkillFile(ctx, s.uri)
		switch {
		case o != nil && o.Status == report.StatusError:
			return *o
		case o != nil:
			continue // skills/file-digest's
		}
		read++
		if bad == "" {
			bad = frontmatterProblem(b, s.frontmatter)
		}
		if bad != "" {
			p = append(p, s.uri+": "+bad)
			if ev == nil {
				ev = x
			}
		}
	}
	if read == 0 {
		return check.Skip("no listed skill's SKILL.md could be read (see skills/list, skills/file-digest)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d SKILL.md frontmatters match their entries", read))
	}
	out := p.outcome("SKILL.md files whose frontmatter is not their entry's")
	out.Evidence = map[string]any{"problems": p, "first": ev}
	return out
}

// frontmatterProblem judges a SKILL.md against the entry's frontmatter;
// "" when they agree.
func frontmatterProblem(md []byte, entry map[string]any) string {
	fm, err := skillFrontmatter(md)
	if err != "" {
		return err
	}
	for _, k := range []string{"name", "description"} {
		if v, ok := fm[k].(string); !ok || v == "" {
			return "the frontmatter has no " + k + " (SKILL.md MUST begin with frontmatter holding name and description)"
		}
	}
	if d := valueDiff("frontmatter", fm, entry); d != "" {
		return fmt.Sprintf("the entry's frontmatter is not the file's (%s); it MUST be identical in content", strings.Replace(d, "listed", "in the file", 1))
	}
	return ""
}

// skillFrontmatter parses the YAML frontmatter a SKILL.md begins with:
// a line "---", YAML, a line "---" (the Agent Skills format). Scalars keep
// YAML's core types (string, number, boolean, null) as JSON renders them;
// a timestamp stays the string written.
func skillFrontmatter(md []byte) (map[string]any, string) {
	text := strings.TrimPrefix(string(md), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, fmt.Sprintf("does not begin with YAML frontmatter (a line ---), but %s", clip.Bytes(text, 40))
	}
	end := strings.Index(rest, "\n---\n")
	if end < 0 {
		if !strings.HasSuffix(rest, "\n---") {
			return nil, "the frontmatter has no closing line ---"
		}
		end = len(rest) - 4
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(rest[:end+1]), &doc); err != nil {
		return nil, "the frontmatter is not YAML: " + err.Error()
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, "the frontmatter is not a YAML mapping"
	}
	v, err := yamlValue(doc.Content[0], 0)
	if err != nil {
		return nil, "the frontmatter: " + err.Error()
	}
	return v.(map[string]any), ""
}

// yamlValue renders a YAML node as the JSON value encoding/json decodes
// into any (numbers float64).
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > 64 {
		return nil, fmt.Errorf("nested deeper than 64 levels")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := yamlValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			v, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			var f float64
			if err := n.Decode(&f); err == nil {
				return f, nil
			}
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return b, nil
			}
		case "!!null":
			return nil, nil
		}
		return n.Value, nil
	}
	return nil, fmt.Errorf("a YAML node of kind %d", n.Kind)
}

// directoryRead reports whether the server declares directoryRead: in
// the extension's settings, as SEP-2640's example writes it, or under
// config, as SEP-2133's negotiation envelope would (the official suite
// accepts both).
func (e *Env) directoryRead() bool {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(objectMembers(e.capabilities["extensions"])[skillsExt], &ext)
	var cfg map[string]json.RawMessage
	_ = json.Unmarshal(ext["config"], &cfg)
	return string(ext["directoryRead"]) == "true" || string(cfg["directoryRead"]) == "true"
}

// skillsDirectoryRead: SEP-2640 §resources/directory/read, "A server that
// declares directoryRead MUST support the method for every directory
// within the skill namespaces it serves as individual files"; "The
// result contains every direct child of the directory: … subdirectories
// listed as directory resources (mimeType: "inode/directory")"; "If the
// URI does not exist, or exists but is not a directory resource, the
// server MUST return error -32602". A skill's root is its uri without
// "/SKILL.md" (§Resource Mapping), and SKILL.md is one of its children.
func skillsDirectoryRead(ctx context.Context, e *Env) Outcome {
	if !e.directoryRead() {
		return check.Skip("the server does not declare directoryRead in " + skillsExt)
	}
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	var ev any
	read := 0
	for _, s := range skills {
		root, ok := strings.CutSuffix(s.uri, "/SKILL.md")
		if !ok || s.dynamic {
			continue
		}
		read++
		if bad, x := e.directoryProblem(ctx, root, s); bad != "" {
			p = append(p, root+": "+bad)
			if ev == nil {
				ev = x
			}
		}
	}
	if read == 0 {
		return check.Skip("no listed skill has a uri ending in /SKILL.md (see skills/uri-name)")
	}
	probe := strings.TrimSuffix(skills[0].uri, "SKILL.md") + "mcp-eval-no-such-directory"
	if !strings.Contains(probe, "://") {
		probe = "skill://mcp-eval-no-such-skill/mcp-eval-no-such-directory"
	}
	_, x, err := e.send(ctx, "resources/directory/read", map[string]any{"uri": probe}, nil)
	if o := e.expectError(x, err, "resources/directory/read of "+probe+", which does not exist", 0, mcp.CodeInvalidParams); o.Status != report.StatusPass {
		if o.Status == report.StatusError {
			return o
		}
		p = append(p, o.Message)
		if ev == nil {
			ev = check.Protocol.Of(x)
		}
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skill roots read", read))
	}
	out := p.outcome("directory reads that break the extension's rules")
	out.Evidence = map[string]any{"problems": p, "first": ev}
	return out
}

// directoryProblem reads the directory dir, the root of skill s, and
// judges its first page; a child that the manifest shows to hold files
// is a subdirectory.
func (e *Env) directoryProblem(ctx context.Context, dir string, s skillEntry) (string, any) {
	call, x, err := e.send(ctx, "resources/directory/read", map[string]any{"uri": dir}, nil)
	m, o := resultMembers(call, x, err)
	ev := check.Protocol.Of(x)
	if o != nil {
		return o.Message, ev
	}
	var children []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
	}
	if json.Unmarshal(m["resources"], &children) != nil {
		return "resources is " + orAbsent(m["resources"]) + ", not an array of resources", ev
	}
	_, more := m["nextCursor"]
	found := false
	for _, c := range children {
		rest, ok := strings.CutPrefix(c.URI, dir+"/")
		if !ok || rest == "" || strings.Contains(rest, "/") {
			return fmt.Sprintf("lists %s, not a direct child (the listing is not recursive)", c.URI), ev
		}
		if c.URI == s.uri {
			found = true
			if c.MIMEType == dirMIME {
				return "lists SKILL.md as a directory", ev
			}
		}
		for _, f := range s.files {
			if strings.HasPrefix(f.URI, c.URI+"/") && c.MIMEType != dirMIME {
				return fmt.Sprintf("lists the subdirectory %s (it holds %s) with mimeType %q, not %q", c.URI, f.URI, c.MIMEType, dirMIME), ev
			}
		}
	}
	if !found && !more {
		return "does not list the skill's SKILL.md among its children", ev
	}
	return "", ev
}

// skillsLimits: SEP-2640 §Limits, "Servers SHOULD NOT serve a skill that
// exceeds either limit": 512 entries in its resources, SKILL.md included,
// and 16 MiB (16,777,216 bytes) as the sum of their sizes. Every listed
// skill is counted (the listing alone tells).
func skillsLimits(ctx context.Context, e *Env) Outcome {
	skills, o := e.listSkills(ctx)
	if o != nil {
		if o.Status == report.StatusError {
			return *o
		}
		return check.Skip("skills/list gave no listing (see skills/list)")
	}
	var p problems
	counted := 0
	for _, s := range skills {
		if s.files == nil {
			continue // "dynamic", or skills/list's
		}
		counted++
		var total int64
		for _, f := range s.files {
			if n, ok := skillSize(f.Size); ok {
				total += n
			}
		}
		if len(s.files) > maxSkillEntries {
			p = append(p, fmt.Sprintf("%s: %d files, more than %d", s.uri, len(s.files), maxSkillEntries))
		}
		if total > maxSkillBytes {
			p = append(p, fmt.Sprintf("%s: %d bytes in all, more than 16 MiB (%d)", s.uri, total, maxSkillBytes))
		}
	}
	if counted == 0 {
		return check.Skip("no listed skill has a resources array of files")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d skills within 512 files and 16 MiB", counted))
	}
	return p.outcome("skills over the limits every host accepts (a host need not load them)")
}

// skillsSkillMDMIME: SEP-2640 §Resource Metadata, for each SKILL.md
// resource "mimeType SHOULD be text/markdown", read from what
// resources/read answers (skill resources need not be in resources/list).
// A mimeType with parameters (text/markdown; charset=utf-8) is the type.
func skillsSkillMDMIME(ctx context.Context, e *Env) Outcome {
	skills, o := e.listedSkills(ctx)
	if o != nil {
		return *o
	}
	var p problems
	read := 0
	for _, s := range skills {
		if s.uri == "" {
			continue
		}
		call, x, err := e.send(ctx, "resources/read", map[string]any{"uri": s.uri}, nil)
		m, o := resultMembers(call, x, err)
		if o != nil {
			if o.Status == report.StatusError {
				return *o
			}
			continue // skills/file-digest's
		}
		var contents []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
		}
		if json.Unmarshal(m["contents"], &contents) != nil || len(contents) == 0 {
			continue
		}
		read++
		mt := contents[0].MIMEType
		for _, c := range contents {
			if c.URI == s.uri {
				mt = c.MIMEType
			}
		}
		if base, _, _ := strings.Cut(mt, ";"); !strings.EqualFold(strings.TrimSpace(base), "text/markdown") {
			p = append(p, fmt.Sprintf("%s: mimeType %q", s.uri, mt))
		}
	}
	if read == 0 {
		return check.Skip("no listed skill's SKILL.md could be read (see skills/file-digest)")
	}
	if len(p) == 0 {
		return check.PassInfo(fmt.Sprintf("%d SKILL.md files read as text/markdown", read))
	}
	return p.outcome("SKILL.md files not served as text/markdown")
}
