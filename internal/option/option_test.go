package option

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestShortDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Hour: "1h", time.Minute: "1m", 90 * time.Second: "1m30s", 100 * time.Millisecond: "100ms", 2*time.Hour + time.Second: "2h0m1s"} {
		if got := ShortDuration(d); got != want {
			t.Errorf("ShortDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{1024: "1KiB", 16 << 20: "16MiB", 1 << 30: "1GiB", 1500: "1500"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCommands: an option belongs to run, to conformance unless only the
// model layers read it, and to the commands it names.
func TestCommands(t *testing.T) {
	var s string
	tests := []struct {
		d                      Def
		run, conformance, gate bool
	}{
		{Def{Name: "timeout"}, true, true, false},
		{Def{Name: "checks", Layers: []string{LayerConformance}}, true, true, false},
		{Def{Name: "safe-tools", Layers: []string{LayerConformance, LayerResilience}}, true, true, false},
		{Def{Name: "models", Layers: Model}, true, false, false},
		{Def{Name: "prices", Layers: []string{LayerTelemetry}}, true, false, false},
		{Def{Name: "layers", Commands: []string{Run}}, true, false, false},
		{Def{Name: "baseline", Commands: []string{Run, Conformance, Gate}}, true, true, true},
		{Def{Input: &Input{Name: "eval-label"}}, false, false, false},
	}
	for _, tt := range tests {
		d := tt.d
		d.Value = String(&s, "")
		if got := [3]bool{d.For(Run), d.For(Conformance), d.For(Gate)}; got != [3]bool{tt.run, tt.conformance, tt.gate} {
			t.Errorf("%s: run, conformance, gate = %v", d.Name, got)
		}
	}
}

// TestValues: each kind of value takes what it should, refuses the rest
// with what it wants, and shows its default in --help as flag does.
func TestValues(t *testing.T) {
	var (
		str, enum string
		b         bool
		n         int
		f         float64
		d         time.Duration
		z         int64
		l, c      []string
	)
	s := &Set{}
	s.Add(Def{Name: "str", Help: "text"}, String(&str, "x"))
	s.Add(Def{Name: "enum", Help: "what goes to stdout"}, Enum(&enum, "text", "text", "json"))
	s.Add(Def{Name: "b", Help: "switch"}, Bool(&b, false))
	s.Add(Def{Name: "n", Help: "a `number`"}, Int(&n, 5, 1, 10))
	s.Add(Def{Name: "f", Help: "a `fraction`"}, Float(&f, 0.5, 0, 1, "a fraction"))
	s.Add(Def{Name: "d", Help: "a `duration`"}, Duration(&d, time.Second, time.Millisecond, time.Minute))
	s.Add(Def{Name: "z", Help: "a `size`"}, Size(&z, 1<<20, 1<<10, 1<<30))
	s.Add(Def{Name: "l", Help: "repeatable"}, List(&l, false))
	s.Add(Def{Name: "c", Help: "comma list"}, List(&c, true))
	if str != "x" || enum != "text" || n != 5 || f != 0.5 || d != time.Second || z != 1<<20 {
		t.Fatalf("defaults not applied: %q %q %d %g %v %d", str, enum, n, f, d, z)
	}
	fs := s.FlagSet("t", Run)
	fs.SetOutput(io.Discard)
	if err := fs.Parse([]string{"--str=y", "--enum=json", "--b", "--n=10", "--f=1", "--d=1m", "--z=2MiB", "--l=a,b", "--l=c", "--c=a, b", "--c=c"}); err != nil {
		t.Fatal(err)
	}
	if str != "y" || enum != "json" || !b || n != 10 || f != 1 || d != time.Minute || z != 2<<20 ||
		!slices.Equal(l, []string{"a,b", "c"}) || !slices.Equal(c, []string{"a", "b", "c"}) {
		t.Errorf("parsed: %q %q %v %d %g %v %d %q %q", str, enum, b, n, f, d, z, l, c)
	}
	for _, bad := range []struct{ arg, want string }{
		{"--enum=xml", "want text or json"},
		{"--n=11", "want a whole number between 1 and 10"},
		{"--f=NaN", "want a fraction between 0 and 1"},
		{"--d=10", "want a duration with its unit, such as 10s"},
		{"--d=2m", "out of range: want a duration between 1ms and 1m"},
		{"--z=1023", "want a size between 1KiB and 1GiB"},
		{"--b=maybe", "invalid boolean value"},
	} {
		fs := s.FlagSet("t", Run)
		fs.SetOutput(io.Discard)
		if err := fs.Parse([]string{bad.arg}); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.arg, err, bad.want)
		}
	}
	if u := s.Lookup("enum").Usage(); u != "what goes to stdout: text or json" {
		t.Errorf("enum usage %q", u)
	}
	// DocDefault keeps the declared default, whatever was parsed since.
	if got := s.Lookup("d").DocDefault(); got != "1s" {
		t.Errorf("DocDefault %q, want 1s", got)
	}
	var help strings.Builder
	s2 := &Set{}
	s2.Add(Def{Name: "out", Help: "where outputs go"}, String(&str, "mcp-eval-report"))
	s2.Add(Def{Name: "strict", Help: "fail on SHOULD"}, Bool(&b, false))
	s2.Add(Def{Name: "timeout", Help: "a `duration`"}, Duration(&d, 10*time.Second, time.Second, time.Hour))
	fs = s2.FlagSet("t", Run)
	fs.SetOutput(&help)
	fs.PrintDefaults()
	want := "  -out string\n    \twhere outputs go (default \"mcp-eval-report\")\n  -strict\n    \tfail on SHOULD\n  -timeout duration\n    \ta duration (default 10s)\n"
	if help.String() != want {
		t.Errorf("--help:\n%s\nwant\n%s", help.String(), want)
	}
}

// TestReadInputs: flag-backed inputs become their flags, switches are
// checked strictly, an input of its own is set on its value.
func TestReadInputs(t *testing.T) {
	var url, label, layers string
	var headers []string
	var strict, comment bool
	s := &Set{}
	s.Add(Def{Name: "server-url", Input: &Input{}}, String(&url, ""))
	s.Add(Def{Name: "header", Input: &Input{Name: "headers", Lines: true}}, List(&headers, false))
	s.Add(Def{Name: "layers", Input: &Input{Own: true}}, String(&layers, "auto"))
	s.Add(Def{Name: "strict", Input: &Input{}}, Bool(&strict, false))
	s.Add(Def{Input: &Input{Name: "eval-label"}}, String(&label, "run-evals"))
	s.Add(Def{Input: &Input{Name: "comment"}}, Bool(&comment, true))
	in := map[string]string{"server-url": "-x", "headers": "A: 1, 2\n\nB: 3", "layers": "all", "strict": "TRUE", "eval-label": "go", "comment": "False"}
	args, err := s.ReadInputs(func(n string) string { return in[n] })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--server-url=-x", "--header=A: 1, 2", "--header=B: 3", "--strict=true"}; !slices.Equal(args, want) {
		t.Errorf("args %q, want %q", args, want)
	}
	if label != "go" || comment {
		t.Errorf("own inputs: label %q comment %v", label, comment)
	}
	_, err = s.ReadInputs(func(n string) string { return map[string]string{"strict": "yes", "comment": "ture"}[n] })
	if err == nil || !strings.Contains(err.Error(), `input strict: "yes" is not a boolean`) || !strings.Contains(err.Error(), `input comment: "ture"`) {
		t.Errorf("bad booleans: %v", err)
	}
	if s.Input("headers") == nil || s.Input("headers").Name != "header" || s.Input("eval-label") == nil {
		t.Error("Input does not find inputs by their names")
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	var d time.Duration
	var usd float64
	v := Budget(&d, &usd, 24*time.Hour, 1e6)
	for in, want := range map[string]struct {
		d   time.Duration
		usd float64
	}{"10m": {10 * time.Minute, 0}, "$2": {0, 2}, "0.5USD": {0, 0.5}, "10m, $2.50": {10 * time.Minute, 2.5}, "": {0, 0}, "0": {0, 0}} {
		d, usd = 0, 0
		if err := v.Set(in); err != nil || d != want.d || usd != want.usd {
			t.Errorf("Set(%q): %v %v %v", in, d, usd, err)
		}
	}
	for _, bad := range []string{"$-1", "$x", "25h", "ten", "$2000000"} {
		if err := v.Set(bad); err == nil {
			t.Errorf("Set(%q): no error", bad)
		}
	}
	d, usd = 90*time.Second, 2
	if got := v.String(); got != "1m30s,$2" {
		t.Errorf("String() = %q", got)
	}
}

// TestReadInputsRef: a secret input declared Ref reaches its flag as a
// reference to its own INPUT_ variable, never as its value; a $VAR
// reference passes as given.
func TestReadInputsRef(t *testing.T) {
	var secret string
	s := &Set{}
	s.Add(Def{Name: "oauth-client-secret", Secret: true, Input: &Input{Ref: true}}, String(&secret, ""))
	for v, want := range map[string]string{
		"hunter2-secret-value": "--oauth-client-secret=${INPUT_OAUTH-CLIENT-SECRET}",
		"$CLIENT_SECRET":       "--oauth-client-secret=$CLIENT_SECRET",
		"${CLIENT_SECRET}":     "--oauth-client-secret=${CLIENT_SECRET}",
		"$not a reference":     "--oauth-client-secret=${INPUT_OAUTH-CLIENT-SECRET}",
	} {
		args, err := s.ReadInputs(func(string) string { return v })
		if err != nil || len(args) != 1 || args[0] != want {
			t.Errorf("input %q: args %q, %v; want %q", v, args, err, want)
		}
	}
}
