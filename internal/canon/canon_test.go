package canon

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestJSON(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`{"b":1, "a":[1.50, "\u00e9<"]}`, `{"a":[1.50,"é<"],"b":1}`, true},
		{` 12345678901234567890 `, `12345678901234567890`, true},
		{`{"a":`, `{"a":`, false},
		{`1 2`, `1 2`, false},
		{``, ``, false},
	}
	for _, tt := range tests {
		got, ok := JSON([]byte(tt.in))
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("JSON(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestEqualJSON: the same value in other spellings is equal, another type
// never is, and invalid JSON equals nothing (conformance's TestSameJSON
// has the id cases).
func TestEqualJSON(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{`{"a":[7, "\u00e9"], "b":null}`, `{"b":null,"a":[7.0,"é"]}`, true},
		{`1e2`, `100`, true},
		{`12345678901234567890123`, `12345678901234567890124`, false},
		{`"7"`, `7`, false},
		{`[1]`, `[1,1]`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`{"a":`, `{"a":`, false},
	} {
		if got := EqualJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("EqualJSON(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func FuzzJSON(f *testing.F) {
	f.Add([]byte(`{"z":[1,{"y":"\u2028"}],"a":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		once, ok := JSON(raw)
		if !ok {
			return
		}
		twice, ok := JSON(once)
		if !ok || string(twice) != string(once) {
			t.Fatalf("not idempotent: %q → %q → %q", raw, once, twice)
		}
	})
}

// stripRef is what Stripped replaces: decode, delete the members named
// in drop at every depth, encode with Value.
func stripRef(raw []byte, drop map[string]bool) ([]byte, map[string]any, bool) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil || v == nil {
		return nil, nil, false
	}
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if drop[k] {
					delete(x, k)
					continue
				}
				strip(sub)
			}
		case []any:
			for _, sub := range x {
				strip(sub)
			}
		}
	}
	strip(v)
	return Value(v), v, true
}

var strippedDrop = map[string]bool{"_meta": true, "ttlMs": true, "cacheScope": true}

var strippedCases = []string{
	`{}`, ` { } `, `{"b":1, "a":[1.50, "\u00e9<", -0, 1E+2, true, null, {}]}`,
	`{"name":"t","_meta":{"x":1},"inputSchema":{"type":"object","properties":{"_meta":{"type":"string"},"ttlMs":{}}}}`,
	`{"k":1,"k":{"a":2},"j":[{"k":3,"k":4}]}`, `{"a\u0062":1,"ab":2}`, `{"\u2028":"\u2029","x":"a\u2028b"}`,
	`{"s":"\"\\\/\b\f\n\r\t\u0001\u001f\u007f"}`, "{\"s\":\"\xff\xfe\",\"\xc3\":1}", "{\"s\":\"\u2028 raw\"}",
	`{"s":"\ud800","t":"\ud83d\ude00","u":"<&>"}`, `{"n":12345678901234567890.000000001e-5}`, `[1]`, `"x"`, `null`, `{"a":`, `{"a":1} x`,
	`{"é":1,"e":2,"z":3,"E":4,"":5}`, `{"a":[[],[[]],[{"_meta":1,"b":[]}]]}`,
}

func TestStripped(t *testing.T) {
	for _, s := range strippedCases {
		checkStripped(t, []byte(s))
	}
}

// FuzzStripped: Stripped writes what decoding, deleting and Value write,
// on any bytes that are one JSON object, and refuses the rest.
func FuzzStripped(f *testing.F) {
	for _, s := range strippedCases {
		f.Add([]byte(s))
	}
	f.Fuzz(checkStripped)
}

func checkStripped(t *testing.T, raw []byte) {
	got, top, ok := Stripped(raw, strippedDrop)
	if !json.Valid(raw) {
		if ok {
			t.Fatalf("Stripped(%q) accepted invalid JSON", raw)
		}
		return
	}
	want, v, wantOK := stripRef(raw, strippedDrop)
	if ok != wantOK || !bytes.Equal(got, want) {
		t.Fatalf("Stripped(%q) = %q, %v; want %q, %v", raw, got, ok, want, wantOK)
	}
	if !ok {
		return
	}
	if len(top) != len(v) {
		t.Fatalf("Stripped(%q): %d top-level members, want %d", raw, len(top), len(v))
	}
	for k, sub := range v {
		if w := Value(sub); !bytes.Equal(top[k], w) {
			t.Fatalf("Stripped(%q): member %q is %q, want %q", raw, k, top[k], w)
		}
	}
}
