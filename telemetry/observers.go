package telemetry

import (
	"time"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/mcp"
)

// MCPObservers returns one mcp.Observer that tells each of obs in turn
// (nil ones are skipped), for a transport that takes a single observer:
// the Recorder and the OTLP exporter both want every exchange.
func MCPObservers(obs ...mcp.Observer) mcp.Observer {
	return mcpFan(present(obs))
}

// present returns the observers that are not nil.
func present[O comparable](obs []O) []O {
	var zero O
	var out []O
	for _, o := range obs {
		if o != zero {
			out = append(out, o)
		}
	}
	return out
}

type mcpFan []mcp.Observer

func (m mcpFan) RequestDone(method, name string, d time.Duration, bytesIn int, err error) {
	for _, o := range m {
		o.RequestDone(method, name, d, bytesIn, err)
	}
}

// MessageReceived passes each message on to the observers that want
// messages (mcp.MessageObserver: whole-message validation).
func (m mcpFan) MessageReceived(sent *mcp.Outgoing, msg *mcp.Message) {
	for _, o := range m {
		if mo, ok := o.(mcp.MessageObserver); ok {
			mo.MessageReceived(sent, msg)
		}
	}
}

// LLMObservers is MCPObservers for llm.Observer.
func LLMObservers(obs ...llm.Observer) llm.Observer {
	return llmFan(present(obs))
}

type llmFan []llm.Observer

func (m llmFan) RequestStart(provider, model string) {
	for _, o := range m {
		o.RequestStart(provider, model)
	}
}

func (m llmFan) RequestEnd(provider, model string, d time.Duration, u llm.Usage, err error) {
	for _, o := range m {
		o.RequestEnd(provider, model, d, u, err)
	}
}

// BatchEnd passes a batch answer on to the observers that take one
// (llm.BatchObserver).
func (m llmFan) BatchEnd(provider, model string, u llm.Usage, err error) {
	for _, o := range m {
		if bo, ok := o.(llm.BatchObserver); ok {
			bo.BatchEnd(provider, model, u, err)
		}
	}
}
