package mcptest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The tasks extension (io.modelcontextprotocol/tasks, specification/draft/
// tasks.md of modelcontextprotocol/ext-tasks), served when Options.Tasks is
// set: the server declares it under capabilities.extensions, and two
// read-only tools run as tasks for a request that declares it in its
// clientCapabilities.
//
//   - build_report may run either way: without the extension it answers at
//     once; with it, a task that is working at the first tasks/get and
//     completed with the tool result from the second on.
//   - approve_report needs a task: without the extension it fails with
//     -32021 naming the extension; with it, when the creating request also
//     declared elicitation, the task asks for approval (input_required, one
//     form elicitation under the key "approve") until tasks/update answers
//     it, then completes.
//
// tasks/get, tasks/update and tasks/cancel want the extension declared
// (-32021) and a known taskId (-32602); update and cancel acknowledge with
// an empty result, keys that are not outstanding are ignored; a
// subscriptions/listen filter with taskIds is acknowledged with the known
// ones and followed by each one's current state (notifications/tasks).
// Task ids are 128 random bits in hex.

const (
	tasksExtension    = "io.modelcontextprotocol/tasks"
	taskTTLMs         = 60000
	taskPollMs        = 50
	toolBuildReport   = "build_report"
	toolApproveReport = "approve_report"
)

// Defects of the tasks checks, by check id.
const (
	DefectTaskCapabilitySlot     = "tasks/capability-slot"
	DefectTaskWithoutCapability  = "tasks/no-task-without-capability"
	DefectTaskRequiredError      = "tasks/required-task-error"
	DefectTaskCreateResult       = "tasks/create-result"
	DefectTaskGetAfterCreate     = "tasks/get-after-create"
	DefectTaskGetShape           = "tasks/get-shape"
	DefectTaskUnknown            = "tasks/unknown-task"
	DefectTaskUnknownUpdate      = "tasks/unknown-task-update-cancel"
	DefectTaskRequiresCapability = "tasks/requires-capability"
	DefectTaskListenCapability   = "tasks/listen-requires-capability"
	DefectTaskNotifications      = "tasks/status-notifications"
	DefectTaskUpdateAck          = "tasks/update-ack"
	DefectTaskUpdateUnknownKeys  = "tasks/update-unknown-keys"
	DefectTaskInputKeys          = "tasks/input-keys"
	DefectTaskCancelAck          = "tasks/cancel-ack"
	DefectTaskNameHeader         = "tasks/name-header"
)

// taskTools are listed when Options.Tasks is set.
const (
	toolBuildReportJSON = `{
  "name": "build_report",
  "title": "Forecast report",
  "description": "Compile a summary report of the forecasts served so far; it runs as a task when the client supports tasks.",
  "annotations": {"readOnlyHint": true, "openWorldHint": false},
  "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
}`
	toolApproveReportJSON = `{
  "name": "approve_report",
  "title": "Report approval",
  "description": "Ask the user, inside a task, to approve the summary report through a form; approving changes nothing.",
  "annotations": {"readOnlyHint": true, "openWorldHint": false},
  "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false}
}`
)

type task struct {
	id, tool          string
	created, updated  time.Time
	polls             int
	status            string
	askInput, replied bool
	durable           bool // tasks/get resolves (the get-after-create defect delays it)
}

func (s *Server) tasksOn() bool { return s.opts.Tasks && !s.opts.Legacy }

// hasTasks reports whether a request's clientCapabilities declare the
// extension.
func hasTasks(caps map[string]json.RawMessage) bool {
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(caps["extensions"], &ext)
	_, ok := ext[tasksExtension]
	return ok
}

func missingTasks() outcome {
	return fail(http.StatusBadRequest, codeMissingCapability, "Missing required client capability: "+tasksExtension,
		map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{tasksExtension: map[string]any{}}}})
}

// callTaskTool serves the two task tools.
func (s *Server) callTaskTool(c *call, name string) outcome {
	declared := hasTasks(c.caps)
	if !declared && !s.has(DefectTaskWithoutCapability) {
		if name == toolApproveReport {
			if s.has(DefectTaskRequiredError) {
				return fail(http.StatusOK, codeInternalError, "Internal error: approve_report runs only as a task", nil)
			}
			return missingTasks()
		}
		return toolText("Report: 3 forecasts served, all sunny.")
	}
	s.countCall(name)
	now := time.Now().UTC()
	t := &task{id: newTaskID(), tool: name, created: now, updated: now, status: "working",
		askInput: name == toolApproveReport && hasElicitation(c.caps), durable: !s.has(DefectTaskGetAfterCreate)}
	s.mu.Lock()
	if s.tasks == nil {
		s.tasks = map[string]*task{}
	}
	s.tasks[t.id] = t
	s.mu.Unlock()
	r := taskFields(t)
	r["resultType"] = "task"
	if s.has(DefectTaskCreateResult) {
		r["resultType"] = "complete" // a task handle disguised as an ordinary result
	}
	return outcome{result: r}
}

func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// taskFields is the Task part every task message carries.
func taskFields(t *task) map[string]any {
	return map[string]any{
		"taskId": t.id, "status": t.status,
		"createdAt": t.created.Format(time.RFC3339Nano), "lastUpdatedAt": t.updated.Format(time.RFC3339Nano),
		"ttlMs": taskTTLMs, "pollIntervalMs": taskPollMs,
	}
}

// detailed is the DetailedTask of t: the status's own member inlined.
func (s *Server) detailed(t *task) map[string]any {
	r := taskFields(t)
	switch t.status {
	case "input_required":
		msg := "Approve the summary report?"
		if s.has(DefectTaskInputKeys) {
			msg = fmt.Sprintf("Approve the summary report (poll %d)?", t.polls) // the same key, another request
		}
		r["inputRequests"] = map[string]any{"approve": map[string]any{
			"method": "elicitation/create",
			"params": map[string]any{"mode": "form", "message": msg, "requestedSchema": map[string]any{
				"type": "object", "properties": map[string]any{"approved": map[string]any{"type": "boolean", "description": "Approve the report"}},
				"required": []any{"approved"}}},
		}}
	case "completed":
		text := "Report: 3 forecasts served, all sunny."
		if t.tool == toolApproveReport {
			text = "The report was approved. Nothing was changed."
			if !t.askInput {
				text = "The report could not be put to the user (no elicitation). Nothing was changed."
			}
		}
		r["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": false}
	}
	return r
}

// advance moves t on by one poll.
func (t *task) advance() {
	if t.status == "cancelled" || t.status == "completed" {
		return
	}
	t.polls++
	prev := t.status
	switch {
	case t.tool == toolBuildReport && t.polls >= 2:
		t.status = "completed"
	case t.tool == toolApproveReport && t.askInput && !t.replied:
		t.status = "input_required"
	case t.tool == toolApproveReport:
		t.status = "completed"
	}
	if t.status != prev {
		t.updated = time.Now().UTC()
	}
}

// taskMethod serves tasks/get, tasks/update and tasks/cancel.
func (s *Server) taskMethod(c *call) outcome {
	m := c.msg.method
	if !hasTasks(c.caps) && !s.has(DefectTaskRequiresCapability) {
		return missingTasks()
	}
	id, present, ok := paramString(c.params, "taskId")
	if !present || !ok {
		return invalidParams("taskId is required and must be a string", nil)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.tasks[id]
	if t == nil {
		switch {
		case m == "tasks/get" && s.has(DefectTaskUnknown):
			return fail(http.StatusOK, codeInternalError, "Internal error: lookup failed", nil)
		case m != "tasks/get" && s.has(DefectTaskUnknownUpdate):
			return outcome{result: map[string]any{}}
		}
		return invalidParams("Failed to retrieve task: Task not found", nil)
	}
	switch m {
	case "tasks/get":
		if !t.durable {
			t.durable = true // visible from the next request on: too late
			return invalidParams("Failed to retrieve task: Task not found", nil)
		}
		t.advance()
		r := s.detailed(t)
		if s.has(DefectTaskGetShape) {
			r["resultType"] = "task" // as tasks.md's failed-task example has it, against its own rule
		}
		return outcome{result: r}
	case "tasks/update":
		var responses map[string]json.RawMessage
		raw, ok := c.params["inputResponses"]
		if !ok || json.Unmarshal(raw, &responses) != nil || responses == nil {
			return invalidParams("inputResponses must be an object", nil)
		}
		for k := range responses {
			if k == "approve" && t.status == "input_required" {
				t.replied = true
				continue
			}
			if s.has(DefectTaskUpdateUnknownKeys) {
				return invalidParams("no outstanding input request "+k, nil)
			}
			// Not outstanding: ignored (tasks.md, SHOULD).
		}
		if s.has(DefectTaskUpdateAck) {
			return outcome{result: map[string]any{"accepted": len(responses)}}
		}
		return outcome{result: map[string]any{}}
	default: // tasks/cancel
		if t.status != "completed" && t.status != "failed" {
			t.status, t.updated = "cancelled", time.Now().UTC()
		}
		if s.has(DefectTaskCancelAck) {
			return outcome{result: s.detailed(t)}
		}
		return outcome{result: map[string]any{}}
	}
}

// listenTasks honours a filter's taskIds: -32021 without the extension,
// else the known ids, and a notifications/tasks of each one's state after
// the acknowledgement. ok is false when the request must be refused.
func (s *Server) listenTasks(c *call, filter map[string]json.RawMessage, id json.RawMessage) (honoured []string, notes [][]byte, refuse *outcome) {
	raw, asked := filter["taskIds"]
	if !asked || !s.tasksOn() {
		return nil, nil, nil
	}
	if !hasTasks(c.caps) && !s.has(DefectTaskListenCapability) {
		o := missingTasks()
		return nil, nil, &o
	}
	var ids []string
	if json.Unmarshal(raw, &ids) != nil {
		o := invalidParams("notifications.taskIds must be an array of strings", nil)
		return nil, nil, &o
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	honoured = []string{}
	for _, tid := range ids {
		t := s.tasks[tid]
		if t == nil {
			continue
		}
		honoured = append(honoured, tid)
		params := s.detailed(t)
		if !s.has(DefectTaskNotifications) {
			params["_meta"] = map[string]any{metaSubscriptionID: id}
		}
		notes = append(notes, marshalMust(map[string]any{"jsonrpc": "2.0", "method": "notifications/tasks", "params": params}))
	}
	return honoured, notes, nil
}

// What the tasks defects show besides their own check (expect.go).
func init() {
	// A task that tasks/get does not resolve at once breaks every check
	// that polls the task it just created.
	expect(DefectTaskGetAfterCreate, Expect{Also: []string{"tasks/get-shape", "tasks/input-keys", "tasks/update-ack", "tasks/update-unknown-keys"}})
	// approve_report then fails with -32603 where a safe tool answered,
	// and is the first safe tool result-type/tools-call calls.
	expect(DefectTaskRequiredError, Expect{Also: []string{"result-type/tools-call"}})
	expect(DefectTaskCreateResult, Expect{Shape: true})
	expect(DefectTaskGetShape, Expect{Shape: true})
}
