package gate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-eval/mcp-eval/internal/yamlfile"
)

func date(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseWaivers(t *testing.T) {
	t.Parallel()
	const file = "w.yaml"
	tests := []struct {
		name string
		in   string
		want []Waiver
		errs []string // every line of the error, in order; nil when it parses
	}{
		{name: "empty file", in: ""},
		{name: "comments only", in: "# nothing waived yet\n"},
		{name: "null", in: "~\n"},
		{name: "empty list", in: "[]\n"},
		{
			name: "entries",
			in: `# known failures
- id: caching/tools-list
  reason: "upstream SDK omits ttlMs; fixed in v2"
  expires: 2026-12-31
- id: weather-basic@openai:gpt-4.1-mini
  reason: model confuses two tools
- id: forecast-chain
  reason: flaky on every model
  expires: "2027-01-15"
`,
			want: []Waiver{
				{ID: "caching/tools-list", Reason: "upstream SDK omits ttlMs; fixed in v2", Expires: date("2026-12-31"), File: file, Line: 2},
				{ID: "weather-basic@openai:gpt-4.1-mini", Reason: "model confuses two tools", File: file, Line: 5},
				{ID: "forecast-chain", Reason: "flaky on every model", Expires: date("2027-01-15"), File: file, Line: 7},
			},
		},
		{
			name: "unknown key with a suggestion",
			in:   "- id: a/b\n  reson: typo\n",
			errs: []string{
				`w.yaml:2: unknown key "reson" (did you mean "reason"?)`,
				`w.yaml:1: waiver for "a/b" has no reason: say why the failure is accepted`,
			},
		},
		{
			name: "expiry for expires",
			in:   "- id: a/b\n  reason: r\n  expiry: 2026-01-01\n",
			errs: []string{`w.yaml:3: unknown key "expiry" (did you mean "expires"?)`},
		},
		{
			name: "unknown key far from any",
			in:   "- id: a/b\n  reason: r\n  owner: me\n",
			errs: []string{`w.yaml:3: unknown key "owner" (want id, reason, expires)`},
		},
		{
			name: "missing reason",
			in:   "- id: a/b\n  reason: r\n- id: c/d\n  expires: 2026-01-01\n",
			errs: []string{`w.yaml:3: waiver for "c/d" has no reason: say why the failure is accepted`},
		},
		{
			name: "blank reason",
			in:   "- id: a/b\n  reason: \"  \"\n",
			errs: []string{`w.yaml:1: waiver for "a/b" has no reason: say why the failure is accepted`},
		},
		{
			name: "bad date",
			in:   "- id: a/b\n  reason: r\n  expires: 2026-13-01\n",
			errs: []string{`w.yaml:3: expires "2026-13-01" is not a date: want YYYY-MM-DD`},
		},
		{
			name: "date in another format",
			in:   "- id: a/b\n  reason: r\n  expires: 31/12/2026\n",
			errs: []string{`w.yaml:3: expires "31/12/2026" is not a date: want YYYY-MM-DD`},
		},
		{
			name: "duplicate id",
			in:   "- id: a/b\n  reason: r\n- reason: again\n  id: a/b\n",
			errs: []string{`w.yaml:4: duplicate waiver for "a/b" (first at line 1)`},
		},
		{
			name: "missing id",
			in:   "- reason: r\n",
			errs: []string{`w.yaml:1: waiver has no id: name the check id, case id, or case-id@model it accepts`},
		},
		{
			name: "half a case key",
			in:   "- id: weather@\n  reason: r\n",
			errs: []string{`w.yaml:1: waiver id "weather@" needs both parts of case-id@model`},
		},
		{
			name: "not a list",
			in:   "id: a/b\nreason: r\n",
			errs: []string{`w.yaml:1: want a list of waivers (- id: …, reason: …), got a mapping`},
		},
		{
			name: "entry not a mapping",
			in:   "- id: a/b\n  reason: r\n- a/c\n",
			errs: []string{`w.yaml:3: each waiver must be a mapping with id and reason, got "a/c"`},
		},
		{
			name: "list as a value",
			in:   "- id: a/b\n  reason:\n    - one\n    - two\n",
			errs: []string{
				`w.yaml:3: reason must be a single value, got a list`,
				`w.yaml:1: waiver for "a/b" has no reason: say why the failure is accepted`,
			},
		},
		{
			name: "repeated key",
			in:   "- id: a/b\n  reason: r\n  reason: s\n",
			errs: []string{`w.yaml:3: duplicate key "reason" (first at line 2)`},
		},
		{
			name: "syntax error",
			in:   "- id: a/b\n  reason: r\n- id: c\n  reason: d: e\n",
			errs: []string{`w.yaml:4: invalid YAML: mapping values are not allowed in this context`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseWaivers([]byte(tt.in), file)
			if tt.errs == nil {
				if err != nil {
					t.Fatalf("ParseWaivers: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ParseWaivers mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseWaivers = %+v, want an error", got)
			}
			if got != nil {
				t.Errorf("ParseWaivers returned waivers %+v with an error", got)
			}
			if diff := cmp.Diff(tt.errs, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWaiverExpired(t *testing.T) {
	t.Parallel()
	w := Waiver{ID: "a/b", Reason: "r", Expires: date("2026-12-31")}
	tests := []struct {
		now  time.Time
		want bool
	}{
		{time.Date(2026, 12, 30, 12, 0, 0, 0, time.UTC), false},
		{time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), false}, // holds the whole day
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{time.Time{}, false},
	}
	for _, tt := range tests {
		if got := w.expired(tt.now); got != tt.want {
			t.Errorf("expired(%v) = %v, want %v", tt.now, got, tt.want)
		}
	}
	if (Waiver{ID: "x", Reason: "r"}).expired(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("a waiver without expires expired")
	}
}

func TestSuggest(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"reson": `unknown key "reson" (did you mean "reason"?)`, "Reason": `unknown key "Reason" (did you mean "reason"?)`,
		"expire": `(did you mean "expires"?)`, "expiry": `(did you mean "expires"?)`, "ids": `(did you mean "id"?)`,
		"owner": `unknown key "owner" (want id, reason, expires)`, "notes": "(want id, reason, expires)",
	} {
		if got := yamlfile.UnknownKey(in, waiverKeys); !strings.Contains(got, want) {
			t.Errorf("UnknownKey(%q) = %q, want %q", in, got, want)
		}
	}
}
