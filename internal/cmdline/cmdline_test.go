package cmdline

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "go run ./examples/weather-server", want: []string{"go", "run", "./examples/weather-server"}},
		{in: `node server.js --name "my server"`, want: []string{"node", "server.js", "--name", "my server"}},
		{in: `sh -c 'echo $HOME; exit 1'`, want: []string{"sh", "-c", "echo $HOME; exit 1"}},
		{in: `a\ b "x\"y" '' 'it'\''s'`, want: []string{"a b", `x"y`, "", "it's"}},
		// Nothing is expanded: no shell runs the command.
		{in: "srv $HOME `date` #x ~", want: []string{"srv", "$HOME", "`date`", "#x", "~"}},
		{in: "srv\t--a\n--b", want: []string{"srv", "--a", "--b"}},
		{in: "  ", wantErr: "empty command"},
		{in: `node "unterminated`, wantErr: "unterminated double quote"},
		{in: `node 'unterminated`, wantErr: "unterminated single quote"},
		{in: `node x\`, wantErr: "a backslash ends the command"},
		// POSIX: inside double quotes a backslash escapes only $ ` " \ and a
		// newline, so a Windows path keeps its backslashes.
		{in: `node "C:\srv\index.js" "a\$b" "\\"`, want: []string{"node", `C:\srv\index.js`, "a$b", `\`}},
		// No shell runs the command: operators and backquotes are
		// arguments like any other.
		{in: "node x; rm y", want: []string{"node", "x;", "rm", "y"}},
		{in: "node `x", want: []string{"node", "`x"}},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Split(%q) = %q, %v; want error %q", tt.in, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Split(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Split(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
