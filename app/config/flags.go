package config

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
)

// Bounded flag values. Each size, count and duration is checked against a
// sane range where it is set, so that the message names where the value came
// from (the flag, or mcp-eval.yaml and its line) and says what was expected:
// a value far out of range does not fail loudly later, it makes every answer
// "too large" or every request time out at once.

// durationValue is a time.Duration within [min, max].
type durationValue struct {
	p        *time.Duration
	min, max time.Duration
}

func (d *durationValue) String() string {
	if d == nil || d.p == nil {
		return "0s"
	}
	return d.p.String()
}

func (d *durationValue) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if _, numErr := strconv.ParseFloat(strings.TrimSpace(s), 64); numErr == nil {
			return fmt.Errorf("want a duration with its unit, such as %ss or %sms", strings.TrimSpace(s), strings.TrimSpace(s))
		}
		return errors.New("want a duration such as 10s, 1m30s or 500ms")
	}
	if v < d.min || v > d.max {
		return fmt.Errorf("out of range: want a duration between %s and %s", shortDuration(d.min), shortDuration(d.max))
	}
	*d.p = v
	return nil
}

// shortDuration writes 1h rather than 1h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// intValue is an int within [min, max].
type intValue struct {
	p        *int
	min, max int
}

func (n *intValue) String() string {
	if n == nil || n.p == nil {
		return "0"
	}
	return strconv.Itoa(*n.p)
}

func (n *intValue) Set(s string) error {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < n.min || v > n.max {
		return fmt.Errorf("want a whole number between %d and %d", n.min, n.max)
	}
	*n.p = v
	return nil
}

// floatValue is a float64 within [min, max]; what says what it measures.
type floatValue struct {
	p        *float64
	min, max float64
	what     string
}

func (f *floatValue) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *floatValue) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v < f.min || v > f.max {
		return fmt.Errorf("want %s between %g and %g", f.what, f.min, f.max)
	}
	*f.p = v
	return nil
}

// sizeValue is a byte count within [min, max], written as a number of bytes
// or with a KiB, MiB or GiB suffix.
type sizeValue struct {
	p        *int64
	min, max int64
}

var sizeRE = regexp.MustCompile(`^(\d+)\s*(|B|KiB|MiB|GiB)$`)

var sizeUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

func (z *sizeValue) String() string {
	if z == nil || z.p == nil {
		return "0"
	}
	return formatSize(*z.p)
}

func (z *sizeValue) Set(s string) error {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	want := fmt.Sprintf("want a size between %s and %s, such as 16MiB or 1048576", formatSize(z.min), formatSize(z.max))
	if m == nil {
		return errors.New(want)
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	unit := sizeUnits[m[2]]
	if err != nil || n > z.max/unit || n*unit < z.min {
		return errors.New(want)
	}
	*z.p = n * unit
	return nil
}

// formatSize writes n in the largest binary unit that divides it.
func formatSize(n int64) string {
	for _, u := range []string{"GiB", "MiB", "KiB"} {
		if d := sizeUnits[u]; n >= d && n%d == 0 {
			return fmt.Sprintf("%d%s", n/d, u)
		}
	}
	return strconv.FormatInt(n, 10)
}

// The ranges, in one place (README's flag table says the same).
const (
	minTimeout, maxTimeout           = 100 * time.Millisecond, time.Hour
	minStartTimeout, maxStartTimeout = 100 * time.Millisecond, time.Hour
	maxRuns                          = 1000
	maxConcurrency                   = 256
	minMessageBytes, maxMessageBytes = 1 << 10, 1 << 30
	maxIncrease                      = 100 // +10 000 %
)

// flagError rewrites the flag package's "invalid value "10" for flag
// -timeout: …" as "--timeout 10: …", the spelling the docs use.
var flagErrorRE = regexp.MustCompile(`^invalid value "(.*)" for flag -([\w-]+): (.*)$`)

// An unknown flag gets the nearest known one as a suggestion.
func FlagError(err error, fs *flag.FlagSet) string {
	msg := err.Error()
	if m := flagErrorRE.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("--%s %s: %s", m[2], m[1], m[3])
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimPrefix(name, "-")
		if s := suggest.Nearest(name, FlagNames(fs)); s != "" {
			return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", name, s)
		}
		return "unknown flag --" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "--" + name + " needs a value"
	}
	return msg
}

// boundFlags binds the bounded values of cfg to fs.
func boundFlags(fs *flag.FlagSet, cfg *Config) {
	fs.Var(&durationValue{&cfg.StartTimeout, minStartTimeout, maxStartTimeout}, "start-timeout", "how long the server may take to start and answer its first request: a `duration` from 100ms to 1h")
	fs.Var(&durationValue{&cfg.Timeout, minTimeout, maxTimeout}, "timeout", "timeout of each request to the server: a `duration` from 100ms to 1h")
	fs.Var(&intValue{&cfg.Runs, 1, maxRuns}, "runs", fmt.Sprintf("how many times each check and case runs: a `number` from 1 to %d", maxRuns))
	fs.Var(&intValue{&cfg.Concurrency, 1, maxConcurrency}, "concurrency", fmt.Sprintf("checks in flight at once: a `number` from 1 to %d", maxConcurrency))
	fs.Var(&sizeValue{&cfg.MaxMessageBytes, minMessageBytes, maxMessageBytes}, "max-message-bytes", "largest answer read from the server: a `size` in bytes or with KiB, MiB, GiB, from 1KiB to 1GiB")
	fs.Var(&floatValue{&cfg.MaxDrop, 0, 1, "a fraction (0.02 is two points)"}, "max-drop", "largest allowed drop of a score against the baseline: a `fraction` from 0 to 1")
}

// --- layer1 (issue 20): to move into the option registry once it lands ---

// budgetValue is --model-budget: a wall time, a dollar amount, or both as
// a comma list ("10m", "$2", "2usd", "10m,$2").
type budgetValue struct {
	d   *time.Duration
	usd *float64
}

func (b *budgetValue) String() string {
	if b == nil || b.d == nil {
		return ""
	}
	var parts []string
	if *b.d > 0 {
		parts = append(parts, b.d.String())
	}
	if *b.usd > 0 {
		parts = append(parts, "$"+strconv.FormatFloat(*b.usd, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

func (b *budgetValue) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lower := strings.ToLower(part)
		amount, isUSD := strings.CutPrefix(lower, "$")
		if !isUSD {
			amount, isUSD = strings.CutSuffix(lower, "usd")
		}
		if isUSD {
			f, err := strconv.ParseFloat(strings.TrimSpace(amount), 64)
			if err != nil || f != f || f < 0 {
				return fmt.Errorf("want a dollar amount such as $2 or 0.5usd, got %q", part)
			}
			*b.usd = f
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil {
			return fmt.Errorf("want a wall time such as 10m, a dollar amount such as $2, or both (10m,$2), got %q", part)
		}
		*b.d = d
	}
	return nil
}

// --- end layer1 ---
