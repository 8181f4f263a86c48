package jsonscan

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

var validCases = []string{
	``, ` `, `{}`, ` {} `, `[]`, `[ ]`, `{ }`, `"a"`, `"`, `"\`, `"\"`, `"\""`, `"\u00e9"`, `"\u00g9"`, `"\u00e"`,
	`"\x"`, `"\/\b\f\n\r\t\\"`, "\"a\tb\"", "\"\x7f\xff\xfe\"", "\xef\xbb\xbf{}", `true`, `tru`, `truex`, `false`,
	`null`, `nul`, `nullnull`, `0`, `-0`, `-`, `01`, `1.`, `1.5`, `.5`, `1e`, `1e+`, `1e+5`, `1E-05`, `-1.0e3`,
	`+1`, `1 2`, `[1,]`, `[,1]`, `[1 2]`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1"b":2}`, `{"a":[1,{"b":null}],"c":"}"}`,
	`[[[]]]`, `[[[]]`, `[]]`, `{]`, `[}`, `{"a":1]`, "[1]\x00", "\t\n\r [1] \t\n\r", "\v[1]", `[1]x`,
	`{"":""}`, `[true,false,null]`, `["a\u0000b"]`, "[\"a\x00b\"]", `[-]`, `[-a]`, `[0.0e-0]`, `[1e01]`,
}

func TestValid(t *testing.T) {
	for _, s := range validCases {
		if got, want := Valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("Valid(%q) = %v, json.Valid says %v", s, got, want)
		}
	}
	// encoding/json's nesting limit: 10 000 levels are valid, one more is not.
	for _, n := range []int{maxNesting, maxNesting + 1} {
		for _, pair := range []string{"[]", `{"a":}`} {
			open, end := pair[:len(pair)-1], pair[len(pair)-1:]
			inner := strings.Repeat(open, n-1) + pair[:1] + end + strings.Repeat(end, n-1)
			if pair == `{"a":}` {
				inner = strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1)
			}
			b := []byte(inner)
			if got, want := Valid(b), json.Valid(b); got != want {
				t.Errorf("depth %d of %s: Valid %v, json.Valid %v", n, pair, got, want)
			}
		}
	}
}

// FuzzValid: Valid says what encoding/json's Valid says, on any
// bytes.
func FuzzValid(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Add(bigListing(3))
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", b, got, want)
		}
	})
}

// bigListing is a tools/list answer of n tools, shaped as a big server's.
func bigListing(n int) []byte {
	var sb bytes.Buffer
	sb.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"tools":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"billing_list_invoice_%04d","title":"Billing list invoice","description":"List billing invoice records of the billing system (catalogue entry %d): filters by region and owner before anything is returned; results are sorted by status, newest first, with tier as the tie breaker; the answer cites the \"carrier\" identifier.","annotations":{"readOnlyHint":false,"openWorldHint":false},"inputSchema":{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200,"description":"Free text matched against the invoice's name and notes."},"region":{"type":"string","enum":["any","open","closed","archived"],"description":"Only invoice records in this region."},"owner":{"$ref":"#/$defs/code","description":"The owner code to narrow the search to."},"since":{"type":"string","format":"date","description":"Earliest date to include, as YYYY-MM-DD."},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"How many records to return at most."}},"required":["query"],"additionalProperties":false,"$defs":{"code":{"type":"string","pattern":"^[A-Z]{2,4}-[0-9]{1,6}$"}}}}`, i, i)
	}
	sb.WriteString(`],"nextCursor":"50"}}`)
	return sb.Bytes()
}

// BenchmarkValid: a page of 50 tools, against encoding/json's Valid.
func BenchmarkValid(b *testing.B) {
	page := bigListing(50)
	for _, bb := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonscan", Valid}, {"encoding-json", json.Valid}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if !bb.valid(page) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func TestTrimSpace(t *testing.T) {
	for in, want := range map[string]string{"": "", " \t\r\n": "", " {} ": "{}", "\v{}\f": "\v{}\f", "\u00a0x": "\u00a0x", "\n[1] 2\r": "[1] 2"} {
		if got := string(TrimSpace([]byte(in))); got != want {
			t.Errorf("TrimSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

// decodeRef is what Decode replaces: encoding/json into an any, numbers
// as json.Number, one value and nothing after it.
func decodeRef(b []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

var decodeCases = append([]string{
	`{"a":{"b":[1,2.50,-0,1e+2,true,false,null,"x"]},"a":7,"":[],"e":{}}`, `"\u00e9\ud83d\ude00\ud800\"\\\/\b"`,
	"\"\xff\xfe ok\"", "{\"\xc3\":1,\"k\\u0041\":2}", `[[[[]]]]`, ` 12345678901234567890123 `, `{"a":1} `,
}, validCases...)

func TestDecode(t *testing.T) {
	for _, s := range decodeCases {
		decodeAgrees(t, []byte(s))
	}
	decodeAgrees(t, bigListing(5))
}

// FuzzDecode: Decode returns what encoding/json decodes, on any bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeCases {
		f.Add([]byte(s))
	}
	f.Fuzz(decodeAgrees)
}

func decodeAgrees(t *testing.T, b []byte) {
	got, ok := Decode(b)
	want, wantOK := decodeRef(b)
	if ok != wantOK || !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, %v; encoding/json says %#v, %v", b, got, ok, want, wantOK)
	}
}

// BenchmarkDecode: a page of 50 big tools, against encoding/json.
func BenchmarkDecode(b *testing.B) {
	page := bigListing(50)
	for _, bb := range []struct {
		name   string
		decode func([]byte) (any, bool)
	}{{"jsonscan", Decode}, {"encoding-json", decodeRef}} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := bb.decode(page); !ok {
					b.Fatal("invalid")
				}
			}
		})
	}
}

// FuzzValidMembers: ValidMembers says what Valid says, and for an object
// finds the members encoding/json's decoder reads, and those of each
// member's object value, name for name and byte for byte.
func FuzzValidMembers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}],"nextCursor":"x"}}`,
		` { "a" : { "b" : [ 1 , { "c" : 2 } ] , "d" : { } } , "e" : [ ] , "f" : "g" } `,
		`{"a":{"b":{"c":{"d":1}}}}`, `{}`, `[]`, `[{"a":1}]`, `{"a":1,"a":{"b":2}}`, `{"a\u0062":{"\"":1}}`,
		`{"a":1,}`, `{"a"}`, `{"a":{"b":1}`, `{"a":[}`, `"x"`, `1`, `{"a":1}{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, ok := ValidMembers(b, nil)
		if ok != Valid(b) {
			t.Fatalf("%q: ValidMembers %v, Valid %v", b, ok, Valid(b))
		}
		if !ok {
			return
		}
		want, isObj := decodedMembers(t, b)
		if !isObj {
			if len(ms) != 0 {
				t.Fatalf("%q: not an object, yet members %v", b, ms)
			}
			return
		}
		var got []string
		for i, m := range ms {
			if m.Parent >= i || m.Parent < -1 || (m.Parent >= 0 && ms[m.Parent].Parent != -1) {
				t.Fatalf("%q: member %d has parent %d", b, i, m.Parent)
			}
			prefix := ""
			if m.Parent >= 0 {
				prefix = fmt.Sprint(m.Parent) + "/"
			}
			var name string
			if err := json.Unmarshal(b[m.NameStart:m.NameEnd], &name); err != nil {
				t.Fatalf("%q: name %q: %v", b, b[m.NameStart:m.NameEnd], err)
			}
			got = append(got, prefix+name+"="+string(b[m.ValueStart:m.ValueEnd]))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("%q:\ngot  %q\nwant %q", b, got, want)
		}
	})
}

// decodedMembers lists b's members as encoding/json's decoder reads them,
// in ValidMembers' order: each "name=value", followed by the members of its
// object value, if it is one, as "P/name=value" where P is the member's
// index in that list.
func decodedMembers(t *testing.T, b []byte) ([]string, bool) {
	top, ok := objectMembers(t, b)
	if !ok {
		return nil, false
	}
	var out []string
	for _, m := range top {
		parent := len(out)
		out = append(out, m[0]+"="+m[1])
		inner, _ := objectMembers(t, []byte(m[1]))
		for _, n := range inner {
			out = append(out, fmt.Sprint(parent)+"/"+n[0]+"="+n[1])
		}
	}
	return out, true
}

// objectMembers decodes the JSON object b's members as [name, raw value].
func objectMembers(t *testing.T, b []byte) ([][2]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out [][2]string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		out = append(out, [2]string{k.(string), string(v)})
	}
	return out, true
}

// hasSpecial is exact: it finds a quote, a backslash or a control
// character among eight bytes when, and only when, one is there.
func TestHasSpecial(t *testing.T) {
	want := func(w uint64) bool {
		for k := range 8 {
			if !plainByte[byte(w>>(8*k))] {
				return true
			}
		}
		return false
	}
	// Every byte value at every position, among plain bytes, among bytes
	// with the high bit set, and beside another special byte (a borrow).
	for _, fill := range []byte{'a', 0xff, 0x80, 0x21, 0x23, 0x5d, '"', 0x00, 0x1f} {
		for c := range 256 {
			for k := range 8 {
				var b [8]byte
				for j := range b {
					b[j] = fill
				}
				b[k] = byte(c)
				w := binary.LittleEndian.Uint64(b[:])
				if got := hasSpecial(w); got != want(w) {
					t.Fatalf("hasSpecial(%q) = %v, want %v", b, got, want(w))
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		w := r.Uint64()
		if got := hasSpecial(w); got != want(w) {
			t.Fatalf("hasSpecial(%#016x) = %v, want %v", w, got, want(w))
		}
	}
}
