// Package github is mcp-eval's GitHub Action front door and its only
// contact with the GitHub API: the runner's environment and event payload,
// the Action's inputs, outputs, job summary, annotations and masks, the
// baseline report.json from the last green run's artifact, the sticky pull
// request comment and the eval label.
//
// It imports report, go-githubactions, go-github and the standard library,
// never mcp, conformance, golden or gate: main glues reports into it. The
// summary and comment bodies come from the report renderers; this package
// only supplies one-line reasons and warnings for them. Every API helper
// returns its failures as *Warning, because a missing baseline, a read-only
// fork token or an API outage must be said in the summary but never fail
// the job by itself (DESIGN.md).
package github

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// DefaultAPIURL is the REST endpoint of github.com, used when GITHUB_API_URL
// is unset (outside a runner).
const DefaultAPIURL = "https://api.github.com"

// DefaultServerURL is the web address of github.com.
const DefaultServerURL = "https://github.com"

// Env is the part of the runner's environment the Action uses. The runner
// passes these GITHUB_* variables into the container from an allowlist
// (actions/runner GitHubContext.cs); GITHUB_TOKEN is not among them, which is
// why the token arrives as the github-token input.
type Env struct {
	Actions     bool   // GITHUB_ACTIONS=true: running inside a workflow
	EventName   string // GITHUB_EVENT_NAME
	EventPath   string // GITHUB_EVENT_PATH
	Repository  string // GITHUB_REPOSITORY, owner/name
	RunID       int64  // GITHUB_RUN_ID
	WorkflowRef string // GITHUB_WORKFLOW_REF
	Ref         string // GITHUB_REF, e.g. refs/heads/main
	BaseRef     string // GITHUB_BASE_REF, set on pull_request events only
	HeadRef     string // GITHUB_HEAD_REF, set on pull_request events only
	SHA         string // GITHUB_SHA
	APIURL      string // GITHUB_API_URL; DefaultAPIURL when unset
	ServerURL   string // GITHUB_SERVER_URL; DefaultServerURL when unset
	OutputPath  string // GITHUB_OUTPUT
	SummaryPath string // GITHUB_STEP_SUMMARY
	Actor       string // GITHUB_ACTOR
	RunnerTemp  string // RUNNER_TEMP
}

// ReadEnv reads Env through getenv, which is injected so that tests never
// touch the process environment (and can run in parallel). It fails only on
// a value that cannot be what the runner sets: a run id that is not a
// number or a repository that is not owner/name.
func ReadEnv(getenv func(string) string) (Env, error) {
	e := Env{
		Actions:     getenv("GITHUB_ACTIONS") == "true",
		EventName:   getenv("GITHUB_EVENT_NAME"),
		EventPath:   getenv("GITHUB_EVENT_PATH"),
		Repository:  getenv("GITHUB_REPOSITORY"),
		WorkflowRef: getenv("GITHUB_WORKFLOW_REF"),
		Ref:         getenv("GITHUB_REF"),
		BaseRef:     getenv("GITHUB_BASE_REF"),
		HeadRef:     getenv("GITHUB_HEAD_REF"),
		SHA:         getenv("GITHUB_SHA"),
		APIURL:      strings.TrimRight(getenv("GITHUB_API_URL"), "/"),
		ServerURL:   strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/"),
		OutputPath:  getenv("GITHUB_OUTPUT"),
		SummaryPath: getenv("GITHUB_STEP_SUMMARY"),
		Actor:       getenv("GITHUB_ACTOR"),
		RunnerTemp:  getenv("RUNNER_TEMP"),
	}
	if e.APIURL == "" {
		e.APIURL = DefaultAPIURL
	}
	if e.ServerURL == "" {
		e.ServerURL = DefaultServerURL
	}
	if s := getenv("GITHUB_RUN_ID"); s != "" {
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id <= 0 {
			return e, fmt.Errorf("GITHUB_RUN_ID %q is not a run id", s)
		}
		e.RunID = id
	}
	if e.Repository != "" {
		if _, _, ok := splitRepo(e.Repository); !ok {
			return e, fmt.Errorf("GITHUB_REPOSITORY %q is not owner/name", e.Repository)
		}
	}
	return e, nil
}

// RunURL is the web page of the current run, for links in the summary; ""
// outside a workflow.
func (e Env) RunURL() string {
	if e.Repository == "" || e.RunID == 0 {
		return ""
	}
	return fmt.Sprintf("%s/%s/actions/runs/%d", e.ServerURL, e.Repository, e.RunID)
}

func splitRepo(full string) (owner, name string, ok bool) {
	owner, name, ok = strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return "", "", false
	}
	return owner, name, true
}

// Event is what the Action needs from the event that triggered the run:
// its name and the few payload fields that decide layers, the baseline
// branch and whether a comment can be written.
type Event struct {
	Name   string // GITHUB_EVENT_NAME: push, pull_request, schedule, workflow_dispatch…
	Action string // the payload's action, e.g. labeled or synchronize
	Actor  string // GITHUB_ACTOR
	// PullRequest is set for pull_request and pull_request_target events.
	PullRequest *PullRequest
	// Label is the label just added or removed on a labeled or unlabeled
	// pull_request event.
	Label string
	// Schedule is the cron expression of a schedule event.
	Schedule string
	// Inputs are the workflow_dispatch inputs, as strings (the payload may
	// carry booleans and numbers for typed inputs).
	Inputs map[string]string
	// DefaultBranch is repository.default_branch, when the payload has a
	// repository (schedule payloads do not).
	DefaultBranch string
	// MergeGroupBase is the branch a merge queue merges into
	// (merge_group.base_ref without refs/heads/), on merge_group events.
	MergeGroupBase string
}

// PullRequest holds the pull request fields of an event payload.
type PullRequest struct {
	Number int
	Author string // user.login
	// HeadRepo is head.repo.full_name; "" when the head repository was
	// deleted, which GitHub reports as a null repo.
	HeadRepo string
	HeadFork bool // head.repo.fork
	HeadRef  string
	HeadSHA  string
	BaseRepo string // base.repo.full_name
	BaseRef  string
	BaseSHA  string
	// Labels are the labels when the event fired. A re-run replays the
	// original payload, so this list is frozen (actions/runner#3149): use
	// LabelPresent to decide on it.
	Labels []string
}

// FromFork reports whether the pull request's head lives outside the base
// repository. Such runs get a read-only token and no secrets. A deleted head
// repository counts as a fork because nothing vouches for it.
func (p *PullRequest) FromFork() bool {
	return p.HeadFork || p.HeadRepo == "" || !strings.EqualFold(p.HeadRepo, p.BaseRepo)
}

// dependabot is the login Dependabot acts under. GitHub gives workflows it
// triggers the same read-only token and empty secrets as fork pull requests.
const dependabot = "dependabot[bot]"

// ReadOnly reports whether the run has a read-only token and no secrets (a
// pull request from a fork, or one opened or triggered by Dependabot), and
// says why in a sentence for the summary.
func (ev Event) ReadOnly() (bool, string) {
	pr := ev.PullRequest
	switch {
	case pr == nil:
		return false, ""
	case strings.EqualFold(ev.Actor, dependabot) || strings.EqualFold(pr.Author, dependabot):
		return true, "this is a Dependabot pull request: GitHub gives it a read-only token and no secrets"
	case pr.FromFork():
		return true, "this pull request comes from a fork: GitHub gives it a read-only token and no secrets"
	}
	return false, ""
}

// BaseBranch is the branch whose green runs hold the baseline: the base of
// a pull request, else the branch that was pushed or dispatched, else (for
// a tag) the default branch. It is "" when none is known.
func (ev Event) BaseBranch(env Env) string {
	// A merge queue runs on a temporary gh-readonly-queue/<base>/… branch
	// that never had a green run: the base branch's baseline applies.
	if ev.MergeGroupBase != "" {
		return ev.MergeGroupBase
	}
	if ev.PullRequest != nil && ev.PullRequest.BaseRef != "" {
		return ev.PullRequest.BaseRef
	}
	if env.BaseRef != "" {
		return env.BaseRef
	}
	if b, ok := strings.CutPrefix(env.Ref, "refs/heads/"); ok {
		return b
	}
	return ev.DefaultBranch
}

// payload is the subset of the webhook payload that is decoded. Everything
// else in the file is ignored.
type payload struct {
	Action      string `json:"action"`
	PullRequest *struct {
		Number int `json:"number"`
		User   struct {
			Login string `json:"login"`
		} `json:"user"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
		Head prRef `json:"head"`
		Base prRef `json:"base"`
	} `json:"pull_request"`
	Label *struct {
		Name string `json:"name"`
	} `json:"label"`
	Schedule   string `json:"schedule"`
	MergeGroup *struct {
		BaseRef string `json:"base_ref"`
	} `json:"merge_group"`
	Inputs     map[string]json.RawMessage `json:"inputs"`
	Repository *struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
}

type prRef struct {
	Ref  string `json:"ref"`
	SHA  string `json:"sha"`
	Repo *struct {
		FullName string `json:"full_name"`
		Fork     bool   `json:"fork"`
	} `json:"repo"`
}

// ReadEvent decodes the payload at env.EventPath. Without a path (outside a
// workflow) it returns an Event with only the name and actor.
func ReadEvent(env Env) (Event, error) {
	ev := Event{Name: env.EventName, Actor: env.Actor}
	if env.EventPath == "" {
		return ev, nil
	}
	b, err := os.ReadFile(env.EventPath)
	if err != nil {
		return ev, fmt.Errorf("event payload: %w", err)
	}
	return ParseEvent(env, b)
}

// ParseEvent decodes an event payload for the event named in env.
func ParseEvent(env Env, b []byte) (Event, error) {
	ev := Event{Name: env.EventName, Actor: env.Actor}
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		return ev, fmt.Errorf("event payload %s: %w", env.EventPath, err)
	}
	ev.Action = p.Action
	ev.Schedule = p.Schedule
	if p.Label != nil {
		ev.Label = p.Label.Name
	}
	if p.Repository != nil {
		ev.DefaultBranch = p.Repository.DefaultBranch
	}
	if p.MergeGroup != nil {
		ev.MergeGroupBase = strings.TrimPrefix(p.MergeGroup.BaseRef, "refs/heads/")
	}
	if len(p.Inputs) > 0 {
		ev.Inputs = make(map[string]string, len(p.Inputs))
		for k, raw := range p.Inputs {
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(raw) // a boolean or number input, kept as written
			}
			ev.Inputs[k] = s
		}
	}
	if q := p.PullRequest; q != nil {
		pr := &PullRequest{
			Number:  q.Number,
			Author:  q.User.Login,
			HeadRef: q.Head.Ref,
			HeadSHA: q.Head.SHA,
			BaseRef: q.Base.Ref,
			BaseSHA: q.Base.SHA,
		}
		if q.Head.Repo != nil {
			pr.HeadRepo, pr.HeadFork = q.Head.Repo.FullName, q.Head.Repo.Fork
		}
		switch {
		case q.Base.Repo != nil:
			pr.BaseRepo = q.Base.Repo.FullName
		case p.Repository != nil:
			pr.BaseRepo = p.Repository.FullName
		default:
			pr.BaseRepo = env.Repository
		}
		for _, l := range q.Labels {
			pr.Labels = append(pr.Labels, l.Name)
		}
		ev.PullRequest = pr
	}
	return ev, nil
}
