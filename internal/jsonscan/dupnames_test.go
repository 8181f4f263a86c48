package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var dupCases = []struct {
	in   string
	want []string // pointer name first later
}{
	{`{}`, nil},
	{`{"a":1,"b":2}`, nil},
	{`{"a":1,"a":2}`, []string{` a 1 2`}},
	{`{"a" : 1 , "a" : 1 }`, []string{` a 1 1`}},
	{`{"result":{"ttlMs":1e400,"ttlMs":0}}`, []string{`/result ttlMs 1e400 0`}},
	{`{"a":{"x":[1,{"y":1,"y":{"z":2}}]},"a":3}`, []string{`/a/x/1 y 1 {"z":2}`, ` a {"x":[1,{"y":1,"y":{"z":2}}]} 3`}},
	{`{"\u0061":1,"a":2}`, []string{` a 1 2`}},
	{`{"a/b~":{"k":1,"k":2}}`, []string{`/a~1b~0 k 1 2`}},
	{`[{"a":1},{"a":1}]`, nil},
	{`{"a":"x,}","b":["a","a"],"a":"y"}`, []string{` a "x,}" "y"`}},
	{`"just a string"`, nil},
}

func TestDuplicates(t *testing.T) {
	for _, c := range dupCases {
		var got []string
		for _, d := range Duplicates([]byte(c.in), 0) {
			got = append(got, d.Pointer+" "+d.Name+" "+string(d.First)+" "+string(d.Later))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Duplicates(%s) = %q, want %q", c.in, got, c.want)
		}
		ref, ok := refDuplicates([]byte(c.in))
		if !ok || !reflect.DeepEqual(ref, got) {
			t.Errorf("reference on %s = %q, %v; the test's reference is wrong", c.in, ref, ok)
		}
	}
}

// TestDuplicatesLarge: a big object is looked up through a map, with the
// same verdicts.
func TestDuplicatesLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	b.WriteString(`"k7":"again","k99":"last"}`)
	got := Duplicates([]byte(b.String()), 0)
	if len(got) != 2 || got[0].Name != "k7" || string(got[0].First) != "7" || got[1].Name != "k99" || !got[1].Differs() {
		t.Fatalf("got %+v", got)
	}
	if one := Duplicates([]byte(b.String()), 1); len(one) != 1 {
		t.Errorf("limit 1 kept %d", len(one))
	}
}

func TestDuplicateLine(t *testing.T) {
	b := []byte("{\n  \"a\": 1,\n  \"b\": 2,\n  \"a\": 3\n}")
	d := Duplicates(b, 0)
	if len(d) != 1 || d[0].Line(b) != 4 {
		t.Fatalf("got %+v", d)
	}
}

func TestFirstWins(t *testing.T) {
	got, ok := FirstWins([]byte(`{"result":{"ttlMs":1e400,"ttlMs":0,"x":[{"a":1,"a":2}]}}`))
	if want := `{"result":{"ttlMs":1e400,"x":[{"a":1}]}}`; !ok || string(got) != want {
		t.Fatalf("FirstWins = %s, %v; want %s", got, ok, want)
	}
	if _, ok := FirstWins([]byte(`{"a":`)); ok {
		t.Error("FirstWins accepted invalid JSON")
	}
}

// refDuplicates is the reference: encoding/json's Decoder reads each
// object's members in order (values as json.RawMessage, as written), a
// member's value is searched before the member itself is judged.
func refDuplicates(b []byte) ([]string, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	var out []string
	var walk func(ptr string, raw []byte)
	walk = func(ptr string, raw []byte) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		tok, _ := dec.Token()
		switch tok {
		case json.Delim('{'):
			seen := map[string][]byte{}
			for dec.More() {
				kt, _ := dec.Token()
				k := kt.(string)
				var v json.RawMessage
				if dec.Decode(&v) != nil {
					return
				}
				walk(ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), v)
				if first, ok := seen[k]; ok {
					out = append(out, ptr+" "+k+" "+string(first)+" "+string(v))
				} else {
					seen[k] = v
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				var v json.RawMessage
				if dec.Decode(&v) != nil {
					return
				}
				walk(ptr+"/"+strconv.Itoa(i), v)
			}
		}
	}
	walk("", b)
	return out, true
}

// FuzzDuplicates: on valid JSON, Duplicates finds what encoding/json's
// Decoder finds, pointer, name and both values; on any bytes it returns.
// FirstWins' reading is valid JSON with no duplicate, and for JSON with
// none it is encoding/json's.
func FuzzDuplicates(f *testing.F) {
	for _, c := range dupCases {
		f.Add([]byte(c.in))
	}
	f.Add([]byte(`{"a":1,"a"`))
	f.Add([]byte(`{"\ud800":1,"\udfff":2,"\ufffd":3}`))
	f.Add([]byte("{\"\xff\":1,\"\xfe\":2}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []string
		ds := Duplicates(b, 0)
		ref, ok := refDuplicates(b)
		if !ok {
			return
		}
		for _, d := range ds {
			got = append(got, d.Pointer+" "+d.Name+" "+string(d.First)+" "+string(d.Later))
		}
		if !reflect.DeepEqual(got, ref) {
			t.Fatalf("Duplicates(%q) = %q, want %q", b, got, ref)
		}
		fw, ok := FirstWins(b)
		if !ok || !json.Valid(fw) {
			t.Fatalf("FirstWins(%q) = %q, %v", b, fw, ok)
		}
		if again := Duplicates(fw, 0); len(again) > 0 {
			t.Fatalf("FirstWins(%q) = %q keeps duplicates %+v", b, fw, again)
		}
		if len(ds) == 0 {
			var v any
			d := json.NewDecoder(bytes.NewReader(b))
			d.UseNumber()
			if d.Decode(&v) == nil {
				want, _ := json.Marshal(v)
				if !bytes.Equal(fw, want) {
					t.Fatalf("FirstWins(%q) = %q, want %q", b, fw, want)
				}
			}
		}
	})
}

// BenchmarkDuplicates: a page of 50 big tools, against Valid's pass over
// the same bytes (what every answer already costs).
func BenchmarkDuplicates(b *testing.B) {
	page := bigListing(50)
	b.Run("valid", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			Valid(page)
		}
	})
	b.Run("duplicates", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if len(Duplicates(page, 0)) != 0 {
				b.Fatal("duplicates in the listing")
			}
		}
	})
}
