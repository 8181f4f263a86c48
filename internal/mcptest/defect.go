package mcptest

import "fmt"

// A defect that changes the correct server's answer to a request is
// declared whole in a file of its own (defect_<name>.go), with its name,
// the change, and this package's own probe for it:
//
//	func init() {
//		define(answerDefect{Name: "group/check", Alter: …, Probe: …, Expect: …})
//	}
//
// define adds the name to Defects; the change runs on every 2026-07-28
// request while the defect is on (dispatch), the defect matrix test runs
// the probe, and conformance's defect test reads Expect (the checks that
// fail with it; expect.go). Defects that reach deeper (a status, a stream,
// a connection) are switches in the code that serves them (s.has), which
// declares their Expect beside it (expect).

// answerDefect is one defect that alters an answer.
type answerDefect struct {
	// Name is the defect's name: the id of the check it exists for.
	Name string
	// Alter changes o, the correct server's answer to c.
	Alter func(c *call, o *outcome)
	// Probe reports whether a server shows the defect, asking through
	// rpc: this package's own reading of the check, independent of
	// package conformance's code.
	Probe func(rpc RPC) bool
	// MessageProbe, set instead of Probe, reads the whole answer (its id
	// too): rpc sends the request under the given id.
	MessageProbe func(rpc MessageRPC) bool
	// Expect is what a conformance run with the defect on shows besides
	// the failure of its own check (the zero value: nothing else fails).
	Expect Expect
}

// RPC sends one 2026-07-28 request with a complete _meta (over HTTP, with
// every header) and returns the answer's result and error objects, either
// nil.
type RPC func(method string, params map[string]any) (result, err map[string]any)

// MessageRPC sends one 2026-07-28 request as RPC does, under id, and
// returns the whole answer (decoded with json.Number), nil if none.
type MessageRPC func(id any, method string, params map[string]any) map[string]any

// answerDefects are the declared answer defects, in declaration order.
var answerDefects []answerDefect

// define declares an answer defect; it panics on a name taken twice.
func define(d answerDefect) {
	for _, n := range Defects {
		if n == d.Name {
			panic("mcptest: defect " + d.Name + " declared twice")
		}
	}
	Defects = append(Defects, d.Name)
	expect(d.Name, d.Expect)
	answerDefects = append(answerDefects, d)
}

// alter applies the answer defects that are on to o.
func (s *Server) alter(c *call, o *outcome) {
	c.srv = s
	for _, d := range answerDefects {
		if s.has(d.Name) {
			d.Alter(c, o)
		}
	}
}

// answerProbes are the probes of the answer defects, by name, for the
// defect matrix test.
func answerProbes() map[string]func(RPC) bool {
	m := map[string]func(RPC) bool{}
	for _, d := range answerDefects {
		if d.Probe != nil {
			m[d.Name] = d.Probe
		}
	}
	return m
}

// answerMessageProbes are the answer defects' MessageProbes, by name.
func answerMessageProbes() map[string]func(MessageRPC) bool {
	m := map[string]func(MessageRPC) bool{}
	for _, d := range answerDefects {
		if d.MessageProbe != nil {
			m[d.Name] = d.MessageProbe
		}
	}
	return m
}

// instance is a per-Server token for the answer defects that make two
// servers of one configuration (replicas) answer differently.
func (s *Server) instance() string { return fmt.Sprintf("%x", s.stateID[:4]) }

// countFirstPages counts the tools/list first pages s served, for the
// answer defects that change the surface over time.
func (s *Server) countFirstPages() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.firstPages++
	return s.firstPages
}
