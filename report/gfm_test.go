package report

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// gfm renders Markdown the way GitHub does, with cmark-gfm (GitHub's own
// renderer; Debian: apt-get install cmark-gfm) and GitHub's extensions. Raw
// HTML is kept (--unsafe) so that a tag that slipped through shows up here;
// GitHub would sanitize it rather than drop it silently.
func gfm(t *testing.T, md []byte) string {
	t.Helper()
	bin, err := exec.LookPath("cmark-gfm")
	switch {
	case err != nil && os.Getenv("MCP_EVAL_REQUIRE_CMARK_GFM") != "":
		t.Fatal("cmark-gfm not installed and MCP_EVAL_REQUIRE_CMARK_GFM is set (.ci/run): apt-get install cmark-gfm")
	case err != nil:
		t.Skip("cmark-gfm not installed (apt-get install cmark-gfm): summary.md is not rendered as GitHub does")
	}
	cmd := exec.Command(bin, "--unsafe", "--extension", "table", "--extension", "autolink",
		"--extension", "strikethrough", "--extension", "tagfilter", "--extension", "tasklist")
	cmd.Stdin = bytes.NewReader(md)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cmark-gfm: %v", err)
	}
	return string(out)
}

var (
	preBlock  = regexp.MustCompile(`(?s)<pre[^>]*>.*?</pre>`)
	anchor    = regexp.MustCompile(`<a href="([^"]*)"`)
	escapeLit = regexp.MustCompile(`\\[\\` + "`" + `*_\[\]|~$#:.+=()<>!-]`)
	heading4  = regexp.MustCompile(`<h4>([^<(]+) \(([^)]*)\)</h4>`)
)

// TestSummaryAsGitHubRendersIt renders every summary.md fixture with a real
// GFM renderer and checks what a reader sees: spec links are links, server
// links are not, no escape is shown twice, skipped groups read as skipped,
// no raw tag of the input survives, and the size stays under the job
// summary's 1 MiB.
func TestSummaryAsGitHubRendersIt(t *testing.T) {
	for _, name := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			r := loadReport(t, name)
			md := render(t, WriteMarkdown, r)
			if len(md) > 1<<20 {
				t.Errorf("summary.md is %d bytes, over the job summary's 1 MiB", len(md))
			}
			html := gfm(t, md)
			text := preBlock.ReplaceAllString(html, "")

			// Every spec reference that is a URL is a clickable link; no
			// server-chosen URL is.
			for _, c := range r.Checks {
				if strings.HasPrefix(c.SpecRef, "https://") && (c.Status == StatusFail || c.Status == StatusError) &&
					!strings.Contains(html, `<a href="`+c.SpecRef+`"`) {
					t.Errorf("spec link %s is not clickable", c.SpecRef)
				}
			}
			for _, m := range anchor.FindAllStringSubmatch(html, -1) {
				if !specURL.MatchString(m[1]) || strings.Contains(m[1], "evil") {
					t.Errorf("server text became a link: %s", m[1])
				}
			}
			// A backslash escape that shows is text escaped twice (or an
			// escape inside a code span, where Markdown does not unescape).
			if m := escapeLit.FindAllString(text, 5); len(m) > 0 {
				t.Errorf("escapes shown as text: %q", m)
			}
			for _, code := range regexp.MustCompile(`<code>([^<]*)</code>`).FindAllStringSubmatch(text, -1) {
				if strings.Contains(code[1], `\`) {
					t.Errorf("code span %q carries a backslash escape", code[1])
				}
			}
			// Raw HTML from the input never survives: only our own
			// details/summary tags, balanced.
			for _, tag := range []string{"<script", "<img", "<iframe", "<details open"} {
				if strings.Contains(html, tag) {
					t.Errorf("rendered summary contains %s", tag)
				}
			}
			if o, c := strings.Count(html, "<details>"), strings.Count(html, "</details>"); o != c {
				t.Errorf("%d <details> but %d </details>", o, c)
			}
			// Group headings: a group whose checks all skipped says so.
			groups := map[string][]Check{}
			for _, c := range r.Checks {
				groups[groupName(c)] = append(groups[groupName(c)], c)
			}
			for _, h := range heading4.FindAllStringSubmatch(text, -1) {
				cs, ok := groups[strings.TrimSpace(h[1])]
				if !ok {
					continue
				}
				skipped := 0
				for _, c := range cs {
					if c.Status == StatusSkip {
						skipped++
					}
				}
				if skipped == len(cs) && !strings.Contains(h[2], "skipped") {
					t.Errorf("group %s skipped entirely reads %q", h[1], h[2])
				}
				if strings.Contains(h[2], "0/") && skipped == len(cs) {
					t.Errorf("group %s reads %q", h[1], h[2])
				}
			}
		})
	}
}

// TestCommentWithinGitHubLimit: the sticky comment stays under GitHub's
// 65 536 characters and renders with balanced details, even for 1 MiB of
// hostile text.
func TestCommentWithinGitHubLimit(t *testing.T) {
	for _, name := range inputs(t) {
		t.Run(name, func(t *testing.T) {
			r := loadReport(t, name)
			body := render(t, func(w io.Writer, r *Report) error { return WriteComment(w, r, CommentOptions{}) }, r)
			if n := len([]rune(string(body))); n > 65536 {
				t.Errorf("comment is %d characters, over 65 536", n)
			}
			html := gfm(t, body)
			if o, c := strings.Count(html, "<details>"), strings.Count(html, "</details>"); o != c {
				t.Errorf("%d <details> but %d </details>", o, c)
			}
		})
	}
}
