package github

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mapEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// runnerEnv is the environment of a job for event, with the payload file
// from testdata.
func runnerEnv(event, fixture string, extra map[string]string) map[string]string {
	m := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_EVENT_NAME":   event,
		"GITHUB_EVENT_PATH":   filepath.Join("testdata", fixture),
		"GITHUB_REPOSITORY":   testFull,
		"GITHUB_RUN_ID":       "9000",
		"GITHUB_WORKFLOW_REF": "acme/weather-mcp/.github/workflows/eval.yml@refs/heads/main",
		"GITHUB_REF":          "refs/heads/main",
		"GITHUB_SHA":          "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
		"GITHUB_ACTOR":        "monalisa",
		"GITHUB_OUTPUT":       "/github/file_commands/set_output_x",
		"GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary_x",
		"RUNNER_TEMP":         "/github/runner_temp",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func readFixture(t *testing.T, event, fixture string, extra map[string]string) (Env, Event) {
	t.Helper()
	env, err := ReadEnv(mapEnv(runnerEnv(event, fixture, extra)))
	if err != nil {
		t.Fatalf("ReadEnv: %v", err)
	}
	ev, err := ReadEvent(env)
	if err != nil {
		t.Fatalf("ReadEvent(%s): %v", fixture, err)
	}
	return env, ev
}

func TestReadEnv(t *testing.T) {
	t.Parallel()
	env, err := ReadEnv(mapEnv(runnerEnv("push", "push.json", map[string]string{
		"GITHUB_API_URL":    "https://ghe.example.com/api/v3/",
		"GITHUB_SERVER_URL": "https://ghe.example.com",
	})))
	if err != nil {
		t.Fatal(err)
	}
	want := Env{
		Actions: true, EventName: "push", EventPath: "testdata/push.json", Repository: testFull, RunID: 9000,
		WorkflowRef: "acme/weather-mcp/.github/workflows/eval.yml@refs/heads/main", Ref: "refs/heads/main",
		SHA: "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c", APIURL: "https://ghe.example.com/api/v3",
		ServerURL: "https://ghe.example.com", OutputPath: "/github/file_commands/set_output_x",
		SummaryPath: "/github/file_commands/step_summary_x", Actor: "monalisa", RunnerTemp: "/github/runner_temp",
	}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("ReadEnv =\n%+v\nwant\n%+v", env, want)
	}
	if got := env.RunURL(); got != "https://ghe.example.com/acme/weather-mcp/actions/runs/9000" {
		t.Errorf("RunURL = %s", got)
	}

	local, err := ReadEnv(mapEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if local.Actions || local.APIURL != DefaultAPIURL || local.ServerURL != DefaultServerURL || local.RunURL() != "" {
		t.Errorf("outside a runner: %+v", local)
	}
	for k, v := range map[string]string{"GITHUB_RUN_ID": "abc", "GITHUB_REPOSITORY": "no-slash"} {
		if _, err := ReadEnv(mapEnv(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("ReadEnv(%s=%s) error = %v, want one naming %s", k, v, err, k)
		}
	}
}

func TestReadEvent(t *testing.T) {
	t.Parallel()
	sameRepoPR := func(n int, author, headRef string, labels []string) *PullRequest {
		return &PullRequest{Number: n, Author: author, HeadRepo: testFull, HeadRef: headRef,
			HeadSHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", BaseRepo: testFull, BaseRef: "main",
			BaseSHA: "9049f1265b7d61be4a8904a9a27120d2064dab3b", Labels: labels}
	}
	tests := []struct {
		event, fixture string
		extra          map[string]string
		want           Event
		readOnly       string // substring of the reason, "" when not read-only
		branch         string
	}{
		{
			event: "push", fixture: "push.json",
			want:   Event{Name: "push", Actor: "monalisa", DefaultBranch: "main"},
			branch: "main",
		},
		{
			event: "push", fixture: "push.json", extra: map[string]string{"GITHUB_REF": "refs/tags/v1.2.0"},
			want:   Event{Name: "push", Actor: "monalisa", DefaultBranch: "main"},
			branch: "main", // a tag: the default branch
		},
		{
			event: "schedule", fixture: "schedule.json",
			want:   Event{Name: "schedule", Actor: "monalisa", Schedule: "17 3 * * *"},
			branch: "main",
		},
		{
			event: "workflow_dispatch", fixture: "workflow_dispatch.json",
			extra: map[string]string{"GITHUB_REF": "refs/heads/release-1.x"},
			want: Event{Name: "workflow_dispatch", Actor: "monalisa", DefaultBranch: "main",
				Inputs: map[string]string{"models": "openai:gpt-4.1-mini", "strict": "true", "runs": "3"}},
			branch: "release-1.x",
		},
		{
			event: "pull_request", fixture: "pull_request_labeled.json",
			extra: map[string]string{"GITHUB_REF": "refs/pull/7/merge", "GITHUB_BASE_REF": "main", "GITHUB_HEAD_REF": "forecast-units"},
			want: Event{Name: "pull_request", Action: "labeled", Actor: "monalisa", Label: "run-evals", DefaultBranch: "main",
				PullRequest: sameRepoPR(7, "monalisa", "forecast-units", []string{"bug", "run-evals"})},
			branch: "main",
		},
		{
			event: "pull_request", fixture: "pull_request_fork.json",
			extra: map[string]string{"GITHUB_REF": "refs/pull/8/merge", "GITHUB_BASE_REF": "main", "GITHUB_ACTOR": "mallory"},
			want: Event{Name: "pull_request", Action: "synchronize", Actor: "mallory", DefaultBranch: "main",
				PullRequest: &PullRequest{Number: 8, Author: "mallory", HeadRepo: "mallory/weather-mcp", HeadFork: true,
					HeadRef: "main", HeadSHA: "6dcb09b5b57875f334f61aebed695e2e4193db5e", BaseRepo: testFull, BaseRef: "main",
					BaseSHA: "9049f1265b7d61be4a8904a9a27120d2064dab3b", Labels: []string{"run-evals"}}},
			readOnly: "comes from a fork",
			branch:   "main",
		},
		{
			event: "pull_request", fixture: "pull_request_dependabot.json",
			extra: map[string]string{"GITHUB_REF": "refs/pull/9/merge", "GITHUB_BASE_REF": "main", "GITHUB_ACTOR": "dependabot[bot]"},
			want: Event{Name: "pull_request", Action: "opened", Actor: "dependabot[bot]", DefaultBranch: "main",
				PullRequest: sameRepoPR(9, "dependabot[bot]", "dependabot/npm_and_yarn/zod-3.25.0", nil)},
			readOnly: "Dependabot",
			branch:   "main",
		},
		{
			// A merge queue's temporary branch: the baseline is main's.
			event: "merge_group", fixture: "merge_group.json",
			extra:  map[string]string{"GITHUB_REF": "refs/heads/gh-readonly-queue/main/pr-7-9049f1265b7d61be4a8904a9a27120d2064dab3b"},
			want:   Event{Name: "merge_group", Action: "checks_requested", Actor: "monalisa", DefaultBranch: "main", MergeGroupBase: "main"},
			branch: "main",
		},
		{
			// A person re-runs a Dependabot pull request's workflow.
			event: "pull_request", fixture: "pull_request_dependabot.json",
			extra: map[string]string{"GITHUB_REF": "refs/pull/9/merge", "GITHUB_BASE_REF": "main"},
			want: Event{Name: "pull_request", Action: "opened", Actor: "monalisa", DefaultBranch: "main",
				PullRequest: sameRepoPR(9, "dependabot[bot]", "dependabot/npm_and_yarn/zod-3.25.0", nil)},
			readOnly: "Dependabot",
			branch:   "main",
		},
	}
	for _, tt := range tests {
		t.Run(tt.fixture+" "+tt.extra["GITHUB_REF"]+tt.extra["GITHUB_ACTOR"], func(t *testing.T) {
			t.Parallel()
			env, ev := readFixture(t, tt.event, tt.fixture, tt.extra)
			if !reflect.DeepEqual(ev, tt.want) {
				t.Errorf("ReadEvent =\n%+v\nwant\n%+v", ev, tt.want)
				if ev.PullRequest != nil && tt.want.PullRequest != nil {
					t.Errorf("PullRequest =\n%+v\nwant\n%+v", *ev.PullRequest, *tt.want.PullRequest)
				}
			}
			ro, why := ev.ReadOnly()
			if ro != (tt.readOnly != "") || !strings.Contains(why, tt.readOnly) {
				t.Errorf("ReadOnly = %v, %q; want %q", ro, why, tt.readOnly)
			}
			if got := ev.BaseBranch(env); got != tt.branch {
				t.Errorf("BaseBranch = %q, want %q", got, tt.branch)
			}
		})
	}
}

func TestReadEventErrors(t *testing.T) {
	t.Parallel()
	env := Env{EventName: "push", EventPath: filepath.Join(t.TempDir(), "missing.json")}
	if _, err := ReadEvent(env); err == nil {
		t.Error("missing payload file: no error")
	}
	if _, err := ParseEvent(env, []byte("{not json")); err == nil {
		t.Error("corrupt payload: no error")
	}
	ev, err := ReadEvent(Env{EventName: "push", Actor: "me"})
	if err != nil || ev.Name != "push" || ev.Actor != "me" {
		t.Errorf("no payload path: %+v, %v", ev, err)
	}
}

func TestFromFork(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		pr   PullRequest
		fork bool
	}{
		{PullRequest{HeadRepo: "a/b", BaseRepo: "a/b"}, false},
		{PullRequest{HeadRepo: "A/B", BaseRepo: "a/b"}, false},
		{PullRequest{HeadRepo: "a/b", BaseRepo: "a/b", HeadFork: true}, true},
		{PullRequest{HeadRepo: "x/b", BaseRepo: "a/b"}, true},
		{PullRequest{HeadRepo: "", BaseRepo: "a/b"}, true}, // deleted fork
	} {
		if got := tt.pr.FromFork(); got != tt.fork {
			t.Errorf("%+v.FromFork() = %v, want %v", tt.pr, got, tt.fork)
		}
	}
}
