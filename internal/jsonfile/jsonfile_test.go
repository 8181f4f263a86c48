package jsonfile

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name, in, want string // want "" = accepted
	}{
		{"plain", `{"a": 1, "b": {"a": 2}, "c": [{"a": 1}, {"a": 2}]}`, ""},
		{"bom", "\xEF\xBB\xBF{\"a\": 1}", "line 1: starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow (RFC 8259 §8.1)"},
		{"duplicate", "{\n  \"schemaVersion\": 1,\n  \"gate\": {},\n  \"schemaVersion\": 2\n}", `line 4: member "schemaVersion" twice in one object`},
		{"duplicate nested after an array", "{\"a\": [1, {\"x\": 1}],\n \"b\": {\"y\": [], \"y\": 2}}", `line 2: member "y" twice`},
		{"same name in sibling objects", `[{"a": 1}, {"a": 1}]`, ""},
		{"a name equal to a value", `{"a": "b", "b": "a"}`, ""},
		{"syntax left to the decoder", `{"a": }`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.in))
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSyntax(t *testing.T) {
	data := []byte("{\n  \"a\": 1,\n  \"b\": }\n")
	var v any
	err := json.Unmarshal(data, &v)
	if got := Syntax(data, err); !strings.HasPrefix(got, "line 3: invalid character '}'") {
		t.Errorf("Syntax = %q", got)
	}
}
