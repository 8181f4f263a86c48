package option

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The values options are bound to. Each size, count and duration is
// checked against its range where it is set, so that the message names
// where the value came from (the flag, or mcp-eval.yaml and its line) and
// says what was expected: a value far out of range does not fail loudly
// later, it makes every answer "too large" or every request time out at
// once. Each constructor stores the default in *p.

// String is a text value.
func String(p *string, def string) flag.Value {
	*p = def
	return (*stringValue)(p)
}

type stringValue string

func (v *stringValue) String() string     { return string(*v) }
func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }

// Bool is a switch.
func Bool(p *bool, def bool) flag.Value {
	*p = def
	return (*boolValue)(p)
}

type boolValue bool

func (v *boolValue) String() string   { return strconv.FormatBool(bool(*v)) }
func (v *boolValue) IsBoolFlag() bool { return true }
func (v *boolValue) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*v = boolValue(b)
	return nil
}

// Enum is one of values.
func Enum(p *string, def string, values ...string) flag.Value {
	*p = def
	return &enumValue{p, values}
}

type enumValue struct {
	p      *string
	values []string
}

func (e *enumValue) String() string {
	if e == nil || e.p == nil {
		return ""
	}
	return *e.p
}

func (e *enumValue) Set(s string) error {
	for _, v := range e.values {
		if s == v {
			*e.p = s
			return nil
		}
	}
	return fmt.Errorf("want %s", orList(e.values))
}

// List is a repeatable value; with comma, each use may also hold a comma
// list (not for --header, whose values may contain commas).
func List(p *[]string, comma bool) flag.Value {
	*p = nil
	return &listValue{p, comma}
}

type listValue struct {
	p     *[]string
	comma bool
}

func (l *listValue) String() string {
	if l == nil || l.p == nil {
		return ""
	}
	return strings.Join(*l.p, ",")
}

func (l *listValue) Set(s string) error {
	if !l.comma {
		*l.p = append(*l.p, s)
		return nil
	}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l.p = append(*l.p, v)
		}
	}
	return nil
}

// Duration is a time.Duration within [min, max], written with its unit.
func Duration(p *time.Duration, def, min, max time.Duration) flag.Value {
	*p = def
	return &durationValue{p, min, max}
}

type durationValue struct {
	p        *time.Duration
	min, max time.Duration
}

func (d *durationValue) String() string {
	if d == nil || d.p == nil {
		return "0s"
	}
	return ShortDuration(*d.p)
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
		return fmt.Errorf("out of range: want a duration between %s and %s", ShortDuration(d.min), ShortDuration(d.max))
	}
	*d.p = v
	return nil
}

// ShortDuration writes 1h rather than 1h0m0s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Int is a whole number within [min, max].
func Int(p *int, def, min, max int) flag.Value {
	*p = def
	return &intValue{p, min, max}
}

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

// Float is a float64 within [min, max]; what says what it measures ("a
// fraction (0.02 is two points)").
func Float(p *float64, def, min, max float64, what string) flag.Value {
	*p = def
	return &floatValue{p, min, max, what}
}

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

// Size is a byte count within [min, max], written as a number of bytes or
// with a KiB, MiB or GiB suffix.
func Size(p *int64, def, min, max int64) flag.Value {
	*p = def
	return &sizeValue{p, min, max}
}

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
	return FormatSize(*z.p)
}

func (z *sizeValue) Set(s string) error {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(s))
	want := fmt.Sprintf("want a size between %s and %s, such as 16MiB or 1048576", FormatSize(z.min), FormatSize(z.max))
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

// FormatSize writes n in the largest binary unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []string{"GiB", "MiB", "KiB"} {
		if d := sizeUnits[u]; n >= d && n%d == 0 {
			return fmt.Sprintf("%d%s", n/d, u)
		}
	}
	return strconv.FormatInt(n, 10)
}
