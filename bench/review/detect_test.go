package review

// The secrets oracle: the planted secrets, and a detector of its own (not
// the redactor under review) that finds one in a sink however it was
// spelled: raw, base64 and base32 at every alignment inside a longer blob,
// hex with or without separators, after undoing the escapes a JSON, HTML,
// URL, quoted-printable or shell encoder adds, line breaks and invisible
// characters.

import (
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/redact/redacttest"
)

func rnd(n int) string {
	const a = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, n)
	for i := range b {
		b[i] = a[rand.IntN(len(a))]
	}
	return string(b)
}

// The secrets of a review run: each names its source, so that a leak says
// which one got out.
var (
	hdrSecret    = "R27hdr" + rnd(26)               // --header "X-Api-Key: …"
	bearerSecret = "R27brr" + rnd(26)               // --header "Authorization: Bearer $R27_BEARER"
	apiKey       = "sk-R27key" + rnd(26)            // OPENAI_API_KEY
	clientSecret = "R27cls" + rnd(26)               // --oauth-client-secret '$R27_CLIENT_SECRET'
	svcSecret    = "R27/svc+<&>" + rnd(20) + `"x'=` // --secrets R27_SVC: characters encoders change
)

var secretNames = map[string]string{}

func init() {
	secretNames[hdrSecret] = "--header X-Api-Key"
	secretNames[bearerSecret] = "Authorization: Bearer $R27_BEARER"
	secretNames[apiKey] = "OPENAI_API_KEY"
	secretNames[clientSecret] = "the OAuth client secret"
	secretNames[svcSecret] = "--secrets R27_SVC"
	for s, name := range secretNames {
		detectors = append(detectors, formsOf(s, name)...)
	}
}

// form is a spelling of a secret to look for in one view of a sink.
type form struct {
	secret, how string
	text        []byte
	fold        bool // case-insensitive (hex, base32)
	alnum       bool // look in the view with only letters and digits
}

var detectors []form

// inner returns the characters of enc(pad+s) that depend on s alone: with
// k bytes before it, an encoding of bits per character starts with the
// characters that mix in the pad's bits and ends with one that mixes in
// what follows.
func inner(encode func([]byte) string, bits, k int, s string) string {
	e := encode(append(bytes.Repeat([]byte{0}, k), s...))
	from := (8*k + bits - 1) / bits
	to := 8 * (k + len(s)) / bits
	return e[from:to]
}

func formsOf(s, name string) []form {
	var fs []form
	add := func(how, text string, fold, alnum bool) {
		if len(text) >= 12 {
			fs = append(fs, form{secret: name, how: how, text: []byte(text), fold: fold, alnum: alnum})
		}
	}
	add("raw", s, false, false)
	add("letters and digits of it", onlyAlnum(s), false, true)
	for k := 0; k < 3; k++ {
		std := inner(base64.StdEncoding.EncodeToString, 6, k, s)
		add(fmt.Sprintf("base64 at alignment %d", k), std, false, false)
		add(fmt.Sprintf("base64 at alignment %d, joined", k), onlyAlnum(std), false, true)
		url := inner(base64.URLEncoding.EncodeToString, 6, k, s)
		add(fmt.Sprintf("base64url at alignment %d", k), url, false, false)
	}
	for k := 0; k < 5; k++ {
		add(fmt.Sprintf("base32 at alignment %d", k), inner(base32.StdEncoding.EncodeToString, 5, k, s), true, true)
		add(fmt.Sprintf("base32hex at alignment %d", k), inner(base32.HexEncoding.EncodeToString, 5, k, s), true, true)
	}
	add("hex", hex.EncodeToString([]byte(s)), true, true)
	return fs
}

func onlyAlnum(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteByte(c)
		}
	}
	return b.String()
}

var (
	reU4       = regexp.MustCompile(`\\+u([0-9a-fA-F]{4})`)
	reUBrace   = regexp.MustCompile(`\\+u\{([0-9a-fA-F]{1,6})\}`)
	reX2       = regexp.MustCompile(`\\+x([0-9a-fA-F]{2})`)
	rePct      = regexp.MustCompile(`%([0-9a-fA-F]{2})`)
	reQP       = regexp.MustCompile(`=([0-9A-F]{2})`)
	reQPSoft   = regexp.MustCompile(`=\r?\n`)
	reDec      = regexp.MustCompile(`&#([0-9]{1,7});?`)
	reHexRef   = regexp.MustCompile(`&#[xX]([0-9a-fA-F]{1,6});?`)
	reNamed    = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&#39;", "'", "&sol;", "/", "&plus;", "+", "&equals;", "=", "&lowbar;", "_")
	reBackslsh = strings.NewReplacer(`\/`, "/", `\"`, `"`, `\\`, `\`, `\'`, "'", `\<`, "<", `\>`, ">", `\&`, "&", `\+`, "+", `\=`, "=", `\_`, "_", `\-`, "-", `\*`, "*", `\[`, "[", `\]`, "]", `\(`, "(", `\)`, ")", `\#`, "#", `\!`, "!", `\.`, ".", `\|`, "|", "\\`", "`", `\{`, "{", `\}`, "}")
	reBreaks   = regexp.MustCompile("(\r?\n)(data: ?)?|[\u200b\u200c\u200d\u2060\ufeff\u00ad]")
)

// hexRune decodes one escape: a byte (\xHH, %HH, =HH) or a code point.
func hexRune(m []byte, re *regexp.Regexp, base int) []byte {
	sub := re.FindSubmatch(m)
	v, err := strconv.ParseUint(string(sub[1]), base, 32)
	if err != nil {
		return m
	}
	if re == reX2 || re == rePct || re == reQP {
		return []byte{byte(v)}
	}
	return []byte(string(rune(v)))
}

// unescape undoes one layer of every escape the detector knows.
func unescape(b []byte) []byte {
	b = reQPSoft.ReplaceAll(b, nil)
	b = reU4.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reU4, 16) })
	b = reUBrace.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reUBrace, 16) })
	b = reX2.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reX2, 16) })
	b = rePct.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, rePct, 16) })
	b = reQP.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reQP, 16) })
	b = reHexRef.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reHexRef, 16) })
	b = reDec.ReplaceAllFunc(b, func(m []byte) []byte { return hexRune(m, reDec, 10) })
	b = []byte(reNamed.Replace(string(b)))
	b = []byte(reBackslsh.Replace(string(b)))
	return b
}

// leaks lists the secrets found in b, each with the spelling it was in.
func leaks(b []byte) []string {
	views := [][]byte{b}
	u := b
	for range 3 {
		u = unescape(u)
		views = append(views, u)
	}
	// The same after dropping line breaks and invisible characters
	// first (a zero-width joiner inside an escape).
	joined := reBreaks.ReplaceAll(b, nil)
	for range 3 {
		joined = unescape(joined)
		views = append(views, joined)
	}
	joined = reBreaks.ReplaceAll(joined, nil)
	views = append(views, joined)
	var alnum []byte
	for _, c := range joined {
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			alnum = append(alnum, c)
		}
	}
	lowerViews := make([][]byte, len(views))
	for i, v := range views {
		lowerViews[i] = bytes.ToLower(v)
	}
	lowerAlnum := bytes.ToLower(alnum)
	seen := map[string]bool{}
	var out []string
	for _, f := range detectors {
		if seen[f.secret] {
			continue
		}
		found := false
		switch {
		case f.alnum && f.fold:
			found = bytes.Contains(lowerAlnum, bytes.ToLower(f.text))
		case f.alnum:
			found = bytes.Contains(alnum, f.text)
		default:
			for i, v := range views {
				if f.fold {
					v = lowerViews[i]
				}
				t := f.text
				if f.fold {
					t = bytes.ToLower(t)
				}
				if bytes.Contains(v, t) {
					found = true
					break
				}
			}
		}
		if found {
			seen[f.secret] = true
			out = append(out, f.secret+" as "+f.how)
		}
	}
	return out
}

// TestDetector: the secrets oracle finds every planted secret in every
// spelling the review's servers echo (so that a case cannot hold by the
// oracle missing a spelling), and nothing in a masked output.
func TestDetector(t *testing.T) {
	for s, name := range secretNames {
		var all []string
		for _, ex := range redacttest.Examples(s) {
			all = append(all, ex.Text)
			if ex.Wire != "" {
				all = append(all, `{"x":"`+ex.Wire+`"}`)
			}
		}
		for _, ex := range moreExamples(s) {
			all = append(all, ex.Text)
		}
		for i, text := range all {
			if got := leaks([]byte("before " + text + " after")); len(got) == 0 {
				t.Errorf("%s: spelling %d not found: %q", name, i, text)
			}
		}
	}
	masked := []byte(`{"message":"key *** (masked: OPENAI_API_KEY) and ` + b64("user:") + `…"}`)
	if got := leaks(masked); len(got) > 0 {
		t.Errorf("found in a masked text: %v", got)
	}
}
