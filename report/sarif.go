package report

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcp-eval/mcp-eval/internal/clip"
)

// SARIF constants: the schema GitHub code scanning and editors recognise.
const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	sarifInfoURI = "https://github.com/mcp-eval/mcp-eval"
)

// serverArtifactFallback is the artifact that stands for a server whose
// target gives no usable reference (no target at all).
const serverArtifactFallback = "mcp-server"

// Limits that keep results.sarif small and readable whatever the server
// sent (GitHub caps an upload at 10 MB gzipped).
const (
	sarifMessageMax = 2000 // runes of a result message
	sarifTitleMax   = 500  // runes of a rule description
	sarifNameMax    = 200  // runes of a tool name or server target
	sarifToolsMax   = 10   // logical locations per result
)

// SARIFOptions controls WriteSARIFWith.
type SARIFOptions struct {
	// ArtifactURI, when it is a relative path inside the repository,
	// replaces the server's own artifact (sarifServerURI) for the results
	// that have no file of their own.
	ArtifactURI string
}

// WriteSARIF writes results.sarif with the default options; see
// WriteSARIFWith.
func WriteSARIF(w io.Writer, r *Report) error {
	return WriteSARIFWith(w, r, SARIFOptions{})
}

// WriteSARIFWith writes results.sarif: a SARIF 2.1.0 log with one run whose
// tool.driver is mcp-eval, one rule per check in the report (its title,
// spec link and default level: error for hard checks, warning otherwise),
// and one result per conformance or resilience check that failed or
// errored, at the level the run judged it (error when it fails the run,
// warning otherwise, a waived failure included).
//
// Failed golden cases (Layer 1, and Layer 2's fault and injection
// variants) are results too, of a rule per case id ("case/<id>").
//
// Location: each result names what it is about as a logical location (the
// tool when the check's evidence names one, else the server target; the
// case). GitHub code scanning also rejects the whole upload when any result
// lacks physicalLocation.artifactLocation.uri ("locationFromSarifResult:
// expected at least one location"; the SARIF validator's GitHub rule
// GH1001), so every result points at a file where one is known: a waived
// failure at its waiver's line, a case at its line in the golden file. A
// check, which has no source line, points at the server itself
// (sarifServerURI): code scanning refuses an absolute URI of any scheme but
// the checkout's ("SARIF URI scheme \"https\" did not match the checkout
// URI scheme \"file\""), so the server's URL is written as a relative
// reference, host and path; a path that is not in the repository is
// accepted and shown without a preview.
//
// Each result carries partialFingerprints, a hash of the rule id, the tool
// or target, and the message with its numbers and hex strings removed, so
// that repeated runs update one alert instead of opening new ones. Messages
// are plain text: control and bidi characters are dropped, long text is
// cut, and square brackets are escaped so that server text cannot form an
// embedded link; encoding/json keeps the file valid.
func WriteSARIFWith(w io.Writer, r *Report, o SARIFOptions) error {
	r = normalized(r)
	at := newSarifPlaces(r, o)
	j := newJudge(r)
	driver := sarifDriver{Name: "mcp-eval", Version: plainText(r.Tool.Version, 100), InformationURI: sarifInfoURI, Rules: []sarifRule{}}
	ruleIndex := map[string]int{}
	results := []sarifResult{}
	known := make([]string, 0, len(r.Surface.Tools))
	for _, t := range r.Surface.Tools {
		if t.Name != "" {
			known = append(known, t.Name)
		}
	}
	for _, c := range r.Checks {
		if c.Layer == LayerBehavior || c.Layer == LayerTelemetry {
			continue
		}
		if _, ok := ruleIndex[c.ID]; !ok {
			ruleIndex[c.ID] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sarifRuleOf(c))
		}
		oc := j.check(c)
		if oc != outFail && oc != outError && oc != outWarn && oc != outSoftError {
			continue
		}
		level := "error"
		if oc == outWarn || oc == outSoftError {
			level = "warning" // SARIF's level is the finding's weight, which a soft check's is
		}
		tools := evidenceTools(c.Evidence, known)
		logical := make([]sarifLogical, 0, len(tools)+1)
		for _, t := range tools {
			logical = append(logical, sarifLogical{Name: t, FullyQualifiedName: "tools/" + t, Kind: "function"})
		}
		subject := strings.Join(tools, "\x00")
		if len(tools) == 0 {
			target := plainText(r.Server.Target, sarifNameMax)
			if target == "" {
				target = "server"
			}
			logical = append(logical, sarifLogical{Name: target, Kind: "module"})
			subject = stripVolatile(target)
		}
		res := sarifResult{
			RuleID:    c.ID,
			RuleIndex: ruleIndex[c.ID],
			Level:     level,
			Message:   sarifText{Text: sarifMessage(c, j)},
			Locations: []sarifLocation{{
				PhysicalLocation: at.of(c.ID, "", 0),
				LogicalLocations: logical,
			}},
			Properties: sarifResultProps{Status: c.Status, Hard: c.Hard, Group: plainText(groupName(c), 100), Runs: c.Runs, Passed: c.Passed},
		}
		fp := sarifFingerprint(c.ID, subject, c.Message)
		res.PartialFingerprints = map[string]string{
			// upload-sarif computes primaryLocationLineHash from line 1 of
			// the artifact when it is missing, which would tie the alert to
			// that line's text; ours depends only on the finding.
			"primaryLocationLineHash": fp[:16] + ":1",
			"mcpEvalFinding/v1":       fp,
		}
		results = append(results, res)
	}
	for _, c := range r.Cases {
		oc := j.kase(c)
		if oc != outFail && oc != outError && oc != outWarn {
			continue
		}
		rid := "case/" + c.ID
		if _, ok := ruleIndex[rid]; !ok {
			ruleIndex[rid] = len(driver.Rules)
			driver.Rules = append(driver.Rules, sarifCaseRule(rid, c))
		}
		level := "error"
		if oc == outWarn {
			level = "warning"
		}
		model := plainText(c.Model, sarifNameMax)
		fp := sarifFingerprint(rid, model, "")
		results = append(results, sarifResult{
			RuleID: rid, RuleIndex: ruleIndex[rid], Level: level,
			Message: sarifText{Text: sarifCaseMessage(c, j)},
			Locations: []sarifLocation{{
				PhysicalLocation: at.of(c.Key(), c.File, c.Line),
				LogicalLocations: []sarifLogical{{Name: plainText(c.ID, sarifNameMax), FullyQualifiedName: plainText(rid+"@"+c.Model, sarifNameMax), Kind: "object"}},
			}},
			PartialFingerprints: map[string]string{"primaryLocationLineHash": fp[:16] + ":1", "mcpEvalFinding/v1": fp},
			Properties:          sarifResultProps{Status: c.Status, Hard: c.Hard(), Group: "cases", Model: model, Runs: c.Runs, Passed: c.Passed},
		})
	}
	log := sarifLog{
		Schema:  sarifSchema,
		Version: sarifVersion,
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name,omitempty"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	HelpURI              string         `json:"helpUri,omitempty"`
	Help                 sarifText      `json:"help"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           sarifRuleProps `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags      []string `json:"tags"`
	Precision string   `json:"precision"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          sarifResultProps  `json:"properties"`
}

type sarifResultProps struct {
	Status Status `json:"status"`
	Hard   bool   `json:"hard"`
	Group  string `json:"group"`
	Model  string `json:"model,omitempty"`
	Runs   int    `json:"runs"`
	Passed int    `json:"passed"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName,omitempty"`
	Kind               string `json:"kind"`
}

// sarifRuleOf describes a check as a rule: name is the id in Pascal case,
// help says what the check asks and where the spec says so (GitHub's
// ingestion rules want help on every rule), and the spec reference is also
// helpUri when it is an absolute http(s) URL.
func sarifRuleOf(c Check) sarifRule {
	title := plainText(c.Title, sarifTitleMax)
	if title == "" {
		title = plainText(c.ID, sarifTitleMax)
	}
	kind := "A SHOULD-level check; a failure is a warning unless the run is --strict."
	level := "warning"
	if c.Hard {
		kind, level = "A hard check: a failure fails the run unless a waiver accepts it.", "error"
	} else if c.Level == LevelMust {
		kind = "A MUST-level check outside the seven assertion groups; a failure is a warning unless the run is --strict."
	}
	help := title + ". " + kind
	if ref := plainText(c.SpecRef, sarifTitleMax); ref != "" {
		help += " Spec: " + ref
	}
	rule := sarifRule{
		ID:                   c.ID,
		Name:                 pascalName(c.ID),
		Help:                 sarifText{Text: help},
		ShortDescription:     sarifText{Text: title},
		FullDescription:      sarifText{Text: title + ". " + kind},
		DefaultConfiguration: sarifConfig{Level: level},
		Properties:           sarifRuleProps{Tags: []string{"mcp"}, Precision: "very-high"},
	}
	for _, tag := range []string{c.Layer, groupName(c)} {
		if tag = plainText(tag, 50); tag != "" && !slices.Contains(rule.Properties.Tags, tag) {
			rule.Properties.Tags = append(rule.Properties.Tags, tag)
		}
	}
	rule.HelpURI = httpURL(c.SpecRef)
	return rule
}

// pascalName turns a check id into a SARIF rule name:
// "caching/tools-list" is "CachingToolsList". Only ASCII letters and digits
// are kept; it is "" when none are.
func pascalName(id string) string {
	var b strings.Builder
	up := true
	for i := 0; i < len(id) && b.Len() < 100; i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z':
			if up {
				c -= 'a' - 'A'
			}
			b.WriteByte(c)
			up = false
		case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			b.WriteByte(c)
			up = false
		default:
			up = true
		}
	}
	return b.String()
}

// sarifMessage is a result's text: the check's message (its title when it
// has none), what kind of failure it is, and the runs behind it, said once.
func sarifMessage(c Check, j judge) string {
	msg := bareMessage(c)
	if msg == "" {
		msg = c.Title
	}
	if msg == "" {
		msg = "the check failed"
	}
	msg = linkSafe(plainText(msg, sarifMessageMax))
	if c.Status == StatusError {
		msg = "The check could not complete: " + msg
	}
	if c.Runs > 1 {
		msg += " (" + strconv.Itoa(c.Passed) + " of " + strconv.Itoa(c.Runs) + " runs passed)"
	}
	if reason, ok := j.waiver(c.ID); ok {
		msg += " (waived: " + linkSafe(plainText(orDash(reason), sarifTitleMax)) + ")"
	}
	return msg
}

// sarifCaseRule describes the rule of one golden case.
func sarifCaseRule(id string, c Case) sarifRule {
	name := plainText(c.ID, sarifTitleMax)
	title := "The golden case " + name + " reaches its floor"
	kind := "A golden case: on each model it must pass at least its floor of runs (hard cases every run, soft ones 80% unless the golden file says otherwise); a failure fails the run unless a waiver accepts it."
	return sarifRule{
		ID: plainText(id, sarifTitleMax), Name: pascalName(id),
		ShortDescription:     sarifText{Text: title},
		FullDescription:      sarifText{Text: title + ". " + kind},
		Help:                 sarifText{Text: title + ". " + kind + " The transcripts of its failed runs are in the report's transcripts folder."},
		DefaultConfiguration: sarifConfig{Level: "error"},
		Properties:           sarifRuleProps{Tags: []string{"mcp", "cases"}, Precision: "medium"},
	}
}

// sarifCaseMessage is a failed case's text: the model, the runs against
// the floor, and the first reason.
func sarifCaseMessage(c Case, j judge) string {
	msg := fmt.Sprintf("%s on %s passed %d of %d runs (%s), below its floor of %s", c.ID, c.Model, c.Passed, c.Runs, percent(c.PassRate), percent(c.FloorOrDefault()))
	if d := c.Decision; d != nil && d.Why != "" {
		msg = fmt.Sprintf("%s on %s %s", c.ID, c.Model, d.Why)
	}
	if c.AllErrored() {
		msg = fmt.Sprintf("%s on %s errored on all %d runs", c.ID, c.Model, c.Runs)
	}
	switch {
	case len(c.Failures) > 0:
		msg += ": " + c.Failures[0]
	case len(c.Errors) > 0:
		msg += ": " + c.Errors[0]
	}
	msg = linkSafe(plainText(msg, sarifMessageMax))
	if reason, ok := j.waiver(c.Key()); ok {
		msg += " (waived: " + linkSafe(plainText(orDash(reason), sarifTitleMax)) + ")"
	}
	return msg
}

// sarifPlaces says where each result points (see WriteSARIFWith).
type sarifPlaces struct {
	server  string
	waivers map[string]GateItem // waived items by key
}

func newSarifPlaces(r *Report, o SARIFOptions) sarifPlaces {
	p := sarifPlaces{server: cmp.Or(sarifArtifactURI(o.ArtifactURI), sarifServerURI(r.Server.Target)), waivers: map[string]GateItem{}}
	if g := r.Gate; g != nil {
		for _, list := range [][]GateItem{g.Waived, g.Regressions, g.StillFailing, g.New} {
			for _, it := range list {
				if _, seen := p.waivers[it.Key()]; it.Waived && it.WaiverFile != "" && !seen {
					p.waivers[it.Key()] = it
				}
			}
		}
	}
	return p
}

// of is the physical location of the item key (a check id or a case key),
// defined at file:line when known: its waiver, else that file, else the
// server.
func (p sarifPlaces) of(key, file string, line int) sarifPhysical {
	if it, ok := p.waivers[key]; ok {
		if uri := sarifArtifactURI(it.WaiverFile); uri != "" {
			return sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}, Region: sarifRegion{StartLine: max(it.WaiverLine, 1)}}
		}
	}
	if uri := sarifArtifactURI(file); uri != "" {
		return sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}, Region: sarifRegion{StartLine: max(line, 1)}}
	}
	return sarifPhysical{ArtifactLocation: sarifArtifact{URI: p.server}, Region: sarifRegion{StartLine: 1}}
}

// sarifServerURI is the artifact that stands for the server under test: a
// relative reference, since code scanning refuses other schemes. An HTTP
// server is its host and path ("127.0.0.1%3A8080/mcp": the colon of a port
// is encoded, as the first segment of a relative reference may not hold
// one); a stdio server is the first argument of its command that is a
// relative path (its entry point, "build/index.js", which code scanning
// can then show), else its command line as one path segment.
func sarifServerURI(target string) string {
	if u, err := url.Parse(target); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return percentPath(strings.TrimSuffix(u.Host+"/"+strings.TrimPrefix(path.Clean("/"+u.Path), "/"), "/"))
	}
	words := strings.Fields(target)
	for _, w := range words {
		if strings.HasPrefix(w, "-") || !strings.ContainsAny(w, "/.") {
			continue
		}
		if uri := sarifArtifactURI(w); uri != "" {
			return uri
		}
	}
	// The whole command as one segment: its slashes encoded too, so that
	// an absolute program path is no absolute reference.
	return cmp.Or(strings.ReplaceAll(percentPath(strings.Join(words, " ")), "/", "%2F"), serverArtifactFallback)
}

// evidenceTools returns the tool names a check's evidence names, sorted,
// deduplicated and cut to size: the values of "tool", "toolName" and
// "tools" (a string or a list of strings), and the known tool (one of the
// server's surface) that starts a line of "problems", the per-tool findings
// the conformance checks list as "name: what is wrong".
func evidenceTools(raw json.RawMessage, known []string) []string {
	var ev map[string]json.RawMessage
	if json.Unmarshal(raw, &ev) != nil {
		return nil
	}
	var names []string
	var problems []string
	if json.Unmarshal(ev["problems"], &problems) == nil {
		for _, p := range problems {
			best := ""
			for _, k := range known {
				if len(k) > len(best) && len(p) > len(k) && strings.HasPrefix(p, k) && (p[len(k)] == ':' || p[len(k)] == ' ') {
					best = k
				}
			}
			if best != "" {
				names = append(names, best)
			}
		}
	}
	for _, k := range []string{"tool", "toolName", "tools"} {
		v, ok := ev[k]
		if !ok {
			continue
		}
		var one string
		var many []string
		switch {
		case json.Unmarshal(v, &one) == nil:
			names = append(names, one)
		case json.Unmarshal(v, &many) == nil:
			names = append(names, many...)
		}
	}
	var out []string
	for _, n := range names {
		if n = plainText(n, sarifNameMax); n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > sarifToolsMax {
		out = out[:sarifToolsMax]
	}
	return out
}

// volatile matches what changes between runs of the same finding: numbers
// (counts, ports, durations, request ids) and long hex strings (hashes).
var volatile = regexp.MustCompile(`[0-9a-fA-F]*[0-9][0-9a-fA-F]*|[0-9a-fA-F]{8,}`)

// stripVolatile lowercases s, drops its volatile parts and folds white
// space, for fingerprints.
func stripVolatile(s string) string {
	s = volatile.ReplaceAllString(s, "#")
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// sarifFingerprint hashes what identifies a finding across runs.
func sarifFingerprint(ruleID, subject, message string) string {
	msg, _ := clip.Prefix(message, 4096)
	msg = stripVolatile(msg)
	sum := sha256.Sum256([]byte(ruleID + "\x00" + subject + "\x00" + msg))
	return hex.EncodeToString(sum[:])
}

// plainText makes untrusted text fit for a SARIF text field: invalid UTF-8
// becomes U+FFFD, control characters other than newline and tab and the
// bidi controls are dropped, CRLF becomes LF, the ends are trimmed, and the
// result is cut to max runes, ending in "…".
func plainText(s string, max int) string {
	return strings.TrimSpace(rewriteRunes(s, max, func(r rune, rest string) string {
		switch {
		case r == '\r' && strings.HasPrefix(rest, "\n"):
			return ""
		case r == '\r':
			return "\n"
		case r == '\n' || r == '\t':
		case unicode.IsControl(r) || isBidiControl(r) || r == '\u2028' || r == '\u2029':
			return ""
		}
		return string(r)
	}))
}

// linkSafe escapes '\', '[' and ']' with a backslash: in a SARIF message
// "[text](target)" is an embedded link (SARIF 2.1.0 §3.11.6), and text from
// the server must not become one; a consumer shows the characters as they
// were.
func linkSafe(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// httpURL returns s as an absolute http(s) URL, or "".
func httpURL(s string) string {
	if s == "" || len(s) > 2048 {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// sarifArtifactURI turns a path into a repository-relative URI reference:
// slashes for backslashes, cleaned (no "./"), and every byte outside the
// unreserved set and "/" percent-encoded (so that a ':' cannot read as a
// scheme nor a space make the URI invalid). A path that is empty, absolute
// (a leading slash, a drive letter, a URL) or leaves the repository gives
// "".
func sarifArtifactURI(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, ":") {
		return ""
	}
	p = path.Clean(p)
	if p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return percentPath(p)
}

// percentPath percent-encodes every byte of p outside the unreserved set
// and "/", dropping control characters first.
func percentPath(p string) string {
	p = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, p)
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '.', c == '_', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
		}
	}
	return b.String()
}
