// Package option declares each option of mcp-eval once: its flag and
// mcp-eval.yaml key, its type and bounds (the value it is bound to), its
// default, the commands and layers that read it, its GitHub Action input,
// whether it is a secret, and its help. The flags of every command, their
// --help, the config file's keys, conformance's refusal of the model
// layers' flags, the Action's INPUT_* mapping, action.yml's inputs and the
// README's tables are made or checked from the declarations, so that no
// list of options is kept by hand.
//
// A package that owns some options declares them on a Set (a Declare
// method beside the fields they fill); app/config gathers every Set of a
// run. It imports only the standard library and internal/suggest.
package option

import (
	"flag"
	"fmt"
	"slices"
	"strings"
)

// The commands an option can belong to.
const (
	Run         = "run"
	Conformance = "conformance"
	Gate        = "gate"
	Merge       = "merge"
)

// The layers an option can be read by (report.Layer* by value: this
// package imports no other).
const (
	LayerConformance = "conformance"
	LayerBehavior    = "behavior"
	LayerResilience  = "resilience"
	LayerTelemetry   = "telemetry"
)

// Model are the layers that call models: an option read only by them is
// no option of mcp-eval conformance.
var Model = []string{LayerBehavior, LayerResilience}

// Def is one option, declared once.
type Def struct {
	// Name is the flag (--name) and the mcp-eval.yaml key; "" for an input
	// of the GitHub Action that no command takes as a flag.
	Name string
	// Help is the option's line in --help; a word in backquotes names its
	// value (flag.UnquoteUsage), as in "a `duration` from 100ms to 1h".
	Help string
	// Doc, when set, is the longer text of the README's flag table and of
	// action.yml, in place of Help.
	Doc string
	// Default is what the docs give as the default when the value's own is
	// not the whole story ("`.mcp-eval/waivers.yaml` if present", "the
	// provider's"); else the bound value's default is shown.
	Default string
	// Layers are the layers that read the option; nil means the run
	// itself (every layer).
	Layers []string
	// Commands are the commands that take the option as a flag. Nil means
	// run, and conformance too unless Layers names only model layers.
	Commands []string
	// Input is the option's GitHub Action input, if it has one.
	Input *Input
	// Secret marks an option whose values are credentials: masked in every
	// output, and in the Action's log (github.MaskInputs).
	Secret bool
	// Value holds the option's value with its type and bounds; it has the
	// default from the start.
	Value flag.Value
	def   string
}

// Input is an option's GitHub Action input. A flag-backed input reaches
// the run as its flag (--name=value), so that mcp-eval.yaml and the
// defaults apply exactly as on the command line.
type Input struct {
	// Name is the input's name when it is not the option's (headers for
	// --header).
	Name string
	// Default is action.yml's default. Flag-backed inputs default to ""
	// so that mcp-eval.yaml and the CLI's defaults apply.
	Default string
	// Doc is action.yml's description when the option's Doc or Help does
	// not fit the Action.
	Doc string
	// Lines: one value per line, each its own flag (headers, whose values
	// may hold commas). List: a list on lines or commas, passed as one
	// comma list.
	Lines, List bool
	// Own marks an input the action reads itself and does not pass on as
	// its flag (layers: the action chooses them per event).
	Own bool
	// Ref passes a secret input to its flag by reference: the flag gets
	// ${INPUT_NAME}, which it expands from the environment like a $VAR,
	// so that the value never stands among the arguments; a value that is
	// itself a $VAR or ${VAR} reference is passed as it is.
	Ref bool
}

// InputName is the Action input of d ("" when it has none).
func (d *Def) InputName() string {
	switch {
	case d.Input == nil:
		return ""
	case d.Input.Name != "":
		return d.Input.Name
	}
	return d.Name
}

// For reports whether command cmd takes d as a flag.
func (d *Def) For(cmd string) bool {
	if d.Name == "" {
		return false
	}
	if d.Commands != nil {
		return slices.Contains(d.Commands, cmd)
	}
	switch cmd {
	case Run:
		return true
	case Conformance:
		return d.Layers == nil || slices.Contains(d.Layers, LayerConformance)
	}
	return false
}

// DocDefault is the default as the docs show it: Default when set, else
// the value's own ("" for a zero value).
func (d *Def) DocDefault() string {
	if d.Default != "" {
		return d.Default
	}
	return d.def
}

// Usage is d's --help line: Help, with the values of an enumeration.
func (d *Def) Usage() string {
	if e, ok := d.Value.(*enumValue); ok {
		return d.Help + ": " + orList(e.values)
	}
	return d.Help
}

// Text is the longer text of d: Doc, else its usage as --help shows it
// (without the backquotes that name the value).
func (d *Def) Text() string {
	if d.Doc != "" {
		return d.Doc
	}
	return strings.ReplaceAll(d.Usage(), "`", "")
}

// IsBool reports whether d is a switch (--strict, with no value).
func (d *Def) IsBool() bool {
	b, ok := d.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// IsList reports whether d takes a list (repeatable, or a comma list): a
// List value, or one of its own that says so (IsListFlag).
func (d *Def) IsList() bool {
	if l, ok := d.Value.(interface{ IsListFlag() bool }); ok {
		return l.IsListFlag()
	}
	_, ok := d.Value.(*listValue)
	return ok
}

// Set is the options of one part of the program, in declaration order.
type Set struct {
	defs   []*Def
	byName map[string]*Def
}

// Add declares d with its value v (which holds the default) and returns
// it. Two options of one name, or two inputs of one name, are a
// programming error.
func (s *Set) Add(d Def, v flag.Value) *Def {
	if s.byName == nil {
		s.byName = map[string]*Def{}
	}
	d.Value = v
	if !isZero(v) {
		d.def = v.String()
	}
	key := d.Name
	if key == "" {
		key = "input:" + d.InputName()
	}
	if key == "input:" || s.byName[key] != nil {
		panic(fmt.Sprintf("option: %q declared twice or without a name", key))
	}
	if in := d.InputName(); in != "" && d.Name != "" {
		if s.byName["input:"+in] != nil {
			panic(fmt.Sprintf("option: input %q declared twice", in))
		}
		s.byName["input:"+in] = &d
	}
	s.byName[key] = &d
	s.defs = append(s.defs, &d)
	return &d
}

// Include adds every option of o to s.
func (s *Set) Include(o *Set) {
	for _, d := range o.defs {
		s.Add(*d, d.Value)
	}
}

// Defs are the options in declaration order.
func (s *Set) Defs() []*Def { return s.defs }

// Lookup is the option with flag name, or nil.
func (s *Set) Lookup(name string) *Def {
	if name == "" {
		return nil
	}
	return s.byName[name]
}

// Input is the option behind Action input name, or nil.
func (s *Set) Input(name string) *Def {
	if d := s.byName["input:"+name]; d != nil {
		return d
	}
	return nil
}

// Inputs are the options with an Action input, in declaration order.
func (s *Set) Inputs() []*Def {
	var out []*Def
	for _, d := range s.Defs() {
		if d.Input != nil {
			out = append(out, d)
		}
	}
	return out
}

// FlagSet binds the options of cmd to a new flag set named name: one
// source for parsing and --help.
func (s *Set) FlagSet(name, cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	for _, d := range s.defs {
		if !d.For(cmd) {
			continue
		}
		// Text and switches are bound as the flag package's own, so that
		// --help names and quotes them as it always has.
		switch v := d.Value.(type) {
		case *stringValue:
			fs.StringVar((*string)(v), d.Name, string(*v), d.Usage())
		case *boolValue:
			fs.BoolVar((*bool)(v), d.Name, bool(*v), d.Usage())
		default:
			fs.Var(d.Value, d.Name, d.Usage())
		}
	}
	return fs
}

// isZero reports whether v shows its type's zero value (flag's own rule
// for leaving "(default …)" out of --help).
func isZero(v flag.Value) bool {
	switch s := v.String(); s {
	case "", "0", "0s", "false":
		return true
	}
	return false
}

func orList(vals []string) string {
	switch len(vals) {
	case 0:
		return ""
	case 1:
		return vals[0]
	}
	return strings.Join(vals[:len(vals)-1], ", ") + " or " + vals[len(vals)-1]
}
