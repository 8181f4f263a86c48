package option

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ReadInputs reads the Action inputs of s through get (the input's value,
// trimmed, as the runner passes INPUT_<NAME>). An input of its own (no
// flag) is set on its value; a flag-backed input becomes its flag,
// --name=value (so that a value starting with "-" stays a value), and is
// left out when empty so that mcp-eval.yaml and the defaults apply. The
// runner enforces neither required inputs nor types, so switches are
// checked here. Every problem is reported, joined.
func (s *Set) ReadInputs(get func(input string) string) (args []string, err error) {
	var errs []error
	for _, d := range s.Inputs() {
		name := d.InputName()
		v := get(name)
		if v == "" || d.Input.Own {
			continue
		}
		if d.IsBool() {
			b, err := InputBool(name, v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			v = fmt.Sprint(b)
		}
		if d.Name == "" {
			if err := d.Value.Set(v); err != nil {
				errs = append(errs, fmt.Errorf("input %s: %v", name, err))
			}
			continue
		}
		switch {
		case d.Input.Ref:
			if !envRef.MatchString(v) {
				v = "${INPUT_" + strings.ToUpper(name) + "}"
			}
			args = append(args, "--"+d.Name+"="+v)
		case d.Input.Lines:
			for _, l := range Lines(v) {
				args = append(args, "--"+d.Name+"="+l)
			}
		case d.Input.List:
			if l := SplitList(v); len(l) > 0 {
				args = append(args, "--"+d.Name+"="+strings.Join(l, ","))
			}
		default:
			args = append(args, "--"+d.Name+"="+v)
		}
	}
	return args, errors.Join(errs...)
}

// envRef matches a whole $VAR or ${VAR} reference.
var envRef = regexp.MustCompile(`^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]+\})$`)

// IsRef reports whether v is a whole $VAR or ${VAR} reference.
func IsRef(v string) bool { return envRef.MatchString(strings.TrimSpace(v)) }

// InputBool accepts the spellings of the YAML 1.2 core schema that the
// official toolkit's getBooleanInput accepts, and nothing else, so that a
// typo such as "ture" is an error rather than a silent false.
func InputBool(name, v string) (bool, error) {
	switch v {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, fmt.Errorf("input %s: %q is not a boolean (want true or false)", name, v)
}

// Lines splits a multi-line input, dropping blank lines.
func Lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// SplitList splits an input on newlines and commas: YAML block scalars are
// the natural way to write long lists in a workflow.
func SplitList(s string) []string {
	var out []string
	for _, l := range Lines(s) {
		for _, f := range strings.Split(l, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}
