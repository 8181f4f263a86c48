package otlp

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config configures an Exporter.
type Config struct {
	// Endpoint is the URL spans are POSTed to, normally ending in
	// /v1/traces.
	Endpoint string
	// Header is sent with every export (an API key for a hosted backend).
	// Values are never printed.
	Header map[string]string
	// Gzip compresses the requests.
	Gzip bool
	// Timeout bounds each export request; 0 means 10 seconds.
	Timeout time.Duration
	// ServiceName is the service.name resource attribute; "" means
	// "mcp-eval". ResourceAttributes are added to the resource.
	ServiceName        string
	ResourceAttributes map[string]string
}

// The standard OpenTelemetry environment variables this package reads.
const (
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// ConfigFromEnv reads the OpenTelemetry exporter variables. ok is false
// when no endpoint is set or tracing is switched off (OTEL_SDK_DISABLED=
// true, OTEL_TRACES_EXPORTER=none): then nothing is exported. It reads:
//
//   - OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, used as is, or else
//     OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces appended (the spec's rule);
//   - OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL: only http/protobuf is spoken
//     (no gRPC, by design), so grpc or http/json is an error;
//   - OTEL_EXPORTER_OTLP_[TRACES_]HEADERS (key=value,… URL-encoded),
//     _COMPRESSION (gzip or none) and _TIMEOUT (milliseconds);
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
//
// The signal-specific variable wins over the general one.
func ConfigFromEnv(getenv func(string) string) (cfg Config, ok bool, err error) {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	either := func(k string) string {
		if v := env("OTEL_EXPORTER_OTLP_TRACES_" + k); v != "" {
			return v
		}
		return env("OTEL_EXPORTER_OTLP_" + k)
	}
	if strings.EqualFold(env("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(env("OTEL_TRACES_EXPORTER"), "none") {
		return Config{}, false, nil
	}
	switch {
	case env(EnvTracesEndpoint) != "":
		cfg.Endpoint = env(EnvTracesEndpoint)
	case env(EnvEndpoint) != "":
		cfg.Endpoint = strings.TrimRight(env(EnvEndpoint), "/") + "/v1/traces"
	default:
		return Config{}, false, nil
	}
	u, perr := url.Parse(cfg.Endpoint)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Config{}, false, fmt.Errorf("OpenTelemetry endpoint %q: want an http:// or https:// URL", redact(cfg.Endpoint))
	}
	if p := either("PROTOCOL"); p != "" && p != "http/protobuf" {
		return Config{}, false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL %q: mcp-eval exports OTLP over HTTP with protobuf only; set http/protobuf (a collector's port 4318)", p)
	}
	cfg.Header, err = parsePairs(either("HEADERS"), "OTEL_EXPORTER_OTLP_HEADERS", true)
	if err != nil {
		return Config{}, false, err
	}
	switch c := strings.ToLower(either("COMPRESSION")); c {
	case "", "none":
	case "gzip":
		cfg.Gzip = true
	default:
		return Config{}, false, fmt.Errorf("OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", c)
	}
	if t := either("TIMEOUT"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n <= 0 {
			return Config{}, false, fmt.Errorf("OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds, such as 10000", t)
		}
		cfg.Timeout = time.Duration(n) * time.Millisecond
	}
	cfg.ServiceName = env("OTEL_SERVICE_NAME")
	cfg.ResourceAttributes, err = parsePairs(env("OTEL_RESOURCE_ATTRIBUTES"), "OTEL_RESOURCE_ATTRIBUTES", false)
	if err != nil {
		return Config{}, false, err
	}
	return cfg, true, nil
}

// parsePairs reads "k1=v1,k2=v2" with URL-encoded values (the W3C Baggage
// form the OpenTelemetry spec uses). secret keeps values out of errors.
func parsePairs(s, name string, secret bool) (map[string]string, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]string{}
	for i, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			if secret {
				// The entry may be a bare token: say where, not what.
				return nil, fmt.Errorf("%s: entry %d is not key=value", name, i+1)
			}
			return nil, fmt.Errorf("%s: %q is not key=value", name, pair)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s: the value of %s is not URL-encoded properly", name, k)
		}
		out[k] = dv
	}
	return out, nil
}

// redact drops credentials and the query from a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
