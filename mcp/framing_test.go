package mcp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawHTTP serves every request on a loopback listener with the bytes
// answer returns for it, written as they are, then closes the connection:
// a server whose HTTP framing net/http's server would never produce.
func rawHTTP(t *testing.T, answer func() string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				req.Body.Close()
				c.Write([]byte(answer()))
			}()
		}
	}()
	return "http://" + l.Addr().String() + "/mcp"
}

const framedAnswer = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":[]}}`

// TestFramingErrors: a body short of its Content-Length and a broken
// chunked coding are each an AnomalyFraming saying what happened, while a
// correct answer of either framing is none; what did arrive is still read.
func TestFramingErrors(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
	cases := []struct {
		name, answer, detail string
	}{
		{"content-length", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(framedAnswer)+5, framedAnswer), fmt.Sprintf("ended after %d bytes of the %d its Content-Length declares", len(framedAnswer), len(framedAnswer)+5)},
		{"chunk longer than its data", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(framedAnswer)+40, framedAnswer), "chunked body"},
		{"chunk size not hex", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%d\r\n%s\r\nzz\r\n\r\n", len(framedAnswer), framedAnswer), "chunked body"},
		{"good content-length", head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(framedAnswer), framedAnswer), ""},
		{"good chunked", head + fmt.Sprintf("Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n", len(framedAnswer), framedAnswer), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			url := rawHTTP(t, func() string { return c.answer })
			tr := &HTTP{URL: url}
			defer tr.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			x, _ := tr.Exchange(ctx, &Outgoing{ID: []byte("1"), Method: "tools/list", Body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
			var got []Anomaly
			for _, a := range tr.Anomalies() {
				if a.Kind == AnomalyFraming {
					got = append(got, a)
				}
			}
			if c.detail == "" {
				if len(got) != 0 || x.Response == nil {
					t.Fatalf("anomalies %+v, response %v", got, x.Response)
				}
				return
			}
			if len(got) != 1 || !strings.Contains(got[0].Detail, c.detail) || !strings.Contains(got[0].Detail, "tools/list") {
				t.Fatalf("framing anomalies %+v, want one saying %q", got, c.detail)
			}
			if !strings.Contains(string(x.Body), `"tools":[]`) {
				t.Errorf("what arrived was not kept: %q", x.Body)
			}
		})
	}
}
