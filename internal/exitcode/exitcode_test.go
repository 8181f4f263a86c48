package exitcode

import (
	"errors"
	"flag"
	"fmt"
	"testing"
)

// legacy is an error type of another package that chose its code.
type legacy struct{}

func (legacy) Error() string { return "legacy" }
func (legacy) ExitCode() int { return NoEval }

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, OK},
		{"help", flag.ErrHelp, OK},
		{"wrapped help", fmt.Errorf("parse: %w", flag.ErrHelp), OK},
		{"usage", Usagef("--runs %d", 0), Usage},
		{"config", Configf("%s:%d: bad", "f.yaml", 3), Usage},
		{"config of an error", Config(errors.New("bad")), Usage},
		{"chosen", New(NoEval, "unreachable"), NoEval},
		{"wrapped chosen", fmt.Errorf("run: %w", New(Failed, "")), Failed},
		{"another package's coder", fmt.Errorf("start: %w", legacy{}), NoEval},
		{"plain error", errors.New("boom"), Failed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %d, want %d", tt.err, got, tt.want)
			}
		})
	}
}
