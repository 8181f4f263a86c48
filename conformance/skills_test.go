package conformance

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSkillNameRule: the Agent Skills naming rules (1 to 64 lowercase
// letters, digits and hyphens, no hyphen first, last or twice in a row).
func TestSkillNameRule(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf-processing": true, "a": true, "1password": true, "données": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "PDF": false, "-pdf": false, "pdf-": false, "pdf--x": false, "pdf_x": false, "pdf x": false,
	} {
		if got := skillNameRule(name) == ""; got != ok {
			t.Errorf("skillNameRule(%q) = %q, want ok=%v", name, skillNameRule(name), ok)
		}
	}
}

// TestFrontmatterProblem: a SKILL.md's frontmatter is compared with the
// entry's as JSON values; YAML numbers, booleans, nested maps, lists and
// timestamps compare as JSON renders them.
func TestFrontmatterProblem(t *testing.T) {
	entry := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	md := "---\nname: x\ndescription: Does x.\nmetadata:\n  version: \"1.0\"\n  n: 3\n  on: true\n  date: 2026-01-02\n  tags: [a, b]\n---\n# X\n"
	same := `{"name":"x","description":"Does x.","metadata":{"version":"1.0","n":3,"on":true,"date":"2026-01-02","tags":["a","b"]}}`
	for _, tc := range []struct {
		md, entry, want string
	}{
		{md, same, ""},
		{"\ufeff" + strings.ReplaceAll(md, "\n", "\r\n"), same, ""},
		{md, `{"name":"x","description":"Other.","metadata":{"version":"1.0","n":3,"on":true,"date":"2026-01-02","tags":["a","b"]}}`, "frontmatter.description"},
		{md, `{"name":"x","description":"Does x.","metadata":{"version":1,"n":3,"on":true,"date":"2026-01-02","tags":["a","b"]}}`, "frontmatter.metadata.version"},
		{md, `{"name":"x","description":"Does x."}`, "frontmatter.metadata is missing"},
		{"# X\n", same, "does not begin with YAML frontmatter"},
		{"---\nname: x\n", same, "no closing line"},
		{"---\nname: x\n---\n", `{"name":"x"}`, "no description"},
		{"---\n[a\n---\n", same, "not YAML"},
	} {
		got := frontmatterProblem([]byte(tc.md), entry(tc.entry))
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("frontmatterProblem(%q, %s) = %q, want %q", tc.md, tc.entry, got, tc.want)
		}
	}
}

// TestSkillShape: each rule of an entry's members is named.
func TestSkillShape(t *testing.T) {
	const d = "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct{ entry, want string }{
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + d + `","size":3}]}`, ""},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":"dynamic"}`, ""},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."}}`, "no resources"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":"static"}`, "neither an array"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a"},"resources":"dynamic"}`, "frontmatter.description"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/x.md","digest":"` + d + `","size":3}]}`, "does not list the skill's own SKILL.md"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + d + `","size":3},{"uri":"skill://b/x.md","digest":"` + d + `","size":3}]}`, "nor a file within its directory"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/SKILL.md","digest":"sha256:ABC","size":3}]}`, "64 lowercase hex"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + d + `","size":-1}]}`, "not a byte count"},
		{`{"uri":"skill://a/SKILL.md","frontmatter":{"name":"a","description":"A."},"resources":[{"uri":"skill://a/SKILL.md","digest":"` + d + `","size":3},{"uri":"skill://a/SKILL.md","digest":"` + d + `","size":3}]}`, "listed twice"},
	} {
		got := strings.Join(skillShape("skills[0]", parseSkill(json.RawMessage(tc.entry))), "; ")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("skillShape(%s) = %q, want %q", tc.entry, got, tc.want)
		}
	}
}
