package schema

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// regexpEngine compiles the pattern and patternProperties regexes of one
// schema. JSON Schema regexes are ECMA-262 (2020-12 Validation §6.3.3), while
// the library uses Go's RE2 syntax by default, which has no lookaround, no
// backreferences, no \uXXXX escapes and no repetition counts above 1000.
// Servers generated from zod emit such patterns (its email regex starts
// with "(?!\.)"), so rejecting them would report a valid schema as invalid.
// The engine therefore:
//   - rewrites \uXXXX and \u{X…} escapes to Go's \x{…};
//   - accepts, without enforcing, a pattern that fails only for lack of an
//     RE2 feature, and records it for Schema.Unenforced;
//   - rejects every other syntax error, which makes the schema invalid.
//
// The library calls the engine both when checking the schema against its
// metaschema (format "regex") and when compiling pattern keywords; one
// engine lives for one Compile call.
type regexpEngine struct {
	unenforced map[string]string // pattern -> reason
	// cache holds each pattern's result: the library compiles every
	// pattern at least twice (metaschema check, then the keyword).
	cache map[string]compiled
}

type compiled struct {
	re  jsonschema.Regexp
	err error
}

func (e *regexpEngine) compile(pattern string) (jsonschema.Regexp, error) {
	if c, ok := e.cache[pattern]; ok {
		return c.re, c.err
	}
	re, err := e.compileUncached(pattern)
	if e.cache == nil {
		e.cache = map[string]compiled{}
	}
	e.cache[pattern] = compiled{re, err}
	return re, err
}

func (e *regexpEngine) compileUncached(pattern string) (jsonschema.Regexp, error) {
	r := sharedCompile(pattern)
	if r.unenforced != "" {
		if e.unenforced == nil {
			e.unenforced = map[string]string{}
		}
		e.unenforced[pattern] = r.unenforced
	}
	return r.re, r.err
}

// A compiled pattern is shared by every schema of the process that uses
// it: a big server's tools repeat a few patterns (an identifier format, a
// date) in every schema, and compiling one was a tenth of checking a
// schema. A *regexp.Regexp is safe for concurrent use. Short
// patterns only, and so many, so that the cache stays small (a few MB at
// most) whatever a server sends.
const (
	maxSharedPatterns   = 4096
	maxSharedPatternLen = 512
)

var shared struct {
	sync.Mutex
	m map[string]sharedRegexp
}

// sharedRegexp is what compiling one pattern gave: a regexp, or an error,
// and why the pattern is not enforced, if it is not.
type sharedRegexp struct {
	re         jsonschema.Regexp
	err        error
	unenforced string
}

func sharedCompile(pattern string) sharedRegexp {
	if len(pattern) > maxSharedPatternLen {
		return compilePattern(pattern)
	}
	shared.Lock()
	r, ok := shared.m[pattern]
	shared.Unlock()
	if ok {
		return r
	}
	r = compilePattern(pattern)
	shared.Lock()
	if shared.m == nil {
		shared.m = map[string]sharedRegexp{}
	}
	if len(shared.m) < maxSharedPatterns {
		shared.m[pattern] = r
	}
	shared.Unlock()
	return r
}

func compilePattern(pattern string) sharedRegexp {
	src := translateECMA(pattern)
	re, err := regexp.Compile(src)
	if err == nil {
		if src == pattern {
			return sharedRegexp{re: re}
		}
		return sharedRegexp{re: ecmaRegexp{re, pattern}}
	}
	var se *syntax.Error
	if errors.As(err, &se) && unsupportedInRE2(se.Code) {
		return sharedRegexp{re: unenforcedRegexp(pattern), unenforced: se.Error()}
	}
	return sharedRegexp{err: err}
}

func (e *regexpEngine) unenforcedList() []string {
	if len(e.unenforced) == 0 {
		return nil
	}
	out := make([]string, 0, len(e.unenforced))
	for p, reason := range e.unenforced {
		out = append(out, fmt.Sprintf("pattern %q is not enforced: Go's regexp engine rejects it (%s)", p, reason))
	}
	sort.Strings(out)
	return out
}

// unsupportedInRE2 reports whether a Go regexp syntax error code can come
// from a valid ECMA-262 pattern: (?=, (?!, (?<= and (?<! are ErrInvalidPerlOp,
// \1 is ErrInvalidEscape, {1,5000} is ErrInvalidRepeatSize, and RE2's size
// and nesting limits are ErrLarge and ErrNestingDepth. Unbalanced
// parentheses or brackets, a bad range or a dangling quantifier are invalid
// in ECMA-262 too and stay errors. ErrInvalidPerlOp and ErrInvalidEscape
// also cover a few patterns ECMA-262 rejects; those are let through
// unenforced rather than risk a false "invalid schema".
func unsupportedInRE2(code syntax.ErrorCode) bool {
	switch code {
	case syntax.ErrInvalidPerlOp, syntax.ErrInvalidEscape, syntax.ErrInvalidRepeatSize,
		syntax.ErrLarge, syntax.ErrNestingDepth:
		return true
	}
	return false
}

// ecmaRegexp is a translated regexp that reports its original source in
// validation messages.
type ecmaRegexp struct {
	*regexp.Regexp
	src string
}

func (r ecmaRegexp) String() string { return r.src }

// unenforcedRegexp matches everything.
type unenforcedRegexp string

func (r unenforcedRegexp) MatchString(string) bool { return true }
func (r unenforcedRegexp) String() string          { return string(r) }

// translateECMA rewrites the ECMA-262 escapes \uXXXX (with surrogate pairs
// joined) and \u{X…} into Go's \x{…}. Other escapes are copied as they are,
// two bytes at a time, so an escaped backslash before a "u" is left alone.
func translateECMA(s string) string {
	if !strings.Contains(s, `\u`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			sb.WriteByte(s[i])
			continue
		}
		if s[i+1] != 'u' {
			sb.WriteString(s[i : i+2])
			i++
			continue
		}
		if i+2 < len(s) && s[i+2] == '{' {
			if end := strings.IndexByte(s[i+3:], '}'); end > 0 && end <= 6 && isHex(s[i+3:i+3+end]) {
				sb.WriteString(`\x{` + s[i+3:i+3+end] + `}`)
				i += 3 + end
				continue
			}
		}
		if hi, ok := hex4(s, i+2); ok {
			if utf16.IsSurrogate(rune(hi)) && i+7 < len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
				if lo, ok := hex4(s, i+8); ok {
					if r := utf16.DecodeRune(rune(hi), rune(lo)); r != '\uFFFD' {
						fmt.Fprintf(&sb, `\x{%X}`, r)
						i += 11
						continue
					}
				}
			}
			fmt.Fprintf(&sb, `\x{%04X}`, hi)
			i += 5
			continue
		}
		sb.WriteString(s[i : i+2])
		i++
	}
	return sb.String()
}

func hex4(s string, at int) (int, bool) {
	if at+4 > len(s) || !isHex(s[at:at+4]) {
		return 0, false
	}
	n := 0
	for _, c := range s[at : at+4] {
		n = n*16 + hexVal(byte(c))
	}
	return n, true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if hexVal(s[i]) < 0 {
			return false
		}
	}
	return s != ""
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
