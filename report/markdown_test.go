package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func TestEscapeMarkdown(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"plain", "tools/list has no ttlMs", "tools/list has no ttlMs"},
		{"html", "</details><script>x</script>", "&lt;/details&gt;&lt;script&gt;x&lt;/script&gt;"},
		{"entity", "&amp; &#64;", "&amp;amp; &amp;#" + zwj + "64;"},
		{"table", "a | b \\| c", `a \| b \\\| c`},
		{"emphasis", "**b** _i_ ~~s~~", `\*\*b\*\* \_i\_ \~\~s\~\~`},
		{"code", "`x` ```", "\\`x\\` \\`\\`\\`"},
		{"link", "[click](https://evil)", `\[click\](https\://evil)`},
		{"math", "$x$", `\$x\$`},
		{"mention", "@octocat and @org/team", "@" + zwj + "octocat and @" + zwj + "org/team"},
		{"issue", "fixes #12, not #x", "fixes #" + zwj + "12, not #x"},
		{"newlines", "a\nb\r\nc\u2028d", "a b  c d"},
		{"workflow command", "::set-output name=x::y", `\::set-output name=x::y`},
		{"workflow command after space", " \t\n::error::x", `\::error::x`},
		{"workflow command after newline", "ok\n::error::x", "ok ::error::x"},
		{"heading", "# title", `\# title`},
		{"list", "- item", `\- item`},
		{"ordered list", "12. item", `12\. item`},
		{"rule", "---", `\---`},
		{"controls", "a\x00b\x1b[31mc\u202ed", `ab\[31mcd`},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := escapeMarkdown(tt.in); got != tt.want {
				t.Errorf("escapeMarkdown(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestCodeFence(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"", "```"},
		{"no ticks", "```"},
		{"`one` ``two``", "```"},
		{"```", "````"},
		{"a ````` b ``", "``````"},
	}
	for _, tt := range tests {
		if got := codeFence(tt.in); got != tt.want {
			t.Errorf("codeFence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

var mentionRE = regexp.MustCompile(`@\w`)

// checkEscaped reports what is wrong with out, the escaping of some input.
func checkEscaped(t *testing.T, in, out string) {
	t.Helper()
	if strings.Contains(out, "<") {
		t.Errorf("escapeMarkdown(%q) = %q: raw <", in, out)
	}
	if strings.ContainsAny(out, "\n\r\u2028\u2029\u0085\v\f") {
		t.Errorf("escapeMarkdown(%q) = %q: line break", in, out)
	}
	if strings.HasPrefix(strings.TrimLeftFunc(out, unicode.IsSpace), "::") {
		t.Errorf("escapeMarkdown(%q) = %q: starts with ::", in, out)
	}
	if mentionRE.MatchString(out) {
		t.Errorf("escapeMarkdown(%q) = %q: @mention", in, out)
	}
	// Every | must follow an odd number of backslashes.
	for i := 0; i < len(out); i++ {
		if out[i] != '|' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			t.Errorf("escapeMarkdown(%q) = %q: unescaped | at %d", in, out, i)
		}
	}
}

func FuzzEscapeMarkdown(f *testing.F) {
	for _, s := range []string{
		"", "plain", "</details><script>@octocat ::set-output name=x::y</script>",
		"a | b \\| c \\\\| d", "@@user", "\n::error::x", " \u00a0::warning::x", "\x00\x1b[31m",
		"```` fence", "# 1. - + = :", "\xff\xfe", "&lt;", "\u2028::x", "x\r::y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := escapeMarkdown(s)
		checkEscaped(t, s, out)
		// Escaping is stable in size: at most a few bytes per input byte.
		if len(out) > 8*len(s)+8 {
			t.Errorf("escapeMarkdown(%q) grew to %d bytes", s, len(out))
		}
	})
}

func FuzzCodeFence(f *testing.F) {
	for _, s := range []string{"", "`", "```", "a````b", "``` ```` `"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fence := codeFence(s)
		if len(fence) < 3 || strings.Trim(fence, "`") != "" {
			t.Fatalf("codeFence(%q) = %q: not a fence", s, fence)
		}
		if strings.Contains(s, fence) {
			t.Errorf("codeFence(%q) = %q: the content can close it", s, fence)
		}
		if len(fence) > 3 && !strings.Contains(s, fence[1:]) {
			t.Errorf("codeFence(%q) = %q: longer than needed", s, fence)
		}
	})
}

// TestMarkdownHostileTool renders the summary of a server whose tool
// description carries markup, mentions, workflow commands and backtick runs,
// at its real size and grown to 1 MiB: the summary stays small, its folds
// and fences hold, and the server's text is inert outside code blocks.
func TestMarkdownHostileTool(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"hostile-tool", "hostile-tool-1mb"} {
		var b strings.Builder
		if err := WriteMarkdown(&b, loadReport(t, name)); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		if len(md) > 64<<10 {
			t.Errorf("%s: summary is %d bytes", name, len(md))
		}
		outside, inside := splitFences(t, md)
		for _, bad := range []string{"<script", "<img", "</details><", "<!-- mcp-eval", "https://evil"} {
			if strings.Contains(outside, bad) {
				t.Errorf("%s: markdown outside code blocks contains %q", name, bad)
			}
		}
		if m := mentionRE.FindString(codeSpanRE.ReplaceAllString(outside, "")); m != "" {
			t.Errorf("%s: mention %q outside code", name, m)
		}
		if open, closed := strings.Count(outside, "<details>"), strings.Count(outside, "</details>"); open != closed {
			t.Errorf("%s: %d <details> and %d </details>", name, open, closed)
		}
		for i, line := range strings.Split(md, "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), "::") {
				t.Errorf("%s: line %d starts a workflow command: %q", name, i+1, line)
			}
		}
		// The description is shown verbatim, but only inside a fence.
		if !strings.Contains(inside, "</details></details><details open><summary>@org/team") {
			t.Errorf("%s: the evidence should be shown verbatim in a code block", name)
		}
	}
}

// TestMarkdownFoldsSharedCauses: failures that got the same error answer
// (ids aside) are one finding with one evidence block; failures that read
// the same successful answer for different things stay apart; checks a
// group skips for one reason share a row.
func TestMarkdownFoldsSharedCauses(t *testing.T) {
	t.Parallel()
	errAnswer := func(id int) []byte {
		return []byte(fmt.Sprintf(`{"request":{"body":{"jsonrpc":"2.0","id":%d,"method":"server/discover"}},"response":{"message":{"jsonrpc":"2.0","id":%d,"error":{"code":-32601,"message":"Method not found"}}}}`, id, id))
	}
	okAnswer := []byte(`{"response":{"message":{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}}}`)
	hard := func(id, msg string, ev []byte) Check {
		return Check{ID: id, Layer: LayerConformance, Group: strings.Split(id, "/")[0], Level: "MUST", Hard: true, Status: StatusFail,
			Runs: 5, Passed: 0, Message: msg + " (0 of 5 runs passed)", Evidence: ev}
	}
	skip := func(id string) Check {
		return Check{ID: id, Layer: LayerConformance, Group: "headers", Level: "MUST", Hard: true, Status: StatusSkip,
			Message: "applies to Streamable HTTP only; this server speaks stdio"}
	}
	r := &Report{SchemaVersion: SchemaVersion, Checks: []Check{
		hard("discover/responds", "server/discover did not return a result: server error -32601: Method not found", errAnswer(1)),
		hard("discover/capabilities", "server/discover did not return a result: server error -32601: Method not found", errAnswer(2)),
		hard("discover/without-client-info", "without clientInfo: server/discover did not return a result: server error -32601: Method not found", errAnswer(3)),
		hard("caching/tools-list", "tools/list has no ttlMs", okAnswer),
		hard("result-type/tools-list", "tools/list has no resultType", okAnswer),
		skip("headers/missing-method"), skip("headers/name-base64"),
	}}
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "runs passed)") {
		t.Errorf("a message repeats its runs, which have a place of their own:\n%s", md)
	}
	if n := strings.Count(md, "<summary>evidence"); n != 3 {
		t.Errorf("%d evidence blocks; want 3 (one for the shared cause, one each for the two others)\n%s", n, md)
	}
	for _, want := range []string{
		"#### ❌ 3 findings, one cause: server/discover did not return a result: server error -32601: Method not found",
		"| `discover/capabilities` | **MUST** | 0/5 | the same |",
		"| `discover/without-client-info` | **MUST** | 0/5 | without clientInfo: server/discover did not return a result: server error -32601: Method not found |",
		"#### ❌ `caching/tools-list`", "#### ❌ `result-type/tools-list`",
		"| `headers/missing-method`, `headers/name-base64` | ⏭️ skip | – | applies to Streamable HTTP only; this server speaks stdio |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q\n%s", want, md)
		}
	}
}
