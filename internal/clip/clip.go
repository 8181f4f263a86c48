// Package clip shortens text that a message, a piece of evidence or a
// comment quotes, never splitting a UTF-8 sequence and always marking the
// cut with "…". It imports only the standard library, so the pure packages
// (report, gate) may use it.
package clip

import "unicode/utf8"

// Ellipsis marks a cut.
const Ellipsis = "…"

// Runes returns s when it has at most n runes, else its first n runes and
// Ellipsis.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if n == 0 {
			i = j
			break
		}
		n--
	}
	return s[:i] + Ellipsis
}

// Prefix returns the longest prefix of s of at most n bytes that ends on a
// rune boundary, and whether it is shorter than s.
func Prefix(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Bytes returns s when it has at most n bytes, else Prefix(s, n) and
// Ellipsis.
func Bytes(s string, n int) string {
	p, cut := Prefix(s, n)
	if !cut {
		return s
	}
	return p + Ellipsis
}

// Within is Bytes for a hard limit: the result, Ellipsis included, has at
// most n bytes (for fields such as a GitHub comment or annotation that
// refuse longer text).
func Within(s string, n int) string {
	if len(s) <= n {
		return s
	}
	p, _ := Prefix(s, n-len(Ellipsis))
	return p + Ellipsis
}

// BytesOf is Bytes for a byte slice: only the bytes it may keep are made
// a string, so a 9 MB answer quoted in 4 000 bytes is never copied whole.
func BytesOf(b []byte, n int) string {
	if len(b) > n {
		b = b[:max(n, 0)+1] // Prefix reads the byte at n to find a rune start
	}
	return Bytes(string(b), n)
}
