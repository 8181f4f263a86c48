// Package suggest finds the likely intended word for a typo, for the
// "did you mean" in error messages about config keys, golden-file keys and
// tool names.
package suggest

// Nearest returns the candidate closest to s by edit distance when it is
// close enough to be a likely typo (at most 2 edits, or a third of s for
// long words), else "".
func Nearest(s string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := Distance(s, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD >= 0 && bestD <= max(2, len([]rune(s))/3) {
		return best
	}
	return ""
}

// Distance is the Levenshtein distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
