// Package judge is the LLM-as-judge that Layers 1 and 2 share: the system
// prompts of judge_prompt.txt (their hash goes into the report), a
// structured verdict with room for reasoning, and the view of a transcript
// it is shown. It knows nothing of golden files or faults: callers pass a
// rubric or two texts and get a verdict.
package judge

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcp-eval/mcp-eval/agent"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/readfile"
	"github.com/mcp-eval/mcp-eval/llm"
)

// judgePromptFile is judge/judge_prompt.txt: the judge's system prompts,
// kept in the repository so that a change to them is reviewed like code.
//
//go:embed judge_prompt.txt
var judgePromptFile []byte

// Prompt is the judge's two system prompts, the hash of the file
// they came from (recorded in the report, compared with the baseline's,
// and part of every judge call's cache key through the request), and the
// file's name ("" for the built-in judge/judge_prompt.txt).
type Prompt struct {
	Grade, Similar string
	SHA256         string
	File           string
}

var defaultPrompt = func() *Prompt {
	p, err := parsePrompt(judgePromptFile, "")
	if err != nil {
		// The file is embedded at build time; the tests catch this.
		panic("judge/judge_prompt.txt: " + err.Error())
	}
	return p
}()

// DefaultPrompt returns the built-in prompts.
func DefaultPrompt() *Prompt { return defaultPrompt }

// maxPromptBytes bounds a --judge-prompt file.
const maxPromptBytes = 256 << 10

// LoadPrompt reads a prompt file in the format of
// judge/judge_prompt.txt: a "=== grade ===" and a "=== similar ==="
// section (text before the first marker is never sent).
func LoadPrompt(path string) (*Prompt, error) {
	b, err := readfile.Read(path, maxPromptBytes)
	if err != nil {
		return nil, fmt.Errorf("--judge-prompt %s: %s", path, readfile.Reason(err))
	}
	p, err := parsePrompt(b, path)
	if err != nil {
		return nil, fmt.Errorf("--judge-prompt %s: %w", path, err)
	}
	return p, nil
}

func parsePrompt(b []byte, file string) (*Prompt, error) {
	sections := map[string]string{}
	var name string
	var cur strings.Builder
	flush := func() {
		if name != "" {
			sections[name] = strings.TrimSpace(cur.String())
		}
		cur.Reset()
	}
	for line := range strings.Lines(string(b)) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "=== ") && strings.HasSuffix(t, " ===") {
			flush()
			name = strings.TrimSuffix(strings.TrimPrefix(t, "=== "), " ===")
			continue
		}
		cur.WriteString(line)
	}
	flush()
	if sections["grade"] == "" || sections["similar"] == "" {
		return nil, errors.New("needs a non-empty === grade === and a === similar === section")
	}
	sum := sha256.Sum256(b)
	return &Prompt{Grade: sections["grade"], Similar: sections["similar"], SHA256: hex.EncodeToString(sum[:]), File: file}, nil
}

// PromptSHA256 is the hex SHA-256 of judge/judge_prompt.txt, the
// built-in prompt.
func PromptSHA256() string { return defaultPrompt.SHA256 }

// Grader grades a run against a case's rubric (task completion). A failed
// grading (the judge model could not be reached, or answered something that
// is not a verdict) is an error, and the run counts as errored, never as
// passed. *Judge implements it; a caller may wrap it with a cache.
type Grader interface {
	Grade(ctx context.Context, rubric string, t *agent.Transcript) (pass bool, reason string, err error)
}

// Judge is the LLM-as-judge: it asks a model for a JSON verdict
// {"pass": bool, "reason": string}, with the system prompts of
// judge_prompt.txt and temperature 0. It implements Grader and
// SimilarityJudge, and is safe for concurrent use.
type Judge struct {
	m      agent.Model
	model  string
	prompt *Prompt

	mu      sync.Mutex
	similar map[[2]string]bool // verdicts of Similar, which repeats across runs
}

// New returns a judge that asks model (the provider's model name,
// without the "openai:" prefix) through m.
func New(m agent.Model, model string) *Judge {
	return &Judge{m: m, model: model, prompt: defaultPrompt, similar: map[[2]string]bool{}}
}

// WithPrompt makes the judge use p (from --judge-prompt) and returns it.
func (j *Judge) WithPrompt(p *Prompt) *Judge {
	if p != nil {
		j.prompt = p
	}
	return j
}

// Prompt returns the prompts the judge uses.
func (j *Judge) Prompt() *Prompt { return j.prompt }

// judgeMaxTokens bounds a verdict. The verdict itself is one sentence, but
// reasoning models (o-series, gpt-5, Claude with thinking) spend hidden
// reasoning tokens from the same budget first; 400 left them nothing to
// answer with. 8192 fits every current model's limit.
const judgeMaxTokens = 8192

// verdictFormat asks for the verdict as structured output, the reason
// first so that a model writing it token by token reasons before it
// decides.
var verdictFormat = &llm.Format{Name: "verdict", Schema: json.RawMessage(`{"type":"object",` +
	`"properties":{"reason":{"type":"string","description":"one short sentence: what the decision rests on"},` +
	`"verdict":{"type":"string","enum":["pass","fail","cannot_tell"]}},` +
	`"required":["reason","verdict"],"additionalProperties":false}`)}

// Grade implements Grader.
func (j *Judge) Grade(ctx context.Context, rubric string, t *agent.Transcript) (bool, string, error) {
	in, err := json.Marshal(struct {
		Rubric     string           `json:"rubric"`
		Transcript judgedTranscript `json:"transcript"`
	}{rubric, judgeView(t)})
	if err != nil {
		return false, "", err
	}
	return j.ask(ctx, j.prompt.Grade, string(in))
}

// Similar implements SimilarityJudge. Verdicts are remembered for the
// judge's lifetime, so the same pair is asked about once.
func (j *Judge) Similar(ctx context.Context, expected, actual string) (bool, error) {
	key := [2]string{expected, actual}
	j.mu.Lock()
	v, ok := j.similar[key]
	j.mu.Unlock()
	if ok {
		return v, nil
	}
	in, err := json.Marshal(struct {
		Expected string `json:"expected"`
		Actual   string `json:"actual"`
	}{expected, actual})
	if err != nil {
		return false, err
	}
	same, _, err := j.ask(ctx, j.prompt.Similar, string(in))
	if err != nil {
		return false, err
	}
	j.mu.Lock()
	j.similar[key] = same
	j.mu.Unlock()
	return same, nil
}

func (j *Judge) ask(ctx context.Context, system, user string) (bool, string, error) {
	zero := 0.0
	resp, err := j.m.Complete(ctx, llm.Request{
		Model: j.model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: system},
			{Role: llm.RoleUser, Content: user},
		},
		MaxTokens:   judgeMaxTokens,
		Temperature: &zero,
		Format:      verdictFormat,
	})
	var pass bool
	var reason string
	if err == nil {
		pass, reason, err = verdictOf(resp)
	}
	if err != nil {
		return false, "", fmt.Errorf("judge %s: %w", j.model, err)
	}
	return pass, reason, nil
}

// verdictOf reads a judge model's answer as a verdict.
func verdictOf(resp *llm.Response) (pass bool, reason string, err error) {
	content := strings.TrimSpace(resp.Message.Content)
	switch {
	case len(resp.Message.ToolCalls) > 0:
		return false, "", errors.New("answered with a tool call instead of a verdict")
	case resp.StopReason == llm.StopRefusal:
		return false, "", fmt.Errorf("refused to grade: %s", clip.Runes(cmp.Or(content, "no text"), 200))
	case content == "" && resp.StopReason == llm.StopMaxTokens:
		return false, "", fmt.Errorf("ran out of its token budget before answering (%d of %d output tokens were hidden reasoning)",
			resp.Usage.ReasoningTokens, resp.Usage.OutputTokens)
	case content == "":
		return false, "", fmt.Errorf("answered nothing (stop reason %q)", resp.StopReason)
	}
	return ParseVerdict(content)
}

// Usable says whether a judge model's answer is a verdict worth recording
// and replaying: a pass or a fail, or cannot_tell (the judge decided it
// cannot decide). A malformed answer, an empty one or a refusal is not: the
// run that got it errors, and the next run must ask again rather than
// replay it (the model-call cache takes this as its acceptance rule).
func Usable(resp *llm.Response) bool {
	if resp == nil {
		return false
	}
	_, _, err := verdictOf(resp)
	return err == nil || errors.Is(err, ErrCannotTell)
}

// ErrCannotTell is the error of a judge that answered verdict
// "cannot_tell": the transcript does not let it decide. The run is errored,
// never failed: a judge's doubt says nothing about the model under test.
var ErrCannotTell = errors.New("the judge cannot tell")

// ParseVerdict reads a judge's answer strictly: one JSON object
// {"reason": string, "verdict": "pass" | "fail" | "cannot_tell"} — the
// reason first, so that a model writing it token by token reasons before it
// decides — or the older {"pass": bool, "reason": string}, and nothing else
// (a single surrounding ``` code fence is tolerated). "cannot_tell" is
// ErrCannotTell with the reason; anything else malformed is an error, never
// a pass. Keys are matched case-sensitively.
func ParseVerdict(s string) (pass bool, reason string, err error) {
	body := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(body, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		if inner, ok := strings.CutSuffix(strings.TrimSpace(rest), "```"); ok {
			body = strings.TrimSpace(inner)
		}
	}
	bad := func(why string) error {
		return fmt.Errorf("malformed verdict (%s): %q", why, clip.Runes(s, 80))
	}
	dec := json.NewDecoder(strings.NewReader(body))
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil || fields == nil {
		return false, "", bad("not a JSON object")
	}
	if dec.More() {
		return false, "", bad("text after the JSON object")
	}
	for k := range fields {
		if k != "pass" && k != "reason" && k != "verdict" {
			return false, "", bad("unexpected key " + k)
		}
	}
	if raw, ok := fields["reason"]; ok {
		if err := json.Unmarshal(raw, &reason); err != nil {
			return false, "", bad(`"reason" is not text`)
		}
	}
	rawVerdict, hasVerdict := fields["verdict"]
	rawPass, hasPass := fields["pass"]
	switch {
	case hasVerdict && hasPass:
		return false, "", bad(`both "verdict" and "pass"`)
	case hasVerdict:
		var v string
		if json.Unmarshal(rawVerdict, &v) != nil {
			return false, "", bad(`"verdict" is not pass, fail or cannot_tell`)
		}
		switch v {
		case "pass":
			return true, reason, nil
		case "fail":
			return false, reason, nil
		case "cannot_tell":
			return false, reason, fmt.Errorf("%w: %s", ErrCannotTell, cmp.Or(reason, "no reason given"))
		}
		return false, "", bad(`"verdict" is not pass, fail or cannot_tell`)
	case !hasPass:
		return false, "", bad(`no "verdict"`)
	}
	switch string(bytes.TrimSpace(rawPass)) {
	case "true":
		pass = true
	case "false":
	default:
		return false, "", bad(`"pass" is not true or false`)
	}
	return pass, reason, nil
}

// What the judge sees of a run. Tool results and model text are untrusted;
// as JSON strings they cannot break out of their fields, and the prompt
// tells the judge to treat them as data.
type judgedTranscript struct {
	Messages []judgedMessage `json:"messages"`
	Final    string          `json:"finalAnswer"`
	Stop     string          `json:"stop,omitempty"`
}

type judgedMessage struct {
	Role      string           `json:"role"`
	Tool      string           `json:"tool,omitempty"`
	Content   string           `json:"content,omitempty"`
	IsError   bool             `json:"isError,omitempty"`
	ToolCalls []judgedToolCall `json:"toolCalls,omitempty"`
}

type judgedToolCall struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Invalid   string          `json:"invalidArguments,omitempty"`
}

// Bounds on what the judge is sent.
const (
	judgeMaxContent  = 4000 // runes per message
	judgeHeadMessage = 20   // messages kept from the start…
	judgeTailMessage = 60   // …and from the end of a long run
)

func judgeView(t *agent.Transcript) judgedTranscript {
	if t == nil {
		return judgedTranscript{}
	}
	out := judgedTranscript{Final: clip.Runes(t.Final, judgeMaxContent), Stop: t.Stop}
	names := map[string]string{}
	for _, c := range t.Calls {
		names[c.ID] = c.Name
	}
	msgs := t.Messages
	if len(msgs) == 0 {
		// A transcript without messages (a replayed or scripted one) still
		// has its calls.
		for _, c := range t.Calls {
			msgs = append(msgs,
				llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: c.ID, Name: c.Name, Arguments: c.Arguments, InvalidArguments: c.InvalidArguments}}},
				llm.Message{Role: llm.RoleTool, ToolCallID: c.ID, Content: c.Result.Content, IsError: c.Result.IsError})
		}
	}
	for i, m := range msgs {
		if len(msgs) > judgeHeadMessage+judgeTailMessage && i == judgeHeadMessage {
			out.Messages = append(out.Messages, judgedMessage{Role: "note",
				Content: fmt.Sprintf("%d messages omitted", len(msgs)-judgeHeadMessage-judgeTailMessage)})
		}
		if len(msgs) > judgeHeadMessage+judgeTailMessage && i >= judgeHeadMessage && i < len(msgs)-judgeTailMessage {
			continue
		}
		jm := judgedMessage{Role: string(m.Role), Content: clip.Runes(m.Content, judgeMaxContent), IsError: m.IsError}
		if m.Role == llm.RoleTool {
			jm.Tool = names[m.ToolCallID]
		}
		for _, tc := range m.ToolCalls {
			jc := judgedToolCall{Name: tc.Name, Arguments: tc.Arguments, Invalid: clip.Runes(tc.InvalidArguments, 200)}
			if len(jc.Arguments) > judgeMaxContent || !json.Valid(jc.Arguments) {
				if len(jc.Arguments) > 0 {
					jc.Invalid = fmt.Sprintf("(%d bytes of arguments omitted)", len(jc.Arguments))
				}
				jc.Arguments = nil
			}
			jm.ToolCalls = append(jm.ToolCalls, jc)
		}
		out.Messages = append(out.Messages, jm)
	}
	return out
}
