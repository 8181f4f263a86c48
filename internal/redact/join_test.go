package redact

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// A secret cut over the values of one path (adjacent notifications of one
// answer) is masked in every piece, and the pieces wherever the text
// quotes them; values of other paths are not joined.
func TestJSONMasksASecretSplitOverValues(t *testing.T) {
	const s = "sk-split-0123456789abcdef"
	r := mustNew(t, Secret{"k", s})
	note := func(data string) string {
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":` + quote(data) + `}}`
	}
	b64 := base64.StdEncoding.EncodeToString([]byte(s))
	tests := []struct{ name, in, want string }{
		{"two notifications",
			`{"checks":[{"message":"the server sent ` + strings.ReplaceAll(note(s[:12]), `"`, `\"`) + `","evidence":{"notifications":[{"message":` + note(s[:12]) + `},{"message":` + note(s[12:]) + `}]}}]}`,
			`{"checks":[{"message":"the server sent ` + strings.ReplaceAll(note("***"), `"`, `\"`) + `","evidence":{"notifications":[{"message":` + note("***") + `},{"message":` + note("***") + `}]}}]}`},
		{"three pieces, one of two bytes",
			`{"d":[{"x":"a ` + s[:10] + `"},{"x":"` + s[10:12] + `"},{"x":"` + s[12:] + ` b"}]}`,
			`{"d":[{"x":"a ***"},{"x":"***"},{"x":"*** b"}]}`},
		{"base64 in two deltas", `[{"delta":"` + b64[:7] + `"},{"delta":"` + b64[7:] + `"}]`, `[{"delta":"***"},{"delta":"***"}]`},
		{"escaped pieces", `[{"t":"\u0073k-split-012"},{"t":"3456789abcdef"}]`, `[{"t":"***"},{"t":"***"}]`},
		{"other paths", `{"a":"` + s[:12] + `","b":"` + s[12:] + `"}`, `{"a":"` + s[:12] + `","b":"` + s[12:] + `"}`},
	}
	for _, tt := range tests {
		got := string(r.JSON([]byte(tt.in)))
		if got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: not JSON: %s", tt.name, got)
		}
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
