package github

import (
	"strings"
	"unicode/utf8"
)

// utf8Cost measures bytes: the job summary limit is a file size.
func utf8Cost(r rune) int { return utf8.RuneLen(r) }

// utf16Cost measures UTF-16 code units. GitHub's "65536 characters" limit on
// a comment body is not specified further; counting astral characters
// (emoji) twice can only err on the safe side.
func utf16Cost(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

func cost(s string, c func(rune) int) int {
	n := 0
	for _, r := range s {
		n += c(r)
	}
	return n
}

// truncateMarkdown returns s unchanged when it fits in limit, else a prefix
// of s cut at a line break, with any open code fence and <details> block
// closed so that the note after them renders as text, then the note. The
// renderers already keep their output under GitHub's limits; this is the
// safety net for when they do not.
func truncateMarkdown(s string, limit int, c func(rune) int, note string) string {
	if cost(s, c) <= limit {
		return s
	}
	// Room for the note, a closing fence and a few </details> tags; a
	// longer closer than that shrinks the kept part on the next pass.
	budget := limit - cost(note, c) - 256
	for budget > 0 {
		out := cutMarkdown(s, budget, c) + note
		over := cost(out, c) - limit
		if over <= 0 {
			return out
		}
		budget -= over
	}
	return note
}

// cutMarkdown keeps at most budget of s, ending at a line break, and closes
// what the kept part left open.
func cutMarkdown(s string, budget int, c func(rune) int) string {
	n, cut := 0, 0
	for i, r := range s {
		if n+c(r) > budget {
			break
		}
		n += c(r)
		cut = i + utf8.RuneLen(r)
	}
	kept := s[:cut]
	if i := strings.LastIndexByte(kept, '\n'); i > 0 {
		kept = kept[:i+1]
	} else {
		kept += "\n"
	}
	var tail strings.Builder
	fence, details := openBlocks(kept)
	if fence != "" {
		tail.WriteString(fence + "\n")
	}
	for range min(details, 8) {
		tail.WriteString("</details>\n")
	}
	return kept + tail.String()
}

// openBlocks scans Markdown for a code fence left open at the end (returning
// the fence that closes it) and the number of <details> elements opened
// outside code and not closed.
func openBlocks(s string) (fence string, details int) {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimLeft(line, " ")
		if len(line)-len(t) > 3 { // indented four or more: never a fence line
			continue
		}
		if run := fenceRun(t); run != "" {
			switch {
			case fence == "":
				fence = run
			case run[0] == fence[0] && len(run) >= len(fence) && strings.TrimSpace(t[len(run):]) == "":
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		low := strings.ToLower(line)
		details += strings.Count(low, "<details") - strings.Count(low, "</details>")
		details = max(details, 0)
	}
	return fence, details
}

// fenceRun returns the run of three or more backticks or tildes that opens
// line, or "".
func fenceRun(line string) string {
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	i := 0
	for i < len(line) && line[i] == line[0] {
		i++
	}
	if i < 3 {
		return ""
	}
	return line[:i]
}
