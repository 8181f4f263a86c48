package canon

import "testing"

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
