package config

import (
	"flag"
	"strings"
	"testing"
)

// TestNoServerNamesServerStart: a user with a server to start over HTTP
// finds --server-start where they look first: the "no server" error and
// the synopsis of every command that evaluates a server.
func TestNoServerNamesServerStart(t *testing.T) {
	err := Default().validateServer()
	if err == nil || !strings.Contains(err.Error(), "--server-start 'CMD' --server-url URL") ||
		!strings.Contains(err.Error(), "--server-url URL") || !strings.Contains(err.Error(), "--server-cmd 'CMD ARGS'") {
		t.Errorf("no server: %v; want --server-url, --server-start and --server-cmd named", err)
	}
	for _, cmd := range []string{"conformance", "run"} {
		if !strings.Contains(Commands[cmd], "--server-start 'CMD' --server-url URL") {
			t.Errorf("mcp-eval %s --help synopsis lacks --server-start: %q", cmd, Commands[cmd])
		}
		for _, l := range strings.Split(Usage, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "mcp-eval "+cmd+" ") && !strings.Contains(l, "--server-start") {
				t.Errorf("mcp-eval --help: %q lacks --server-start", l)
			}
		}
	}
}

// TestHelpGroupedByPurpose: run's and conformance's --help list their flags
// under headings by purpose, in flagGroups' order, each flag once with its
// default, instead of one alphabetical list of dozens.
func TestHelpGroupedByPurpose(t *testing.T) {
	for _, cmd := range []string{"run", "conformance"} {
		var b strings.Builder
		PrintHelp(cmd, &b)
		out := b.String()
		last := -1
		for _, g := range flagGroups {
			i := strings.Index(out, "\n"+g.title+":\n")
			if cmd == "conformance" && i < 0 && strings.HasPrefix(g.title, "Models") {
				continue // the model flags are run's only
			}
			if i < 0 || i < last {
				t.Errorf("%s --help: heading %q missing or out of order", cmd, g.title)
			}
			last = i
		}
		server := out[strings.Index(out, "\nThe server:\n"):]
		server = server[:strings.Index(server[1:], "\n\n")+1]
		for _, want := range []string{"-server-url URL", "-server-start command", "-timeout duration", "(default 10s)"} {
			if !strings.Contains(server, want) {
				t.Errorf("%s --help: the server's group lacks %q:\n%s", cmd, want, server)
			}
		}
		Options().FlagSet(cmd, cmd).VisitAll(func(f *flag.Flag) {
			if n := strings.Count(out, "\n  -"+f.Name+" ") + strings.Count(out, "\n  -"+f.Name+"\n"); n != 1 {
				t.Errorf("%s --help lists -%s %d times", cmd, f.Name, n)
			}
		})
	}
}
