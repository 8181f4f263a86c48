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
	var m mcpFan
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	return m
}

type mcpFan []mcp.Observer

func (m mcpFan) RequestDone(method, name string, d time.Duration, bytesIn int, err error) {
	for _, o := range m {
		o.RequestDone(method, name, d, bytesIn, err)
	}
}

// LLMObservers is MCPObservers for llm.Observer.
func LLMObservers(obs ...llm.Observer) llm.Observer {
	var m llmFan
	for _, o := range obs {
		if o != nil {
			m = append(m, o)
		}
	}
	return m
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
