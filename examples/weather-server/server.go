package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	serverName    = "weather-server"
	serverVersion = "0.1.0"

	stationsURI         = "weather://stations"
	stationTemplateURI  = "weather://stations/{id}"
	stationURIPrefix    = "weather://stations/"
	listTTLMilliseconds = 5 * 60 * 1000 // the surface only changes on restart
	readTTLMilliseconds = 60 * 1000
)

// newServer builds the MCP server with its tools, prompt and resources.
// send_email records into ob. logger receives the SDK's own diagnostics.
func newServer(ob *outbox, logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: serverName, Title: "Weather demo", Version: serverVersion}, serverOptions(logger))
	addTools(s, ob)
	addPrompts(s)
	addResources(s)
	return s
}

// serverOptions are the server's instructions, capabilities and cache
// hints.
func serverOptions(logger *slog.Logger) *mcp.ServerOptions {
	return &mcp.ServerOptions{
		Instructions: "Demo server for mcp-eval with deterministic fake data: current weather for " +
			"eight cities, a small invoice table, and a send_email tool that only records " +
			"messages in an in-memory outbox.",
		Logger: logger,
		// Set explicitly because the SDK's default adds "logging", which
		// 2026-07-28 deprecates, and the inferred capabilities announce
		// listChanged, which this server never sends: its surface is fixed.
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Resources: &mcp.ResourceCapabilities{},
		},
		// 2026-07-28 requires ttlMs and cacheScope on server/discover, the
		// list methods and resources/read. The SDK fills cacheScope but
		// leaves ttlMs at 0 (immediately stale); give clients something to
		// cache. The list methods call this with the server's lock held, so
		// it must not call back into the server.
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			c.CacheScope = "public"
			if _, ok := req.(*mcp.ReadResourceRequest); ok {
				c.TTLMs = readTTLMilliseconds
			} else {
				c.TTLMs = listTTLMilliseconds
			}
		},
	}
}

// addTools registers get_weather, search_invoices and send_email (which
// records into ob).
func addTools(s *mcp.Server, ob *outbox) {
	// Registration order is irrelevant to tools/list, which the SDK sorts by
	// name, so the order is deterministic as the spec recommends.
	mcp.AddTool(s, &mcp.Tool{
		Name:  "get_weather",
		Title: "Current weather",
		Description: "Get the current weather observation for a city: temperature, sky conditions, " +
			"humidity and wind speed. Covers a fixed set of eight world cities (see the " +
			"weather://stations resource); answers in celsius unless fahrenheit is asked for.",
		InputSchema:  weatherInputSchema(),
		OutputSchema: weatherOutputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  ptr(false),
		},
	}, getWeatherHandler)

	mcp.AddTool(s, &mcp.Tool{
		Name:  "search_invoices",
		Title: "Search invoices",
		Description: "Search the accounts-receivable invoices of one customer, optionally filtered by " +
			"status (open, paid, overdue) and issue date. Returns the matching invoices newest " +
			"first with amounts and due dates, plus the total number of matches.",
		InputSchema:  searchInvoicesInputSchema(),
		OutputSchema: searchInvoicesOutputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:   true,
			IdempotentHint: true,
			OpenWorldHint:  ptr(false),
		},
	}, searchInvoicesHandler)

	mcp.AddTool(s, &mcp.Tool{
		Name:  "send_email",
		Title: "Send email",
		Description: "Send a plain-text email to one recipient and return its message id. In this demo " +
			"server nothing is delivered: the message is stored in an in-memory outbox, so it is " +
			"safe to call, but each call adds a new message.",
		InputSchema: sendEmailInputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    false,
			DestructiveHint: ptr(false),
			IdempotentHint:  false,
			OpenWorldHint:   ptr(true),
		},
	}, sendEmailHandler(ob))
}

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name:  "weather_report",
		Title: "Weather report",
		Description: "Ask the assistant for a short, friendly weather report, for one city or for " +
			"every covered city, using the get_weather tool.",
		Arguments: []*mcp.PromptArgument{{
			Name:        "city",
			Title:       "City",
			Description: "City to report on, e.g. Paris; omit for a round-up of every covered city.",
		}},
	}, weatherReportPrompt)
}

// addResources registers the station list and the one-station template.
func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI:         stationsURI,
		Name:        "stations",
		Title:       "Weather stations",
		Description: "Every weather station the server knows, with city, country and coordinates, as a JSON array.",
		MIMEType:    "application/json",
	}, readStations)

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: stationTemplateURI,
		Name:        "station",
		Title:       "Weather station",
		Description: "One weather station by its ICAO id (e.g. LFPG for Paris), as a JSON object.",
		MIMEType:    "application/json",
	}, readStation)
}

func weatherReportPrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	city := strings.TrimSpace(req.Params.Arguments["city"])
	var text string
	if city == "" {
		text = "Write a short weather round-up covering every city in the weather://stations " +
			"resource. Call get_weather once per city and keep each city to one sentence."
	} else {
		s, ok := stationByCity(city)
		if !ok {
			// An argument the server cannot use is invalid params, the
			// code the spec gives for bad prompts/get arguments.
			return nil, &jsonrpc.Error{
				Code:    jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("no weather station for %q; covered cities: %s", city, cityNames()),
			}
		}
		text = fmt.Sprintf("Write a short weather report for %s. Call get_weather with city %q "+
			"first, then describe the temperature, conditions and wind in two or three sentences.",
			s.City, s.City)
	}
	return &mcp.GetPromptResult{
		Description: "Weather report",
		Messages: []*mcp.PromptMessage{{
			Role:    "user",
			Content: &mcp.TextContent{Text: text},
		}},
	}, nil
}

func readStations(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return jsonResource(req.Params.URI, stations)
}

func readStation(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, _ := strings.CutPrefix(req.Params.URI, stationURIPrefix)
	s, ok := stationByID(id)
	if !ok {
		// The template matches any id, so an unknown one reaches this
		// handler; answer as the SDK does for an unregistered URI (-32602
		// under 2026-07-28).
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return jsonResource(req.Params.URI, s)
}

// jsonResource is the resources/read result of uri: v as JSON text.
func jsonResource(uri string, v any) (*mcp.ReadResourceResult, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI:      uri,
		MIMEType: "application/json",
		Text:     string(data),
	}}}, nil
}

// newHTTPHandler serves s over stateless Streamable HTTP at /mcp and at /.
func newHTTPHandler(s *mcp.Server, jsonResponse bool, logger *slog.Logger) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{
		// The SDK accepts protocol 2026-07-28 only in stateless mode; it
		// also makes GET and DELETE answer 405 and ignores Mcp-Session-Id.
		Stateless:    true,
		JSONResponse: jsonResponse,
		Logger:       logger,
		// A client that goes away cancels the tool call it was waiting for.
		PropagateRequestCancellation: true,
	})
	ep := withHTTPWorkarounds(h)
	mux := http.NewServeMux()
	mux.Handle("/mcp", ep)
	mux.Handle("/{$}", ep) // exactly "/", so other paths are still 404
	// The spec requires servers to validate Origin (a browser page must not
	// drive a local server). The SDK's own option for this is deprecated in
	// favour of wrapping the handler; cross-origin browser requests get 403.
	return http.NewCrossOriginProtection().Handler(mux)
}
