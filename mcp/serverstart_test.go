package mcp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A --server-start server that never answers at the URL is reported every
// few seconds, with the URL it printed when that is another one (before the fix,
// a wrong port waited the whole --start-timeout in silence), and the error
// quotes that line.
func TestStartServerProgress(t *testing.T) {
	old := waitingEvery
	waitingEvery = 200 * time.Millisecond
	defer func() { waitingEvery = old }()
	var mu sync.Mutex
	var printed []string
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp" // nothing answers there once closed
	l.Close()
	argv := []string{"sh", "-c", "echo 'listening on http://127.0.0.1:8931/mcp'; exec sleep 30"}
	_, err = StartServer(context.Background(), argv, url, 1200*time.Millisecond, io.Discard, func(_ time.Duration, p string) {
		mu.Lock()
		printed = append(printed, p)
		mu.Unlock()
	})
	if err == nil || !strings.Contains(err.Error(), "nothing answered at "+url) || !strings.Contains(err.Error(), `the server printed "listening on http://127.0.0.1:8931/mcp"`) {
		t.Fatalf("err = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(printed) < 3 {
		t.Errorf("told %d times in 1.2 s, want every 200 ms", len(printed))
	}
	if len(printed) > 0 && printed[len(printed)-1] != "listening on http://127.0.0.1:8931/mcp" {
		t.Errorf("printed %q", printed[len(printed)-1])
	}
}

// A --server-start server that printed another address and answers there
// fails with that address once the grace has passed, not after the whole
// --start-timeout (here two minutes: the message says which path ended it).
func TestStartServerAnswersElsewhere(t *testing.T) {
	other := httptest.NewServer(http.NotFoundHandler()) // where the server "really" listens
	t.Cleanup(other.Close)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/mcp" // the wrong port given
	l.Close()
	argv := []string{"sh", "-c", "echo 'listening on " + other.URL + "/mcp'; exec sleep 300"}
	_, err = StartServer(context.Background(), argv, url, 2*time.Minute, io.Discard, nil)
	want := "nothing answers at " + url + ", but the server printed \"listening on " + other.URL + "/mcp\" and answers at " + other.URL + "/mcp: is --server-url " + other.URL + "/mcp what you meant?"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
}
