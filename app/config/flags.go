package config

import (
	"flag"
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-eval/mcp-eval/internal/suggest"
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
