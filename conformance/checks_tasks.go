package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcp-eval/mcp-eval/engine/check"
	"github.com/mcp-eval/mcp-eval/internal/canon"
	"github.com/mcp-eval/mcp-eval/internal/clip"
	"github.com/mcp-eval/mcp-eval/internal/schema"
	"github.com/mcp-eval/mcp-eval/mcp"
	"github.com/mcp-eval/mcp-eval/report"
)

// The tasks extension (io.modelcontextprotocol/tasks), whose normative text
// is specification/draft/tasks.md of modelcontextprotocol/ext-tasks. Its
// checks run when the server declares it under capabilities.extensions;
// those that need a task create one with a safe tool (readOnlyHint, or
// --safe-tools) that answers with a task when called declaring the
// extension, and never call any other. Where tasks.md's examples contradict
// its rules (a tasks/get answer with resultType "task" in §Task Execution
// Errors, against "The resultType field MUST be set to complete" on
// tasks/get), the rule and the extension's schema are followed.

const (
	tasksExt = "io.modelcontextprotocol/tasks"
	// tasksRef is the extension's normative text.
	tasksRef = "https://github.com/modelcontextprotocol/ext-tasks/blob/main/specification/draft/tasks.md"
	// probeTaskID is a task id no server has issued.
	probeTaskID = "mcp-eval-probe-task"
	// maxTaskPolls bounds the tasks/get of one check's task.
	maxTaskPolls = 8
	// maxPollWait caps the wait between polls (a server's pollIntervalMs
	// may be seconds; the checks judge what a few polls show).
	maxPollWait = 250 * time.Millisecond
	// taskListenWindow is how long a tasks subscription is read (once per
	// run: tasks/status-notifications is a Once check).
	taskListenWindow = time.Second
)

var taskStatuses = map[string]bool{"working": true, "input_required": true, "completed": true, "failed": true, "cancelled": true}

func taskChecks() []*Check {
	return []*Check{
		{ID: "tasks/capability-slot", Reqs: []string{"guidance/tasks-capability-slot"}, Level: report.LevelShould, Revision: revModern, SpecRef: tasksRef + "#capability-negotiation",
			Title: "tasks are declared under capabilities.extensions[\"io.modelcontextprotocol/tasks\"], not in the capabilities.tasks slot of 2025-11-25",
			Run:   taskCapabilitySlot},
		taskCheck(&Check{ID: "tasks/no-task-without-capability", Reqs: []string{"tasks/no-task-without-capability", "base/extension-fallback"}, Level: report.LevelMust,
			Title: "a request that does not declare the extension never gets a task (resultType \"task\") (safe tools only)",
			Run:   taskNoTaskWithoutCapability}),
		withTask(&Check{ID: "tasks/required-task-error", Reqs: []string{"tasks/required-task-error"}, Level: report.LevelMust,
			Title: "a tool that runs only as a task refuses a request without the extension with -32021 naming the extension (safe tools only)",
			Run:   taskRequiredTaskError}),
		withTask(&Check{ID: "tasks/create-result", Reqs: []string{"tasks/result-type-task", "guidance/schema-shapes"}, Level: report.LevelMust,
			Title: "a task answer is a CreateTaskResult: resultType \"task\", taskId, a known status, createdAt and lastUpdatedAt timestamps, ttlMs an integer or null (safe tools only)",
			Run:   taskCreateResult}),
		withTask(&Check{ID: "tasks/get-after-create", Reqs: []string{"tasks/durable-create", "tasks/wait-for-consistency"}, Level: report.LevelMust,
			Title: "tasks/get resolves the taskId of a CreateTaskResult at once (the task is durably created before the answer) (safe tools only)",
			Run:   taskGetAfterCreate}),
		withTask(&Check{ID: "tasks/get-shape", Reqs: []string{"tasks/get-status", "tasks/get-working", "tasks/get-input-required", "tasks/get-completed", "tasks/get-cancelled", "tasks/get-failed", "tasks/get-result-type", "tasks/result-type-task-only", "tasks/failed-error", "tasks/failed-not-tool-error"}, Level: report.LevelMust,
			Title: "tasks/get answers resultType \"complete\" and the task's DetailedTask: inputRequests when input_required, result when completed, a JSON-RPC error when failed (safe tools only)",
			Run:   taskGetShape}),
		taskCheck(&Check{ID: "tasks/unknown-task", Reqs: []string{"tasks/unknown-get"}, Level: report.LevelMust,
			Title: "tasks/get of a taskId the server never issued → -32602",
			Run:   taskUnknownTask}),
		taskCheck(&Check{ID: "tasks/unknown-task-update-cancel", Reqs: []string{"tasks/unknown-update", "tasks/unknown-cancel", "tasks/unknown-update-cancel-code"}, Level: report.LevelShould,
			Title: "tasks/update and tasks/cancel of a taskId the server never issued get a JSON-RPC error (-32602)",
			Run:   taskUnknownTaskUpdateCancel}),
		taskCheck(&Check{ID: "tasks/requires-capability", Reqs: []string{"tasks/methods-require-capability"}, Level: report.LevelMust,
			Title: "tasks/get, tasks/update and tasks/cancel without the extension declared → -32021 naming it (HTTP 400)",
			Run:   taskRequiresCapability}),
		taskCheck(&Check{ID: "tasks/listen-requires-capability", Reqs: []string{"tasks/listen-capability", "tasks/listen-capability-error"}, Level: report.LevelMust,
			Title: "subscriptions/listen asking for taskIds without the extension declared → -32021 naming it",
			Run:   taskListenRequiresCapability}),
		withTask(&Check{ID: "tasks/status-notifications", Reqs: []string{"tasks/listen-ack-task-ids", "tasks/notification-detailed", "tasks/listen-no-progress"}, Level: report.LevelMust, Once: true,
			Title: "a subscriptions/listen for a task's id is acknowledged with the honoured taskIds, and each notifications/tasks carries the subscription id and the task's DetailedTask, with no progress or log notification (safe tools only)",
			Run:   taskStatusNotifications}),
		withTask(&Check{ID: "tasks/update-ack", Reqs: []string{"tasks/update-empty", "tasks/update-result-type", "tasks/result-type-task-only"}, Level: report.LevelMust,
			Title: "tasks/update answering a task's input requests is acknowledged with an empty result, resultType \"complete\" (safe tools only)",
			Run:   taskUpdateAck}),
		withTask(&Check{ID: "tasks/update-unknown-keys", Reqs: []string{"tasks/update-ignore-unknown"}, Level: report.LevelShould,
			Title: "tasks/update with a key that is not outstanding is ignored (acknowledged, the task not failed) (safe tools only)",
			Run:   taskUpdateUnknownKeys}),
		withTask(&Check{ID: "tasks/input-keys", Reqs: []string{"tasks/input-keys-unique", "tasks/input-keys-no-reuse", "tasks/input-keys-one-request"}, Level: report.LevelMust,
			Title: "a task's inputRequests keep each key for one request: the same request under a key across polls, and no key reused after it was answered (safe tools only)",
			Run:   taskInputKeys}),
		withTask(&Check{ID: "tasks/cancel-ack", Reqs: []string{"tasks/cancel-empty", "tasks/cancel-result-type", "tasks/result-type-task-only"}, Level: report.LevelMust,
			Title: "tasks/cancel of a task is acknowledged with an empty result, resultType \"complete\" (safe tools only)",
			Run:   taskCancelAck}),
		withTask(&Check{ID: "tasks/name-header", Reqs: []string{"tasks/routing-header", "http/header-body-match"}, Level: report.LevelMust, Transport: "http",
			Title: "tasks/get whose Mcp-Name differs from params.taskId → HTTP 400, -32020 (safe tools only)",
			Run:   taskNameHeader}),
	}
}

// taskCheck fills in what every check of the extension shares: it runs
// on a 2026-07-28 server that declares the extension.
func taskCheck(c *Check) *Check {
	c.Revision, c.SpecRef, c.Skip = revModern, tasksRef, needsTasks
	return c
}

// withTask is taskCheck for a check that creates a task of its own: it
// first finds the safe tools that answer with one (once per run).
func withTask(c *Check) *Check {
	c.Prepare = func(ctx context.Context, e *Env) string { return e.findTaskTools(ctx) }
	return taskCheck(c)
}

func taskCapabilitySlot(ctx context.Context, e *Env) Outcome {
	raw, ok := e.capabilities["tasks"]
	if !ok {
		return check.Pass()
	}
	ev := map[string]any{"capabilities.tasks": json.RawMessage(raw), "extensions": e.declaresExtension(tasksExt)}
	also := " and does not declare the extension"
	if e.declaresExtension(tasksExt) {
		also = " besides the extension"
	}
	return check.Failf(ev, "server/discover declares capabilities.tasks (%s), the 2025-11-25 slot%s; 2026-07-28 moved tasks to the extension io.modelcontextprotocol/tasks, declared under capabilities.extensions, so a client of this revision does not read it",
		clip.Bytes(string(raw), 80), also)
}

func taskNoTaskWithoutCapability(ctx context.Context, e *Env) Outcome {
	tools := e.safeTools()
	if len(tools) == 0 {
		return check.Skip("no safe tool to call")
	}
	tools = tools[:min(len(tools), maxProbedTools)]
	for _, t := range tools {
		call, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": schema.SampleArgs(t.InputSchema)}, withCaps(allClientCapabilities()))
		if err != nil {
			return check.Errored(err, check.Protocol.Of(x))
		}
		if x.Response == nil || x.Response.Error != nil {
			continue
		}
		if m, _ := resultMembers(call, x, nil); isTaskAnswer(m) {
			return check.Failf(check.Protocol.Of(x), "%s answered with a task (resultType %q, taskId %s) although the request's clientCapabilities did not declare %s: a server MUST NOT return CreateTaskResult to such a client",
				t.Name, resultTypeOf(m), clip.Bytes(string(m["taskId"]), 60), tasksExt)
		}
	}
	return check.PassInfo(fmt.Sprintf("%d safe tools called without the extension; none answered with a task", len(tools)))
}

func taskRequiredTaskError(ctx context.Context, e *Env) Outcome {
	var ran []string
	for _, p := range e.taskTools {
		_, x, err := e.send(ctx, "tools/call", map[string]any{"name": p.Tool.Name, "arguments": p.Args}, withCaps(allClientCapabilities()))
		if err != nil {
			return check.Errored(err, check.Protocol.Of(x))
		}
		rerr := x.RPCError()
		if rerr == nil {
			ran = append(ran, p.Tool.Name)
			continue
		}
		if rerr.Code != mcp.CodeMissingRequiredClientCapability {
			return check.Failf(check.Protocol.Of(x), "%s, which answers with a task when the extension is declared, refused a request without it with error %d (%s); a server that cannot serve it without a task MUST answer -32021 with data.requiredCapabilities.extensions[%q]",
				p.Tool.Name, rerr.Code, clip.Bytes(rerr.Message, 80), tasksExt)
		}
		if bad := requiredExtension(rerr); bad != "" {
			return check.Failf(check.Protocol.Of(x), "%s answered %s", p.Tool.Name, bad)
		}
		if want := e.httpStatus(http.StatusBadRequest); want != 0 && x.Status != want {
			return check.Failf(check.Protocol.Of(x), "%s answered -32021 with HTTP %d, want 400", p.Tool.Name, x.Status)
		}
		return check.PassInfo(p.Tool.Name + " answered -32021 naming the extension")
	}
	return check.PassInfo("every task tool also runs without the extension (" + strings.Join(ran, ", ") + ")")
}

func taskCreateResult(ctx context.Context, e *Env) Outcome {
	_, m, x, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	if rt := resultTypeOf(m); rt != "task" {
		return check.Failf(check.Protocol.Of(x), "%s answered with a task (taskId %s) whose resultType is %q: servers MUST set resultType to \"task\" on a CreateTaskResult, so that clients can tell it from a standard result",
			e.taskTools[0].Tool.Name, clip.Bytes(string(m["taskId"]), 60), rt)
	}
	if bad := taskShape(m); bad != "" {
		return check.Failf(check.Protocol.Of(x), "the CreateTaskResult of %s: %s", e.taskTools[0].Tool.Name, bad)
	}
	return check.Pass()
}

func taskGetAfterCreate(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	_, x, err := e.send(ctx, "tasks/get", map[string]any{"taskId": id}, withCaps(tasksCaps()))
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if rerr := x.RPCError(); rerr != nil {
		return check.Failf(check.Protocol.Of(x), "tasks/get right after the CreateTaskResult got error %d (%s): a server MUST NOT return CreateTaskResult until a tasks/get for its taskId would resolve",
			rerr.Code, clip.Bytes(rerr.Message, 100))
	}
	if x.Response == nil {
		return check.Failf(check.Protocol.Of(x), "tasks/get right after the CreateTaskResult got no JSON-RPC answer (%s)", cameBack(x))
	}
	return check.Pass()
}

func taskGetShape(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	seen := map[string]bool{}
	for poll := 1; poll <= maxTaskPolls; poll++ {
		m, x, o := e.getTask(ctx, id)
		if o != nil {
			return *o
		}
		if rt := resultTypeOf(m); rt != "complete" {
			return check.Failf(check.Protocol.Of(x), "tasks/get answered resultType %q: it MUST be \"complete\" on GetTaskResult, the standard result of tasks/get (tasks.md's failed-task example shows \"task\"; its rule and schema say \"complete\")", rt)
		}
		var tid string
		if json.Unmarshal(m["taskId"], &tid) != nil || tid != id {
			return check.Failf(check.Protocol.Of(x), "tasks/get for %s answered taskId %s", id, orAbsent(m["taskId"]))
		}
		if bad := detailedShape(m); bad != "" {
			return check.Failf(check.Protocol.Of(x), "tasks/get (poll %d): %s", poll, bad)
		}
		st := taskStatus(m)
		seen[st] = true
		if st != "working" {
			break
		}
		e.pollWait(ctx, m)
	}
	return check.PassInfo("statuses seen over the polls: " + strings.Join(sortedKeys(seen), ", "))
}

func taskUnknownTask(ctx context.Context, e *Env) Outcome {
	_, x, err := e.send(ctx, "tasks/get", map[string]any{"taskId": probeTaskID}, withCaps(tasksCaps()))
	return e.expectError(x, err, "tasks/get of an unknown taskId", 0, mcp.CodeInvalidParams)
}

func taskUnknownTaskUpdateCancel(ctx context.Context, e *Env) Outcome {
	var info []string
	for _, p := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/update", map[string]any{"taskId": probeTaskID, "inputResponses": map[string]any{}}},
		{"tasks/cancel", map[string]any{"taskId": probeTaskID}},
	} {
		_, x, err := e.send(ctx, p.method, p.params, withCaps(tasksCaps()))
		if err != nil {
			return check.Errored(err, check.Protocol.Of(x))
		}
		rerr := x.RPCError()
		if rerr == nil {
			return check.Failf(check.Protocol.Of(x), "%s of an unknown taskId was acknowledged (%s); servers SHOULD return a JSON-RPC error (-32602) when the taskId matches no known task", p.method, cameBackResult(x))
		}
		if rerr.Code != mcp.CodeInvalidParams {
			info = append(info, fmt.Sprintf("%s got %d, not -32602", p.method, rerr.Code))
		}
	}
	if len(info) > 0 {
		return check.PassInfo(strings.Join(info, "; "))
	}
	return check.Pass()
}

func taskRequiresCapability(ctx context.Context, e *Env) Outcome {
	for _, p := range []struct {
		method string
		params map[string]any
	}{
		{"tasks/get", map[string]any{"taskId": probeTaskID}},
		{"tasks/update", map[string]any{"taskId": probeTaskID, "inputResponses": map[string]any{}}},
		{"tasks/cancel", map[string]any{"taskId": probeTaskID}},
	} {
		_, x, err := e.send(ctx, p.method, p.params, withCaps(allClientCapabilities()))
		if o := e.expectError(x, err, p.method+" without the extension declared", e.httpStatus(http.StatusBadRequest), mcp.CodeMissingRequiredClientCapability); o.Status != report.StatusPass {
			return o
		}
		if bad := requiredExtension(x.RPCError()); bad != "" {
			return check.Failf(check.Protocol.Of(x), "%s: %s", p.method, bad)
		}
	}
	return check.Pass()
}

func taskListenRequiresCapability(ctx context.Context, e *Env) Outcome {
	msgs, x, err := e.listenFor(ctx, map[string]any{"taskIds": []string{probeTaskID}}, allClientCapabilities(), taskListenWindow)
	if x != nil && x.Response != nil && x.Response.Error != nil {
		o := e.expectError(x, nil, "subscriptions/listen for taskIds without the extension", 0, mcp.CodeMissingRequiredClientCapability)
		if o.Status != report.StatusPass {
			return o
		}
		if bad := requiredExtension(x.RPCError()); bad != "" {
			return check.Failf(check.Protocol.Of(x), "subscriptions/listen: %s", bad)
		}
		return check.Pass()
	}
	if len(msgs) > 0 {
		return check.Failf(check.Protocol.Of(x), "subscriptions/listen for taskIds without the extension declared was acknowledged (%s); the server MUST return -32021 naming %s", msgs[0].Method, tasksExt)
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return check.Errored(err, check.Protocol.Of(x))
	}
	return check.Failf(check.Protocol.Of(x), "subscriptions/listen for taskIds without the extension declared got no error within %v; the server MUST return -32021 naming %s", taskListenWindow, tasksExt)
}

func taskStatusNotifications(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	return e.judgeTaskListen(ctx, id)
}

func taskUpdateAck(ctx context.Context, e *Env) Outcome {
	id, m, o := e.inputTask(ctx)
	if o != nil {
		return *o
	}
	_, x, err := e.send(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": inputResponses(m["inputRequests"])}, withCaps(tasksCaps()))
	return judgeAck(x, err, "tasks/update")
}

func taskUpdateUnknownKeys(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	_, x, err := e.send(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": map[string]any{
		"mcp-eval-probe-key": map[string]any{"action": "decline"}}}, withCaps(tasksCaps()))
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if rerr := x.RPCError(); rerr != nil {
		return check.Failf(check.Protocol.Of(x), "tasks/update with a key the task never issued got error %d (%s); a server SHOULD ignore responses to keys that are not outstanding", rerr.Code, clip.Bytes(rerr.Message, 100))
	}
	m, x2, o := e.getTask(ctx, id)
	if o != nil {
		return *o
	}
	if taskStatus(m) == "failed" {
		return check.Failf(check.Protocol.Of(x2), "after a tasks/update with a key the task never issued, the task failed; such responses SHOULD be ignored")
	}
	return check.Pass()
}

func taskInputKeys(ctx context.Context, e *Env) Outcome {
	id, m, o := e.inputTask(ctx)
	if o != nil {
		return *o
	}
	first := objectMembers(m["inputRequests"])
	m2, x, o := e.getTask(ctx, id)
	if o != nil {
		return *o
	}
	if taskStatus(m2) == "input_required" {
		for k, r2 := range objectMembers(m2["inputRequests"]) {
			if r1, ok := first[k]; ok && !canon.EqualJSON(r1, r2) {
				return check.Failf(check.Protocol.Of(x), "inputRequests[%q] names another request on the next poll (%s, then %s): a key MUST NOT refer to two distinct requests over a task's lifetime",
					k, clip.Bytes(string(r1), 100), clip.Bytes(string(r2), 100))
			}
		}
	}
	if _, x, err := e.send(ctx, "tasks/update", map[string]any{"taskId": id, "inputResponses": inputResponses(m["inputRequests"])}, withCaps(tasksCaps())); err != nil || x.RPCError() != nil {
		return check.Skip("the input requests could not be answered (see tasks/update-ack)")
	}
	for poll := 1; poll <= maxTaskPolls; poll++ {
		m3, x, o := e.getTask(ctx, id)
		if o != nil {
			return *o
		}
		st := taskStatus(m3)
		if st == "input_required" {
			for k := range objectMembers(m3["inputRequests"]) {
				if _, answered := first[k]; answered {
					return check.Failf(check.Protocol.Of(x), "inputRequests[%q] was answered with tasks/update and is asked again: a server MUST NOT reuse a key after a response for it was delivered", k)
				}
			}
		}
		if st != "working" && st != "input_required" {
			break
		}
		e.pollWait(ctx, m3)
	}
	return check.Pass()
}

func taskCancelAck(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	_, x, err := e.send(ctx, "tasks/cancel", map[string]any{"taskId": id}, withCaps(tasksCaps()))
	return judgeAck(x, err, "tasks/cancel")
}

func taskNameHeader(ctx context.Context, e *Env) Outcome {
	id, _, _, o := e.createTask(ctx, e.taskTools[0])
	if o != nil {
		return *o
	}
	_, x, err := e.send(ctx, "tasks/get", map[string]any{"taskId": id}, func(c *mcp.Call) {
		c.Meta()[mcp.MetaClientCapabilities] = tasksCaps()
		c.Header.Set(mcp.HeaderName, "mcp-eval-probe-other-task")
	})
	return e.expectError(x, err, "tasks/get with an Mcp-Name that is not its taskId", http.StatusBadRequest, mcp.CodeHeaderMismatch)
}

// needsTasks is the Skip of the checks of a server that declares the
// extension.
func needsTasks(e *Env) string {
	if !e.declaresExtension(tasksExt) {
		return "the server does not declare " + tasksExt + " under capabilities.extensions"
	}
	return ""
}

// tasksCaps declares every client capability and the extension.
func tasksCaps() map[string]any {
	c := allClientCapabilities()
	c["extensions"] = map[string]any{tasksExt: map[string]any{}}
	return c
}

func withCaps(caps map[string]any) func(*mcp.Call) {
	return func(c *mcp.Call) { c.Meta()[mcp.MetaClientCapabilities] = caps }
}

// taskState is what the run learnt of the server's tasks.
type taskState struct {
	once sync.Once
	// why is set when no safe tool answers with a task.
	why string
}

// findTaskTools calls each safe tool (at most maxProbedTools) declaring
// the extension and every client capability, once per run, and keeps
// those that answer with a task; it returns why none does ("" when one
// does).
func (e *Env) findTaskTools(ctx context.Context) string {
	e.tasks.once.Do(func() {
		tools := e.safeTools()
		tools = tools[:min(len(tools), maxProbedTools)]
		for _, t := range tools {
			args := schema.SampleArgs(t.InputSchema)
			call, x, err := e.send(ctx, "tools/call", map[string]any{"name": t.Name, "arguments": args}, withCaps(tasksCaps()))
			if err != nil || x.Response == nil || x.Response.Error != nil {
				continue
			}
			if m, _ := resultMembers(call, x, nil); isTaskAnswer(m) {
				e.taskTools = append(e.taskTools, toolProbe{Tool: t, Args: args})
			}
		}
		if len(e.taskTools) == 0 {
			e.tasks.why = fmt.Sprintf("no safe tool answered with a task when called declaring %s (%d safe tools called)", tasksExt, len(tools))
		}
	})
	return e.tasks.why
}

// isTaskAnswer reports whether a tools/call result is a task handle: its
// resultType says so, or it carries a taskId and a status where a
// CallToolResult would carry content.
func isTaskAnswer(m map[string]json.RawMessage) bool {
	if m == nil {
		return false
	}
	if resultTypeOf(m) == "task" {
		return true
	}
	_, id := m["taskId"]
	_, st := m["status"]
	_, content := m["content"]
	return id && st && !content
}

// createTask calls p declaring the extension and returns the new task's
// id and the CreateTaskResult, or the outcome that ends the check.
func (e *Env) createTask(ctx context.Context, p toolProbe) (string, map[string]json.RawMessage, *mcp.Exchange, *Outcome) {
	call, x, err := e.send(ctx, "tools/call", map[string]any{"name": p.Tool.Name, "arguments": p.Args}, withCaps(tasksCaps()))
	m, o := resultMembers(call, x, err)
	if o != nil {
		return "", nil, x, o
	}
	if !isTaskAnswer(m) {
		s := check.Skip(p.Tool.Name + " no longer answers with a task")
		return "", nil, x, &s
	}
	var id string
	if json.Unmarshal(m["taskId"], &id) != nil || id == "" {
		f := check.Failf(check.Protocol.Of(x), "the task answer of %s has taskId %s, want a non-empty string", p.Tool.Name, orAbsent(m["taskId"]))
		return "", nil, x, &f
	}
	return id, m, x, nil
}

// getTask polls a task once.
func (e *Env) getTask(ctx context.Context, id string) (map[string]json.RawMessage, *mcp.Exchange, *Outcome) {
	call, x, err := e.send(ctx, "tasks/get", map[string]any{"taskId": id}, withCaps(tasksCaps()))
	m, o := resultMembers(call, x, err)
	return m, x, o
}

// pollWait waits the task's pollIntervalMs before the next poll, at most
// maxPollWait (a poll sooner than the interval MAY be rate-limited; the
// checks judge a few polls, not a whole run of a long task).
func (e *Env) pollWait(ctx context.Context, m map[string]json.RawMessage) {
	var ms int64
	_ = json.Unmarshal(m["pollIntervalMs"], &ms)
	d := min(time.Duration(max(ms, 20))*time.Millisecond, maxPollWait)
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
}

// inputTask creates tasks with each task tool until one reaches
// input_required, and returns its id and that tasks/get answer.
func (e *Env) inputTask(ctx context.Context) (string, map[string]json.RawMessage, *Outcome) {
	for _, p := range e.taskTools {
		id, _, _, o := e.createTask(ctx, p)
		if o != nil {
			return "", nil, o
		}
		for poll := 1; poll <= maxTaskPolls; poll++ {
			m, _, o := e.getTask(ctx, id)
			if o != nil {
				return "", nil, o
			}
			switch taskStatus(m) {
			case "input_required":
				return id, m, nil
			case "working":
				e.pollWait(ctx, m)
				continue
			}
			break
		}
	}
	s := check.Skip("no safe tool's task asked for input (status input_required) within a few polls")
	return "", nil, &s
}

func taskStatus(m map[string]json.RawMessage) string {
	var s string
	_ = json.Unmarshal(m["status"], &s)
	return s
}

// taskShape judges the Task members of a task message ("" when fine).
func taskShape(m map[string]json.RawMessage) string {
	var id string
	if json.Unmarshal(m["taskId"], &id) != nil || id == "" {
		return "taskId is " + orAbsent(m["taskId"]) + ", want a non-empty string"
	}
	if st := taskStatus(m); !taskStatuses[st] {
		return "status is " + orAbsent(m["status"]) + ", want working, input_required, completed, failed or cancelled"
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		var ts string
		if json.Unmarshal(m[k], &ts) != nil {
			return k + " is " + orAbsent(m[k]) + ", want an ISO 8601 timestamp"
		}
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			return fmt.Sprintf("%s %q is not an ISO 8601 (RFC 3339) timestamp", k, ts)
		}
	}
	if raw, ok := m["ttlMs"]; !ok {
		return "ttlMs is missing (an integer, or null for unlimited)"
	} else if string(raw) != "null" {
		var n int64
		if json.Unmarshal(raw, &n) != nil || n < 0 {
			return "ttlMs is " + clip.Bytes(string(raw), 40) + ", want an integer ≥ 0 or null"
		}
	}
	if raw, ok := m["pollIntervalMs"]; ok {
		var n int64
		if json.Unmarshal(raw, &n) != nil || n < 0 {
			return "pollIntervalMs is " + clip.Bytes(string(raw), 40) + ", want an integer ≥ 0"
		}
	}
	return ""
}

// detailedShape judges a DetailedTask (tasks/get, notifications/tasks):
// the Task members and the member its status requires.
func detailedShape(m map[string]json.RawMessage) string {
	if bad := taskShape(m); bad != "" {
		return bad
	}
	switch taskStatus(m) {
	case "input_required":
		if r := m["inputRequests"]; len(objectMembers(r)) == 0 {
			return "status input_required without an inputRequests object of the outstanding requests (" + orAbsent(r) + ")"
		}
	case "completed":
		if r := m["result"]; len(r) == 0 || r[0] != '{' {
			return "status completed without a result object (" + orAbsent(r) + ")"
		}
	case "failed":
		var er struct {
			Code    *int    `json:"code"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(m["error"], &er) != nil || er.Code == nil || er.Message == nil {
			return "status failed without the JSON-RPC error (an error object with an integer code and a message): " + orAbsent(m["error"])
		}
	}
	return ""
}

// requiredExtension says what a -32021 lacks to name the extension.
func requiredExtension(rerr *mcp.Error) string {
	var d struct {
		Required struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"requiredCapabilities"`
	}
	_ = json.Unmarshal(rerr.Data, &d)
	if _, ok := d.Required.Extensions[tasksExt]; !ok {
		return fmt.Sprintf("-32021 without data.requiredCapabilities.extensions[%q] (data %s)", tasksExt, orAbsent(rerr.Data))
	}
	return ""
}

// judgeAck judges the answer to tasks/update or tasks/cancel: a result with
// nothing but resultType "complete" (and _meta).
func judgeAck(x *mcp.Exchange, err error, method string) Outcome {
	if err != nil {
		return check.Errored(err, check.Protocol.Of(x))
	}
	if x.Response == nil {
		return check.Failf(check.Protocol.Of(x), "%s got no JSON-RPC answer (%s)", method, cameBack(x))
	}
	if rerr := x.Response.Error; rerr != nil {
		return check.Failf(check.Protocol.Of(x), "%s got error %d (%s); on success the server MUST acknowledge with an empty result", method, rerr.Code, clip.Bytes(rerr.Message, 100))
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(x.Response.Result, &m) != nil {
		return check.Failf(check.Protocol.Of(x), "%s: the result is not an object", method)
	}
	if rt := resultTypeOf(m); rt != "complete" {
		return check.Failf(check.Protocol.Of(x), "%s answered resultType %q; it MUST be \"complete\", the standard result of %s", method, rt, method)
	}
	var extra []string
	for k := range m {
		if k != "resultType" && k != "_meta" {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return check.Failf(check.Protocol.Of(x), "%s answered a result with %s; the acknowledgement MUST be an empty result (resultType and _meta only)", method, strings.Join(extra, ", "))
	}
	return check.Pass()
}

func cameBackResult(x *mcp.Exchange) string {
	if x.Response == nil {
		return cameBack(x)
	}
	return "result " + clip.Bytes(string(x.Response.Result), 100)
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// listenFor opens a subscription with filter declaring caps, reads it for
// d (or until the server answers), closes it, and returns the
// notifications of the subscription, the exchange and its error.
func (e *Env) listenFor(ctx context.Context, filter map[string]any, caps map[string]any, d time.Duration) ([]*mcp.Message, *mcp.Exchange, error) {
	call := e.modern.NewCall("subscriptions/listen", map[string]any{"notifications": filter})
	call.Meta()[mcp.MetaClientCapabilities] = caps
	id, _ := json.Marshal(call.ID)
	st, _ := e.modern.Transport().(*mcp.Stdio)
	before := 0
	if st != nil {
		before = len(st.Notifications())
	}
	lctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	x, err := e.modern.Do(lctx, call)
	var msgs []*mcp.Message
	if x != nil {
		for _, m := range x.Messages {
			if m.IsNotification() {
				msgs = append(msgs, m)
			}
		}
	}
	if st != nil {
		all := st.Notifications()
		for _, m := range all[min(before, len(all)):] {
			var p struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			_ = json.Unmarshal(m.Params, &p)
			if canon.EqualJSON(p.Meta[metaSubscriptionID], id) || (m.Method == "notifications/tasks" && p.Meta[metaSubscriptionID] == nil) {
				msgs = append(msgs, m)
			}
		}
	}
	return msgs, x, err
}

// judgeTaskListen subscribes to one task's status notifications.
func (e *Env) judgeTaskListen(ctx context.Context, taskID string) Outcome {
	filter := map[string]any{"taskIds": []string{taskID}}
	window := taskListenWindow
	msgs, x, err := e.listenFor(ctx, filter, tasksCaps(), window)
	if len(msgs) == 0 && (x == nil || x.Response == nil) && ctx.Err() == nil && e.modern.Timeout() > window {
		// Nothing at all within the window, not even the acknowledgement:
		// before the MUST is judged, a second subscription is given a
		// request's whole timeout (--timeout). Beside 24 CPU-bound
		// processes a correct fixture's acknowledgement came after 1 s.
		window = e.modern.Timeout()
		msgs, x, err = e.listenFor(ctx, filter, tasksCaps(), window)
	}
	ev := check.Protocol.Of(x)
	if x != nil && x.Response != nil && x.Response.Error != nil {
		rerr := x.Response.Error
		if rerr.Code == mcp.CodeMethodNotFound {
			return check.Skip("the server does not serve subscriptions/listen (-32601), so it pushes no task status (a MAY)")
		}
		return check.Failf(ev, "subscriptions/listen for the task's id, declaring the extension, got error %d (%s)", rerr.Code, clip.Bytes(rerr.Message, 100))
	}
	if len(msgs) == 0 {
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
			var te *mcp.TimeoutError
			if !errors.As(err, &te) {
				return check.Errored(fmt.Errorf("subscriptions/listen: %w", err), ev)
			}
		}
		return check.Failf(ev, "subscriptions/listen for taskIds got no acknowledgement in %v (notifications/subscriptions/acknowledged MUST come first)", window)
	}
	shown := make([]json.RawMessage, 0, min(len(msgs), 10))
	for _, m := range msgs[:min(len(msgs), 10)] {
		shown = append(shown, m.Raw)
	}
	evm := check.With(ev, "notifications", shown)
	if msgs[0].Method != "notifications/subscriptions/acknowledged" {
		return check.Failf(evm, "the stream's first message is %s; notifications/subscriptions/acknowledged MUST come first", msgs[0].Method)
	}
	var ack struct {
		Notifications struct {
			TaskIDs *[]string `json:"taskIds"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal(msgs[0].Params, &ack)
	honoured := map[string]bool{}
	if ack.Notifications.TaskIDs != nil {
		for _, t := range *ack.Notifications.TaskIDs {
			if t != taskID {
				return check.Failf(evm, "the acknowledgement honours taskId %s, which the filter did not ask for (it lists the task ids agreed to)", t)
			}
			honoured[t] = true
		}
	}
	notes := 0
	for i, m := range msgs[1:] {
		switch m.Method {
		case "notifications/progress", "notifications/message":
			return check.Failf(evm, "notification %d on the task's subscription is %s, which MUST NOT be sent on a subscriptions/listen stream for a task", i+2, m.Method)
		case "notifications/tasks":
		default:
			continue
		}
		notes++
		var p map[string]json.RawMessage
		_ = json.Unmarshal(m.Params, &p)
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(p["_meta"], &meta)
		if _, ok := meta[metaSubscriptionID]; !ok {
			return check.Failf(evm, "notifications/tasks %d carries no _meta %s (every notification on a subscriptions/listen stream MUST carry it)", i+2, metaSubscriptionID)
		}
		if bad := detailedShape(p); bad != "" {
			return check.Failf(evm, "notifications/tasks %d does not carry the task's DetailedTask: %s", i+2, bad)
		}
		var tid string
		_ = json.Unmarshal(p["taskId"], &tid)
		if !honoured[tid] {
			return check.Failf(evm, "notifications/tasks %d is for task %q, which the acknowledgement did not honour", i+2, tid)
		}
	}
	return check.PassInfo(fmt.Sprintf("acknowledged taskIds %v; %d task notifications in %v", sortedKeys(honoured), notes, taskListenWindow))
}
