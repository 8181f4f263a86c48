package github

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v93/github"

	"github.com/mcp-eval/mcp-eval/report"
)

// CommentMarker is the hidden HTML comment that identifies mcp-eval's
// sticky pull request comment. It is the renderer's constant, so the two
// cannot drift apart: report.WriteComment puts it on the first line, and
// UpsertKeyedComment adds it if a body lacks it.
const CommentMarker = report.CommentMarker

// CommentLimit is where UpsertKeyedComment cuts a body. GitHub rejects bodies
// over 65,536 characters with a 422; the margin covers its own counting.
const CommentLimit = 65000

const commentNote = "\n\n_This comment was cut to fit GitHub's size limit; the job summary and the report artifact have everything._\n"

// botLogin is the author of comments made with the workflow's GITHUB_TOKEN.
const botLogin = "github-actions[bot]"

const (
	maxCommentPages = 30 // 3,000 comments
	maxLabelPages   = 10
	commentPerms    = "the workflow needs permissions: pull-requests: write; pull requests from forks and Dependabot only get a read-only token"
	labelPerms      = "the workflow needs permissions: pull-requests: read"
)

// Comment outcomes reported by UpsertKeyedComment.
const (
	CommentCreated   = "created"
	CommentUpdated   = "updated"
	CommentUnchanged = "unchanged"
)

// CommentResult says what UpsertKeyedComment did.
type CommentResult struct {
	Action  string // CommentCreated, CommentUpdated or CommentUnchanged
	ID      int64
	HTMLURL string
}

// Marker is the hidden first line that identifies the comment of key:
// CommentMarker for "", else the marker with a hash of the key, so that
// any key (a workflow name, JSON of the matrix) is safe inside an HTML
// comment and jobs of one pull request never overwrite each other's.
func Marker(key string) string {
	if key == "" {
		return CommentMarker
	}
	sum := sha256.Sum256([]byte(key))
	return "<!-- mcp-eval:comment key=" + hex.EncodeToString(sum[:8]) + " -->"
}

// DefaultCommentKey is the comment key when the comment-key input is
// empty: the workflow and the job (action.yml's default adds the matrix
// values, which only the runner's expression context knows).
func DefaultCommentKey(getenv func(string) string) string {
	return getenv("GITHUB_WORKFLOW") + " / " + getenv("GITHUB_JOB")
}

// KeyLabel is key as a comment shows it: the " / null" that action.yml's
// default key gets from toJSON(matrix) in a job without a matrix is
// dropped. The marker keeps hashing the key itself.
func KeyLabel(key string) string { return strings.TrimSuffix(key, " / null") }

// NormalizeKey folds the white space of a key, since toJSON(matrix) in
// action.yml's default spreads over lines.
func NormalizeKey(key string) string { return strings.Join(strings.Fields(key), " ") }

// UpsertKeyedComment keeps one mcp-eval comment per key on the pull
// request. A comment is ours when its first line is the key's Marker and
// its author is the identity the token really is (Identity): a marker
// quoted by a person or pasted by another bot (renovate[bot]) is never
// taken, so its edit can neither be refused nor hijack someone's text.
// A comment of ours with the bare marker (an older mcp-eval) is adopted
// for a key that has none yet. The newest match is edited, left alone
// when the body is unchanged (an edit notifies subscribers), else a
// comment is created. The body is cut below GitHub's size limit. The error
// is a *Warning; Forbidden is the expected outcome on fork pull requests.
func (c *Client) UpsertKeyedComment(ctx context.Context, prNumber int, key, body string) (CommentResult, error) {
	marker := Marker(key)
	if rest, ok := strings.CutPrefix(body, CommentMarker+"\n"); ok {
		body = rest
	}
	body = marker + "\n" + body
	body = truncateMarkdown(body, CommentLimit, utf16Cost, commentNote)

	me, err := c.Identity(ctx)
	if err != nil {
		return CommentResult{}, err
	}
	var ours, legacy *gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range maxCommentPages {
		list, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, prNumber, opts)
		if err != nil {
			return CommentResult{}, apiWarning("comment", "the pull request comment was not written: its comments could not be listed", commentPerms, err)
		}
		// Comments come oldest first; the last match is the newest.
		for _, cm := range list {
			if !strings.EqualFold(cm.GetUser().GetLogin(), me) {
				continue
			}
			switch firstLine(cm.GetBody()) {
			case marker:
				ours = cm
			case CommentMarker:
				legacy = cm
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if ours == nil && key != "" {
		ours = legacy
	}

	if ours != nil {
		res := CommentResult{Action: CommentUnchanged, ID: ours.GetID(), HTMLURL: ours.GetHTMLURL()}
		if sameBody(ours.GetBody(), body) {
			return res, nil
		}
		edited, _, err := c.gh.Issues.UpdateComment(ctx, c.owner, c.repo, ours.GetID(), gh.IssueCommentRequest{Body: body})
		if err != nil {
			what := fmt.Sprintf("the pull request comment %s (by %s) was not updated", orID(ours), ours.GetUser().GetLogin())
			return CommentResult{}, apiWarning("comment", what, commentPerms, err)
		}
		res.Action = CommentUpdated
		if u := edited.GetHTMLURL(); u != "" {
			res.HTMLURL = u
		}
		return res, nil
	}
	created, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, prNumber, gh.IssueCommentRequest{Body: body})
	if err != nil {
		return CommentResult{}, apiWarning("comment", "the pull request comment was not written", commentPerms, err)
	}
	return CommentResult{Action: CommentCreated, ID: created.GetID(), HTMLURL: created.GetHTMLURL()}, nil
}

func orID(cm *gh.IssueComment) string {
	if u := cm.GetHTMLURL(); u != "" {
		return u
	}
	return fmt.Sprintf("#%d", cm.GetID())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Identity is the login the token writes comments as. GITHUB_TOKEN and
// other installation tokens (ghs_) write as github-actions[bot] and may
// not call GET /user; any other token (a PAT: ghp_, github_pat_) is asked
// with GET /user, once per client. When GET /user is refused the bot is
// assumed, which only risks a second comment, never taking someone else's.
func (c *Client) Identity(ctx context.Context) (string, error) {
	c.idOnce.Do(func() {
		if strings.HasPrefix(c.cfg.Token, "ghs_") {
			c.id = botLogin
			return
		}
		u, _, err := c.gh.Users.Get(ctx, "")
		var er *gh.ErrorResponse
		switch {
		case err == nil && u.GetLogin() != "":
			c.id = u.GetLogin()
		case errors.As(err, &er) && er.Response != nil && (er.Response.StatusCode == 401 || er.Response.StatusCode == 403):
			c.id = botLogin
		case err != nil:
			c.idErr = apiWarning("comment", "the pull request comment was not written: the token's identity could not be read (GET /user)", commentPerms, err)
		default:
			c.id = botLogin
		}
	})
	return c.id, c.idErr
}

// sameBody compares bodies as GitHub stores them: it may hand line breaks
// back as CRLF and drops trailing white space.
func sameBody(stored, body string) bool {
	norm := func(s string) string {
		return strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
	}
	return norm(stored) == norm(body)
}

// LabelPresent reports whether the pull request carries label now. The
// event payload's labels are those of the original trigger, replayed on a
// re-run, so a label added since is only visible through the API. GitHub
// label names are unique regardless of case, so the match ignores it.
func (c *Client) LabelPresent(ctx context.Context, prNumber int, label string) (bool, error) {
	opts := &gh.ListOptions{PerPage: 100}
	for range maxLabelPages {
		labels, resp, err := c.gh.Issues.ListLabelsByIssue(ctx, c.owner, c.repo, prNumber, opts)
		if err != nil {
			return false, apiWarning("label", "the pull request's labels could not be read", labelPerms, err)
		}
		for _, l := range labels {
			if strings.EqualFold(l.GetName(), label) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return false, nil
}
