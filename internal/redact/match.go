package redact

import "slices"

// matcher finds every occurrence of a set of byte patterns in one pass over
// the text: an Aho–Corasick automaton compiled to a DFA over byte classes
// (each byte that occurs in no pattern is class 0 and leads back to the
// start). The standard library has no multi-pattern search that reports
// positions (strings.Replacer only replaces), and a decoded text's matches
// must be mapped back to where they were written.
type matcher struct {
	class   [256]uint8
	nclass  int
	next    []int32 // state*nclass + class → state
	longest []int32 // per state: the longest pattern that ends there, 0 for none
}

// newMatcher compiles patterns (none empty); nil when there are none. A
// pattern set has at most 255 distinct bytes plus class 0, so uint8 holds
// every class.
func newMatcher(patterns [][]byte) *matcher {
	if len(patterns) == 0 {
		return nil
	}
	m := &matcher{}
	var seen [256]bool
	for _, p := range patterns {
		for _, c := range p {
			seen[c] = true
		}
	}
	m.nclass = 1
	for c := range 256 {
		if seen[c] {
			m.class[c] = uint8(m.nclass)
			m.nclass++
		}
	}
	// The trie, with -1 for a missing edge.
	m.addState()
	for _, p := range patterns {
		s := int32(0)
		for _, c := range p {
			i := int(s)*m.nclass + int(m.class[c])
			if m.next[i] < 0 {
				m.next[i] = m.addState()
			}
			s = m.next[i]
		}
		m.longest[s] = max(m.longest[s], int32(len(p)))
	}
	// Breadth first, each missing edge goes where the failure link's edge
	// goes, and each state reports the longest pattern among its suffixes.
	fail := make([]int32, len(m.longest))
	queue := make([]int32, 0, len(m.longest))
	for c := range m.nclass {
		if t := m.next[c]; t > 0 {
			queue = append(queue, t)
		} else {
			m.next[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.longest[s] = max(m.longest[s], m.longest[fail[s]])
		for c := range m.nclass {
			i := int(s)*m.nclass + c
			via := m.next[int(fail[s])*m.nclass+c]
			if t := m.next[i]; t >= 0 {
				fail[t] = via
				queue = append(queue, t)
			} else {
				m.next[i] = via
			}
		}
	}
	// Class 0 never continues a match.
	for s := range m.longest {
		m.next[s*m.nclass] = 0
	}
	return m
}

func (m *matcher) addState() int32 {
	m.next = append(m.next, slices.Repeat([]int32{-1}, m.nclass)...)
	m.longest = append(m.longest, 0)
	return int32(len(m.longest) - 1)
}

// find calls emit with the start and end of the longest match ending at
// each position of b where one ends, in order of the end. Shorter matches
// ending there lie inside it.
func (m *matcher) find(b []byte, emit func(start, end int)) {
	if m == nil {
		return
	}
	s := int32(0)
	for i, c := range b {
		s = m.next[int(s)*m.nclass+int(m.class[c])]
		if l := m.longest[s]; l > 0 {
			emit(i+1-int(l), i+1)
		}
	}
}
