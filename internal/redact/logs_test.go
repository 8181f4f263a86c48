package redact

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"testing"
)

// Logs masks every secret of every redactor handed to MaskLogs, those
// added later included, and the cut ends of a secret in the bytes net/http
// quotes from a connection.
func TestLogsMaskEveryRunsSecrets(t *testing.T) {
	var out bytes.Buffer
	SetLogOutput(&out)
	defer SetLogOutput(os.Stderr)
	l := log.New(Logs, "", 0)
	const header, learnt = "sk-logs-header-0123456789", "sk-logs-learnt-9876543210"
	r := mustNew(t, Secret{"--header X-Api-Key", header})
	MaskLogs(r)
	if err := r.Add(Secret{"OAuth access token", learnt}); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"key " + header, "key ***"},
		{"token " + learnt, "token ***"},
		// The body took the start of the secret, the buffer's end cut the
		// next one.
		{fmt.Sprintf("Unsolicited response received on idle HTTP channel starting with %q; err=<nil>", header[9:]+`"} x `+learnt[:10]),
			`Unsolicited response received on idle HTTP channel starting with "***\"} x ***"; err=<nil>`},
		// Fewer than four bytes of a secret say nothing of it.
		{fmt.Sprintf("Unsolicited response received on idle HTTP channel starting with %q; err=<nil>", header[len(header)-3:]+` ok`),
			fmt.Sprintf("Unsolicited response received on idle HTTP channel starting with %q; err=<nil>", header[len(header)-3:]+` ok`)},
	}
	for _, tt := range tests {
		out.Reset()
		l.Print(tt.in)
		if got := out.String(); got != tt.want+"\n" {
			t.Errorf("logged %q\n got %q\nwant %q", tt.in, got, tt.want+"\n")
		}
	}
}
