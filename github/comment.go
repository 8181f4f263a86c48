package github

import (
	"context"
	"strings"

	gh "github.com/google/go-github/v66/github"

	"github.com/mcp-eval/mcp-eval/report"
)

// CommentMarker is the hidden HTML comment that identifies mcp-eval's
// sticky pull request comment. It is the renderer's constant, so the two
// cannot drift apart: report.WriteComment puts it on the first line, and
// UpsertComment adds it if a body lacks it.
const CommentMarker = report.CommentMarker

// CommentLimit is where UpsertComment cuts a body. GitHub rejects bodies
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

// Comment outcomes reported by UpsertComment.
const (
	CommentCreated   = "created"
	CommentUpdated   = "updated"
	CommentUnchanged = "unchanged"
)

// CommentResult says what UpsertComment did.
type CommentResult struct {
	Action  string // CommentCreated, CommentUpdated or CommentUnchanged
	ID      int64
	HTMLURL string
}

// UpsertComment keeps one mcp-eval comment on the pull request: it edits
// the newest comment that carries CommentMarker and was written by a bot
// (the marker alone could be quoted by a person), leaves it alone when the
// body is unchanged (an edit notifies subscribers), and creates one
// otherwise. The body is cut below GitHub's size limit. The error is a
// *Warning; Forbidden is the expected outcome on fork pull requests.
func (c *Client) UpsertComment(ctx context.Context, prNumber int, body string) (CommentResult, error) {
	if !strings.Contains(body, CommentMarker) {
		body = CommentMarker + "\n" + body
	}
	body = truncateMarkdown(body, CommentLimit, utf16Cost, commentNote)

	var ours *gh.IssueComment
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range maxCommentPages {
		list, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, prNumber, opts)
		if err != nil {
			return CommentResult{}, apiWarning("comment", "the pull request comment was not written: its comments could not be listed", commentPerms, err)
		}
		// Comments come oldest first; the last match is the newest.
		for _, cm := range list {
			if isOurs(cm) {
				ours = cm
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}

	if ours != nil {
		res := CommentResult{Action: CommentUnchanged, ID: ours.GetID(), HTMLURL: ours.GetHTMLURL()}
		if sameBody(ours.GetBody(), body) {
			return res, nil
		}
		edited, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, ours.GetID(), &gh.IssueComment{Body: gh.String(body)})
		if err != nil {
			return CommentResult{}, apiWarning("comment", "the pull request comment was not updated", commentPerms, err)
		}
		res.Action = CommentUpdated
		if u := edited.GetHTMLURL(); u != "" {
			res.HTMLURL = u
		}
		return res, nil
	}
	created, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, prNumber, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return CommentResult{}, apiWarning("comment", "the pull request comment was not written", commentPerms, err)
	}
	return CommentResult{Action: CommentCreated, ID: created.GetID(), HTMLURL: created.GetHTMLURL()}, nil
}

func isOurs(cm *gh.IssueComment) bool {
	if !strings.Contains(cm.GetBody(), CommentMarker) {
		return false
	}
	u := cm.GetUser()
	return u.GetLogin() == botLogin || u.GetType() == "Bot"
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
