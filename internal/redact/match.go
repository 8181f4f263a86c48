package redact

import (
	"bytes"
	"encoding/binary"
)

// minPattern is the shortest pattern a matcher finds: each pattern is
// filtered by its first four bytes. Every spelling of a secret is at least
// MinLen bytes long.
const minPattern = 4

// matcher finds every occurrence of a set of byte patterns in one pass over
// the text. Each position's next four bytes are hashed into a 64 Ki-bit
// filter of the patterns' first four bytes; only a hit compares the
// patterns that begin so. A few dozen patterns set a few dozen bits, so
// the pass costs about a nanosecond a byte whatever the patterns, where a
// DFA over them (Aho–Corasick) walks a table too large for the cache. The
// standard library has no multi-pattern search that reports positions
// (strings.Replacer only replaces), and a decoded text's matches must be
// mapped back to where they were written.
type matcher struct {
	filter [1 << 16 / 64]uint64
	byHash map[uint32][][]byte
}

func prefixHash(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 0x9E3779B1) >> 16
}

// newMatcher compiles patterns, ignoring any shorter than minPattern; nil
// when none is left.
func newMatcher(patterns [][]byte) *matcher {
	m := &matcher{byHash: map[uint32][][]byte{}}
	for _, p := range patterns {
		if len(p) < minPattern {
			continue
		}
		h := prefixHash(p)
		m.filter[h/64] |= 1 << (h % 64)
		m.byHash[h] = append(m.byHash[h], p)
	}
	if len(m.byHash) == 0 {
		return nil
	}
	return m
}

// find calls emit with the start and end of each occurrence of each
// pattern in b, in order of the start.
func (m *matcher) find(b []byte, emit func(start, end int)) {
	if m == nil {
		return
	}
	for i := 0; i+minPattern <= len(b); i++ {
		h := prefixHash(b[i:])
		if m.filter[h/64]&(1<<(h%64)) == 0 {
			continue
		}
		for _, p := range m.byHash[h] {
			if bytes.HasPrefix(b[i:], p) {
				emit(i, i+len(p))
			}
		}
	}
}
