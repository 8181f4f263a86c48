package mcptest

import "encoding/json"

// The MCP Apps extension (io.modelcontextprotocol/ui, SEP-1865,
// specification/2026-01-26/apps.mdx of modelcontextprotocol/ext-apps):
// with Options.Apps the fixture declares it under capabilities.extensions,
// lists one more read-only tool whose _meta.ui links a ui:// resource, and
// serves that resource as text/html;profile=mcp-app. The tool answers the
// same text content whether or not the request declares the extension
// (the SEP's text-only fallback).
const (
	appsExtension = "io.modelcontextprotocol/ui"
	appMIMEType   = "text/html;profile=mcp-app"
	appViewURI    = "ui://fixture/forecast-view.html"
	toolShowView  = "show_forecast_view"

	toolShowForecastView = `{
  "name": "show_forecast_view",
  "title": "Forecast view",
  "description": "Show tomorrow's forecast for Springfield as an interactive panel, with the same forecast as text.",
  "annotations": {"readOnlyHint": true, "openWorldHint": false},
  "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
  "_meta": {"ui": {"resourceUri": "ui://fixture/forecast-view.html", "visibility": ["model", "app"]}}
}`
	resourceAppView = `{"uri": "ui://fixture/forecast-view.html", "name": "forecast_view", "title": "Forecast view", "description": "The forecast panel of show_forecast_view.", "mimeType": "text/html;profile=mcp-app"}`
	appViewHTML     = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Forecast</title></head>\n<body><p id=\"forecast\">Springfield: 21 °C, sunny</p></body></html>\n"
)

// appsOn reports whether the fixture serves the extension.
func (s *Server) appsOn() bool { return s.opts.Apps && !s.opts.Legacy }

// appView returns the contents of resources/read for the view resource.
func appView(uri string) map[string]any {
	return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": appMIMEType, "text": appViewHTML}}}
}

// runShowView serves show_forecast_view: text content for every client
// (the view renders it for a host of the extension).
func runShowView() outcome {
	return toolText("Tomorrow in Springfield: 21 °C, sunny.")
}

// declaresApps reports whether the request's clientCapabilities declare
// the extension.
func declaresApps(caps map[string]json.RawMessage) bool {
	var ext map[string]json.RawMessage
	return json.Unmarshal(caps["extensions"], &ext) == nil && ext[appsExtension] != nil
}
