package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBoundedFlags: every size, count and duration flag is held to a sane
// range where it is set, with a message naming the flag and what it wants,
// and the config file's line when the value came from there.
func TestBoundedFlags(t *testing.T) {
	tests := []struct {
		flag, value string
		wantErr     string // "" = accepted
		check       func(*Config) bool
	}{
		{"max-message-bytes", "1024", "", func(c *Config) bool { return c.MaxMessageBytes == 1024 }},
		{"max-message-bytes", "16MiB", "", func(c *Config) bool { return c.MaxMessageBytes == 16<<20 }},
		{"max-message-bytes", "1GiB", "", func(c *Config) bool { return c.MaxMessageBytes == 1<<30 }},
		{"max-message-bytes", "1023", "want a size between 1KiB and 1GiB", nil},
		{"max-message-bytes", "9223372036854775807", "want a size between 1KiB and 1GiB", nil},
		{"max-message-bytes", "8589934592GiB", "want a size between 1KiB and 1GiB", nil},
		{"max-message-bytes", "2GiB", "want a size between 1KiB and 1GiB", nil},
		{"max-message-bytes", "-5", "want a size", nil},
		{"timeout", "100ms", "", func(c *Config) bool { return c.Timeout == 100*time.Millisecond }},
		{"timeout", "1h", "", func(c *Config) bool { return c.Timeout == time.Hour }},
		{"timeout", "99ms", "out of range: want a duration between 100ms and 1h", nil},
		{"timeout", "2562047h", "out of range", nil},
		{"timeout", "0s", "out of range", nil},
		{"timeout", "-1s", "out of range", nil},
		{"timeout", "10", "want a duration with its unit, such as 10s", nil},
		{"timeout", "soon", "want a duration such as 10s", nil},
		{"start-timeout", "90s", "", func(c *Config) bool { return c.StartTimeout == 90*time.Second }},
		{"start-timeout", "10ms", "out of range: want a duration between 100ms and 1h", nil},
		{"start-timeout", "48h", "out of range", nil},
		{"runs", "1", "", func(c *Config) bool { return c.Runs == 1 }},
		{"runs", "1000", "", func(c *Config) bool { return c.Runs == 1000 }},
		{"runs", "0", "want a whole number between 1 and 1000", nil},
		{"runs", "1001", "want a whole number between 1 and 1000", nil},
		{"runs", "five", "want a whole number between 1 and 1000", nil},
		{"concurrency", "256", "", func(c *Config) bool { return c.Concurrency == 256 }},
		{"concurrency", "0", "want a whole number between 1 and 256", nil},
		{"concurrency", "100000", "want a whole number between 1 and 256", nil},
		{"max-drop", "0", "", func(c *Config) bool { return c.MaxDrop == 0 }},
		{"max-drop", "1.5", "want a fraction (0.02 is two points) between 0 and 1", nil},
		{"max-drop", "NaN", "want a fraction", nil},
		{"max-latency-increase", "0.25", "", func(c *Config) bool { return c.Gate.MaxLatencyIncrease == 0.25 }},
		{"max-latency-increase", "-1", "want a relative increase", nil},
		{"max-cost-increase", "1e9", "want a relative increase", nil},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			base := []string{"--server-url", "http://127.0.0.1:1/mcp"}
			cfg, err := Parse("run", append(base, "--"+tt.flag, tt.value), noEnv)
			if tt.wantErr == "" {
				if err != nil || !tt.check(cfg) {
					t.Fatalf("--%s %s: err %v, config %+v", tt.flag, tt.value, err, cfg)
				}
				return
			}
			want := "--" + tt.flag + " " + tt.value + ": " + tt.wantErr
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("flag: error %v, want it to start with %q", err, want)
			}
			// The same value from the config file names the file and line.
			p := filepath.Join(dir, "mcp-eval.yaml")
			os.WriteFile(p, []byte("server-url: http://127.0.0.1:1/mcp\n"+tt.flag+": "+tt.value+"\n"), 0o644)
			_, err = Parse("run", []string{"--config", p}, noEnv)
			want = p + ":2: " + tt.flag + ": " + tt.wantErr
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("config file: error %v, want it to start with %q", err, want)
			}
		})
	}
}

func noEnv(string) string { return "" }

func TestLayersAcceptBehaviour(t *testing.T) {
	cfg, err := Parse("run", []string{"--server-url", "http://127.0.0.1:1/mcp", "--layers", "conformance,behaviour", "--models", "openai:m"}, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.ResolvedLayers(); !slices.Equal(got, []string{"conformance", "behavior"}) {
		t.Errorf("layers %v", got)
	}
}
