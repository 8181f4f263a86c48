package redact

import (
	"slices"
)

// A secret may reach a JSON output in pieces: a server that streams it over
// two notifications/message events of one answer (half the token in each
// data member), a model that writes it over two deltas. Each piece is no
// spelling of the secret, but the report holds them side by side, as the
// same member of adjacent objects, and a reader joins them. So the string
// values of a JSON text that sit at the same path (the member names from
// the root, each array element alike: checks[].evidence.notifications[].
// message.params.data) are read as one stream, in order, and a generated
// spelling found across two or more of them is masked in each, and each
// piece of four bytes or more wherever else the text quotes it (a check's
// message quoting the first event).

// valueRef is one string value of a stream: its literal in the text, and
// where its decoded content sits in the stream.
type valueRef struct {
	lit  span // the literal, quotes included
	at   int  // where its share of the stream starts
	n    int  // how many bytes of the stream are its
	size int  // the length of its decoded content
	// head is how much of the content the stream holds before a gap: a
	// long value keeps only its ends (where a piece of a spelling may
	// be), with a NUL between.
	head int
}

// splitPieces finds the spellings of set that run across adjacent values
// of one path of the JSON text b. It returns, by literal start, the
// stretches of each literal's decoded content to mask, and the pieces.
func (set *spellingSet) splitPieces(b []byte) (map[int][]span, [][]byte) {
	streams := valueStreams(b)
	if len(streams) == 0 {
		return nil, nil
	}
	edge := set.maxLen // a spelling found across values lies within this of a boundary
	var at map[int][]span
	var pieces [][]byte
	var stream, scratch []byte
	var refs []valueRef
	for _, lits := range streams {
		need := 0 // at most: the content is no longer than the literal
		for _, l := range lits {
			need += min(l.end-l.start-2, 2*edge+1)
		}
		if cap(stream) < need {
			stream = make([]byte, 0, need)
		}
		if cap(refs) < len(lits) {
			refs = make([]valueRef, 0, len(lits))
		}
		stream, refs = stream[:0], refs[:0]
		for _, l := range lits {
			scratch = appendContent(scratch[:0], b, l)
			c := scratch
			ref := valueRef{lit: l, at: len(stream), size: len(c), head: len(c)}
			if len(c) > 2*edge {
				ref.head = edge
				stream = append(append(append(stream, c[:edge]...), 0), c[len(c)-edge:]...)
			} else {
				stream = append(stream, c...)
			}
			ref.n = len(stream) - ref.at
			refs = append(refs, ref)
		}
		set.m.find(stream, func(s, e int) {
			first := refAt(refs, s)
			last := refAt(refs, e-1)
			if first == last {
				return // inside one value: the search of the text finds it
			}
			for k := first; k <= last; k++ {
				ref := refs[k]
				from, to := max(s, ref.at)-ref.at, min(e, ref.at+ref.n)-ref.at
				ps, pe := ref.offset(from), ref.offset(to-1)+1
				if at == nil {
					at = map[int][]span{}
				}
				at[ref.lit.start] = append(at[ref.lit.start], span{ps, pe})
				p := appendContent(nil, b, ref.lit)[ps:pe]
				if len(p) >= minClipped && !slices.ContainsFunc(pieces, func(q []byte) bool { return string(q) == string(p) }) {
					pieces = append(pieces, p)
				}
			}
		})
	}
	return at, pieces
}

// offset maps a byte of the stream's share of ref to its content.
func (r valueRef) offset(i int) int {
	if i < r.head {
		return i
	}
	return r.size - (r.n - i)
}

// refAt returns the index of the value whose share of the stream holds p.
func refAt(refs []valueRef, p int) int {
	k, _ := slices.BinarySearchFunc(refs, p, func(r valueRef, p int) int {
		if r.at+r.n <= p {
			return -1
		}
		if r.at > p {
			return 1
		}
		return 0
	})
	return k
}

// appendContent appends the decoded content of the string literal l of b
// (RFC 8259 §7: the two-character escapes and \uXXXX, a surrogate pair as
// one character), as encoding/json decodes it, without its checks: b is
// a report this program wrote, and a bad escape is kept as it is.
func appendContent(out, b []byte, l span) []byte {
	inner := b[l.start+1 : l.end-1]
	for len(inner) > 0 {
		i := slices.Index(inner, '\\')
		if i < 0 {
			return append(out, inner...)
		}
		out = append(out, inner[:i]...)
		inner = inner[i:]
		if len(inner) < 2 {
			return append(out, inner...)
		}
		n, dec := decodeBackslash(inner, 0, out)
		if n == 0 {
			out = append(out, inner[0])
			n = 1
		} else {
			out = dec
		}
		inner = inner[n:]
	}
	return out
}

// valueStreams groups the string values (not the member names) of the JSON
// text b by their path, keeping the paths that hold two values or more,
// each in the order written. Text that is not JSON gives what its
// brackets and quotes say.
func valueStreams(b []byte) [][]span {
	type frame struct {
		obj       bool
		path, key uint64
		wantKey   bool
	}
	stack := []frame{{}}
	byPath := map[uint64]int{}
	var streams [][]span
	valuePath := func() uint64 {
		top := stack[len(stack)-1]
		if top.obj {
			return mix(top.path, top.key)
		}
		return top.path
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{':
			stack = append(stack, frame{obj: true, path: valuePath(), wantKey: true})
		case '[':
			stack = append(stack, frame{path: mix(valuePath(), 1)})
		case '}', ']':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		case ':':
			stack[len(stack)-1].wantKey = false
		case ',':
			if top := &stack[len(stack)-1]; top.obj {
				top.wantKey = true
			}
		case '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(b) {
				return streams
			}
			lit := span{i, j + 1}
			if top := &stack[len(stack)-1]; top.obj && top.wantKey {
				top.key = hashBytes(b[i+1 : j])
			} else {
				p := valuePath()
				if k, ok := byPath[p]; ok {
					streams[k] = append(streams[k], lit)
				} else {
					byPath[p] = len(streams)
					streams = append(streams, []span{lit})
				}
			}
			i = j
		}
	}
	out := streams[:0]
	for _, s := range streams {
		if len(s) > 1 {
			out = append(out, s)
		}
	}
	return out
}

func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return h
}

func mix(path, key uint64) uint64 { return (path^0x9E3779B97F4A7C15)*1099511628211 ^ key }
