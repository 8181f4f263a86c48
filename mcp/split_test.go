package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitArray(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{`[]`, nil, false},
		{` [ ] `, nil, false},
		{`[1]`, []string{`1`}, false},
		{`[{"a":[1,2]}, "x,]", [3] ,null]`, []string{`{"a":[1,2]}`, `"x,]"`, `[3]`, `null`}, false},
		{`["a\"],b", {"k":"}"}]`, []string{`"a\"],b"`, `{"k":"}"}`}, false},
		{`{"a":1}`, nil, true},
		{`[1,`, nil, true},
	}
	for _, tt := range tests {
		got, err := splitArray([]byte(tt.in))
		if (err != nil) != tt.err {
			t.Errorf("%s: err %v", tt.in, err)
			continue
		}
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if diff := cmp.Diff(tt.want, gs); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.in, diff)
		}
	}
}

// FuzzSplitArray: on any valid array, splitArray agrees with encoding/json.
func FuzzSplitArray(f *testing.F) {
	f.Add([]byte(`[{"a":"b,]"},[1,[2]],"\\\""]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []json.RawMessage
		if json.Unmarshal(b, &want) != nil || want == nil {
			return
		}
		got, err := splitArray(b)
		if err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, want %d", b, len(got), len(want))
		}
		for i := range got {
			var a, c any
			if json.Unmarshal(got[i], &a) != nil || json.Unmarshal(want[i], &c) != nil || !cmp.Equal(a, c) {
				t.Fatalf("%q: element %d %s, want %s", b, i, got[i], want[i])
			}
		}
	})
}
