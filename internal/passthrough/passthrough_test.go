package passthrough

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestListenerBounds: every request is answered 502 and recorded with its
// headers, a body is kept up to MaxBody, and beyond MaxRequests the first
// half and the latest half are kept, in order, those between counted.
func TestListenerBounds(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	hc := &http.Client{}
	for i := 0; i < MaxRequests+3; i++ {
		req, _ := http.NewRequest(http.MethodPost, "http://"+l.Addr()+"/v1/things?x="+strconv.Itoa(i), strings.NewReader(strings.Repeat("b", MaxBody+10)))
		req.Header.Set("Authorization", "Bearer upstream-token")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Fatalf("HTTP %d, want 502", resp.StatusCode)
		}
	}
	reqs, dropped := l.Requests()
	if len(reqs) != MaxRequests || dropped != 3 {
		t.Errorf("%d kept, %d dropped; want %d, 3", len(reqs), dropped, MaxRequests)
	}
	for i, r := range reqs {
		want := i
		if i >= MaxRequests/2 {
			want = i + 3 // the three after the first half went
		}
		if r.URL != "/v1/things?x="+strconv.Itoa(want) {
			t.Fatalf("request %d kept is %s, want x=%d", i, r.URL, want)
		}
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.URL != "/v1/things?x=0" || r.Header.Get("Authorization") != "Bearer upstream-token" || len(r.Body) != MaxBody {
		t.Errorf("recorded %s %s %q, body %d bytes", r.Method, r.URL, r.Header.Get("Authorization"), len(r.Body))
	}
}
