package github

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

const prNumber = 7

func body(s string) string { return CommentMarker + "\n## mcp-eval\n\n" + s + "\n" }

func TestUpsertCommentCreates(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	// A person quoting our marker, and another bot's comment: neither is ours.
	f.comments = []fakeComment{
		{ID: 1, Body: "> " + CommentMarker + "\n> why did this fail?", Login: "monalisa", Type: "User"},
		{ID: 2, Body: "Coverage: 81%", Login: "codecov[bot]", Type: "Bot"},
	}
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("first"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentCreated || res.ID != 5001 || !strings.HasSuffix(res.HTMLURL, "#issuecomment-5001") {
		t.Errorf("result = %+v", res)
	}
	if n := f.callCount("POST /api/v3/repos/acme/weather-mcp/issues/7/comments"); n != 1 {
		t.Errorf("%d POSTs, want 1", n)
	}
	if f.comments[2].Body != body("first") {
		t.Errorf("created body = %q", f.comments[2].Body)
	}
}

func TestUpsertCommentEditsNotDuplicates(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.comments = []fakeComment{
		{ID: 10, Body: body("old"), Login: "github-actions[bot]", Type: "Bot"},
		{ID: 11, Body: "LGTM", Login: "monalisa", Type: "User"},
	}
	c := f.client(t, Config{})
	for i, text := range []string{"run 2", "run 3"} {
		res, err := c.UpsertKeyedComment(t.Context(), prNumber, "", body(text))
		if err != nil {
			t.Fatal(err)
		}
		if res.Action != CommentUpdated || res.ID != 10 {
			t.Errorf("upsert %d = %+v, want an update of comment 10", i, res)
		}
	}
	if n := f.callCount("POST "); n != 0 {
		t.Errorf("%d comments created, want 0", n)
	}
	if n := f.callCount("PATCH /api/v3/repos/acme/weather-mcp/issues/comments/10"); n != 2 {
		t.Errorf("%d edits, want 2", n)
	}
	if len(f.comments) != 2 || !strings.Contains(f.comments[0].Body, "run 3") {
		t.Errorf("comments = %+v", f.comments)
	}
}

// The fake stores edited bodies with CRLF, as GitHub may: still unchanged.
func TestUpsertCommentUnchangedNotRewritten(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.comments = []fakeComment{{ID: 10, Body: "placeholder", Login: "github-actions[bot]", Type: "Bot"}}
	f.comments[0].Body = strings.ReplaceAll(body("same"), "\n", "\r\n")
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("same"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentUnchanged || res.ID != 10 {
		t.Errorf("result = %+v, want unchanged", res)
	}
	if n := f.callCount("PATCH ") + f.callCount("POST "); n != 0 {
		t.Errorf("%d writes for an unchanged body, want 0", n)
	}
}

// 250 comments at 100 a page: ours is on page 2 and must be found by
// following the Link header.
func TestUpsertCommentPaginated(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	for i := range 250 {
		c := fakeComment{ID: int64(100 + i), Body: fmt.Sprintf("comment %d", i), Login: "monalisa", Type: "User"}
		if i == 150 {
			c = fakeComment{ID: int64(100 + i), Body: body("old"), Login: "github-actions[bot]", Type: "Bot"}
		}
		f.comments = append(f.comments, c)
	}
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("new"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != CommentUpdated || res.ID != 250 {
		t.Errorf("result = %+v, want comment 250 (page 2) updated", res)
	}
	if n := f.callCount("GET /api/v3/repos/acme/weather-mcp/issues/7/comments"); n != 3 {
		t.Errorf("%d comment pages read, want 3", n)
	}
	for _, c := range f.calls {
		if strings.HasPrefix(c, "GET /api/v3/repos/acme/weather-mcp/issues/7/comments") && !strings.Contains(c, "per_page=100") {
			t.Errorf("comment list without per_page=100: %s", c)
		}
	}
	if f.callCount("POST ") != 0 {
		t.Error("a duplicate comment was created")
	}
}

// Two of ours (a race between runs left both): the newest is edited.
func TestUpsertCommentEditsNewest(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.comments = []fakeComment{
		{ID: 10, Body: body("a"), Login: "github-actions[bot]", Type: "Bot"},
		{ID: 20, Body: body("b"), Login: "github-actions[bot]", Type: "Bot"},
	}
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("c"))
	if err != nil || res.ID != 20 || res.Action != CommentUpdated {
		t.Errorf("result = %+v, %v; want comment 20 updated", res, err)
	}
}

// A fork pull request's token is read-only: 403 is a warning that says
// why, and nothing else is attempted.
func TestUpsertComment403(t *testing.T) {
	t.Parallel()
	for _, endpoint := range []string{"create", "edit", "comments"} {
		t.Run(endpoint, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t, "/api/v3")
			if endpoint == "edit" {
				f.comments = []fakeComment{{ID: 10, Body: body("old"), Login: "github-actions[bot]", Type: "Bot"}}
			}
			f.fail[endpoint] = 403
			_, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("new"))
			w := wantWarning(t, err, Forbidden, "pull-requests: write")
			if w.Op != "comment" {
				t.Errorf("Op = %q", w.Op)
			}
			if !strings.Contains(w.Error(), "403 Resource not accessible by integration") {
				t.Errorf("warning %q does not carry GitHub's message", w.Error())
			}
			if endpoint == "edit" && !strings.Contains(w.Error(), "comment https://github.com/acme/weather-mcp/pull/7#issuecomment-10 (by github-actions[bot]) was not updated") {
				t.Errorf("warning %q does not name the comment and its author", w.Error())
			}
		})
	}
}

func TestUpsertCommentOutage(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.fail["create"] = 502
	_, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("x"))
	wantWarning(t, err, Unavailable, "502")
}

// A body over GitHub's limit is cut below it, with the fence closed and a
// note, and still carries the marker; one without the marker gets it.
func TestUpsertCommentBodyLimit(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	var b strings.Builder
	b.WriteString("## mcp-eval\n\n```text\n")
	for b.Len() < 300000 {
		b.WriteString("🌦 forecast output line with emoji\n")
	}
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", b.String())
	if err != nil {
		t.Fatalf("UpsertComment: %v", err) // the fake answers 422 over 65,536 characters
	}
	got := f.comments[0].Body
	if res.Action != CommentCreated || !strings.HasPrefix(got, CommentMarker+"\n## mcp-eval") {
		t.Errorf("body does not start with the marker: %q", got[:80])
	}
	if n := utf8.RuneCountInString(got); n > CommentLimit {
		t.Errorf("body has %d characters, over %d", n, CommentLimit)
	}
	if !strings.HasSuffix(got, "```\n"+commentNote) {
		t.Errorf("body end = %q", got[len(got)-200:])
	}
}

func TestLabelPresent(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	c := f.client(t, Config{})
	f.labels = []string{"bug", "Run-Evals"}
	if ok, err := c.LabelPresent(t.Context(), prNumber, "run-evals"); err != nil || !ok {
		t.Errorf("label present: %v, %v", ok, err)
	}
	f.labels = []string{"bug"}
	if ok, err := c.LabelPresent(t.Context(), prNumber, "run-evals"); err != nil || ok {
		t.Errorf("label absent: %v, %v", ok, err)
	}
	// Paginated: the label on the third page.
	f.labels = nil
	for i := range 230 {
		f.labels = append(f.labels, fmt.Sprintf("area/%d", i))
	}
	f.labels = append(f.labels, "run-evals")
	if ok, err := c.LabelPresent(t.Context(), prNumber, "run-evals"); err != nil || !ok {
		t.Errorf("label on page 3: %v, %v", ok, err)
	}
	f.fail["labels"] = 403
	_, err := c.LabelPresent(t.Context(), prNumber, "run-evals")
	wantWarning(t, err, Forbidden, "pull-requests: read")
}

// A marker inside another bot's comment (renovate[bot] quoting ours, or a
// hostile copy) is not ours: it is neither edited nor blamed; ours is
// created beside it.
func TestUpsertCommentIgnoresMarkerOfAnotherBot(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.comments = []fakeComment{{ID: 10, Body: body("renovate's copy"), Login: "renovate[bot]", Type: "Bot"}}
	f.fail["edit"] = 403 // what editing someone else's comment would get
	res, err := f.client(t, Config{}).UpsertKeyedComment(t.Context(), prNumber, "", body("ours"))
	if err != nil || res.Action != CommentCreated {
		t.Fatalf("result = %+v, %v; want a comment of our own", res, err)
	}
	if f.callCount("PATCH ") != 0 || f.comments[0].Body != body("renovate's copy") {
		t.Error("another bot's comment was edited")
	}
}

// With a personal access token the comments are the person's: GET /user
// says who, and only that login's marked comment is edited.
func TestUpsertCommentWithPAT(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.token, f.user = "github_pat_11ABCDEFG0123456789", "release-bot-user"
	f.comments = []fakeComment{
		{ID: 10, Body: body("the bot's, from before"), Login: "github-actions[bot]", Type: "Bot"},
		{ID: 11, Body: body("ours"), Login: "release-bot-user", Type: "User"},
	}
	c := f.client(t, Config{})
	for range 3 {
		res, err := c.UpsertKeyedComment(t.Context(), prNumber, "", body("new"))
		if err != nil || res.ID != 11 {
			t.Fatalf("result = %+v, %v; want comment 11 (the PAT's user) each time", res, err)
		}
	}
	if n := f.callCount("GET /api/v3/user"); n != 1 {
		t.Errorf("GET /user %d times, want once per client", n)
	}
	if f.callCount("POST ") != 0 || len(f.comments) != 2 {
		t.Errorf("a PAT posted a new comment instead of editing its own: %+v", f.comments)
	}
}

// Two jobs of one pull request (a matrix, or two workflows) keep one
// comment each; an older bare-marker comment is adopted by the first key.
func TestUpsertKeyedCommentsTwoKeys(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t, "/api/v3")
	f.comments = []fakeComment{{ID: 10, Body: body("from an older mcp-eval"), Login: "github-actions[bot]", Type: "Bot"}}
	c := f.client(t, Config{})
	keyA, keyB := NormalizeKey("mcp-eval / eval / {\n  \"node\": 20\n}"), NormalizeKey("mcp-eval / eval / {\n  \"node\": 22\n}")
	if Marker(keyA) == Marker(keyB) || strings.Contains(Marker(keyA), keyA) {
		t.Fatalf("markers %q %q: want distinct, hashed", Marker(keyA), Marker(keyB))
	}
	ra, err := c.UpsertKeyedComment(t.Context(), prNumber, keyA, body("node 20"))
	if err != nil || ra.ID != 10 || ra.Action != CommentUpdated {
		t.Fatalf("key A: %+v %v; want the bare-marker comment adopted", ra, err)
	}
	rb, err := c.UpsertKeyedComment(t.Context(), prNumber, keyB, body("node 22"))
	if err != nil || rb.Action != CommentCreated {
		t.Fatalf("key B: %+v %v; want a comment of its own", rb, err)
	}
	for i := range 2 {
		ra, _ = c.UpsertKeyedComment(t.Context(), prNumber, keyA, body(fmt.Sprint("node 20 run ", i)))
		rb, _ = c.UpsertKeyedComment(t.Context(), prNumber, keyB, body(fmt.Sprint("node 22 run ", i)))
		if ra.ID != 10 || rb.ID == 10 || ra.Action != CommentUpdated || rb.Action != CommentUpdated {
			t.Errorf("run %d: A %+v, B %+v", i, ra, rb)
		}
	}
	if len(f.comments) != 2 {
		t.Fatalf("%d comments, want one per key", len(f.comments))
	}
	for _, cm := range f.comments {
		first := strings.TrimSpace(strings.SplitN(cm.Body, "\n", 2)[0])
		if first != Marker(keyA) && first != Marker(keyB) {
			t.Errorf("comment %d starts %q, want a keyed marker", cm.ID, first)
		}
	}
	if !strings.Contains(f.comments[0].Body, "node 20 run 1") || !strings.Contains(f.comments[1].Body, "node 22 run 1") {
		t.Errorf("each key's comment must hold its own latest run: %q / %q", f.comments[0].Body, f.comments[1].Body)
	}
}
