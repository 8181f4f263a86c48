package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool inputs and outputs are Go structs: mcp.AddTool infers their JSON
// Schemas (descriptions come from the jsonschema struct tags), validates
// arguments against the input schema before the handler runs, and returns the
// output as structuredContent plus the same JSON as text. A handler that
// returns an error produces a result with isError set, not a JSON-RPC error,
// which is what the spec asks for tool execution failures: the model gets to
// read the message and try again.

const (
	unitsCelsius    = "celsius"
	unitsFahrenheit = "fahrenheit"

	defaultInvoiceLimit = 10
	maxInvoiceLimit     = 50

	maxSubjectLen = 200
	maxBodyLen    = 10000
)

var invoiceStatuses = []string{"open", "paid", "overdue"}

// weatherInput is the get_weather argument object.
type weatherInput struct {
	City  string `json:"city" jsonschema:"City to report on, e.g. Paris or New York (case-insensitive). The weather://stations resource lists every covered city."`
	Units string `json:"units,omitempty" jsonschema:"Temperature unit of the answer: celsius (the default) or fahrenheit."`
}

// weatherOutput is the get_weather structured result.
type weatherOutput struct {
	City            string  `json:"city" jsonschema:"city name as the station reports it"`
	Country         string  `json:"country" jsonschema:"ISO 3166-1 alpha-2 country code"`
	StationID       string  `json:"stationId" jsonschema:"ICAO code of the reporting station"`
	Units           string  `json:"units" jsonschema:"unit of temperature: celsius or fahrenheit"`
	Temperature     float64 `json:"temperature" jsonschema:"air temperature in the requested unit"`
	Conditions      string  `json:"conditions" jsonschema:"short description of the sky and weather"`
	HumidityPercent int     `json:"humidityPercent" jsonschema:"relative humidity, 0 to 100"`
	WindKph         float64 `json:"windKph" jsonschema:"wind speed in kilometres per hour"`
	ObservedAt      string  `json:"observedAt" jsonschema:"observation time, RFC 3339"`
}

// searchInvoicesInput is the search_invoices argument object.
type searchInvoicesInput struct {
	Customer string `json:"customer" jsonschema:"Customer name or part of it, case-insensitive (e.g. acme matches Acme Corp)."`
	Status   string `json:"status,omitempty" jsonschema:"Only invoices in this state: open, paid or overdue. Omit to include every state."`
	Limit    int    `json:"limit,omitempty" jsonschema:"Maximum number of invoices to return, 1 to 50 (default 10); totalMatches still counts them all."`
	Since    string `json:"since,omitempty" jsonschema:"Only invoices issued on or after this date, as YYYY-MM-DD."`
}

// searchInvoicesOutput is the search_invoices structured result.
type searchInvoicesOutput struct {
	Invoices     []invoice `json:"invoices" jsonschema:"matching invoices, newest first, at most limit of them"`
	TotalMatches int       `json:"totalMatches" jsonschema:"number of matching invoices before limit was applied"`
}

// sendEmailInput is the send_email argument object.
type sendEmailInput struct {
	To      string `json:"to" jsonschema:"Recipient email address, a bare address such as ana@example.com (no display name)."`
	Subject string `json:"subject" jsonschema:"Subject line, 1 to 200 characters."`
	Body    string `json:"body" jsonschema:"Plain-text message body, 1 to 10000 characters."`
}

// sendEmailOutput is the send_email structured result.
type sendEmailOutput struct {
	MessageID string `json:"messageId" jsonschema:"id of the message in the outbox"`
	To        string `json:"to" jsonschema:"recipient address"`
	Status    string `json:"status" jsonschema:"always queued: this demo server never delivers mail"`
}

// lookupWeather answers get_weather from the station table.
func lookupWeather(in weatherInput) (weatherOutput, error) {
	if strings.TrimSpace(in.City) == "" {
		return weatherOutput{}, errors.New("city is empty; name a city such as Paris")
	}
	units := in.Units
	if units == "" {
		units = unitsCelsius
	}
	if units != unitsCelsius && units != unitsFahrenheit {
		return weatherOutput{}, fmt.Errorf("units %q is not supported; use celsius or fahrenheit", in.Units)
	}
	s, ok := stationByCity(in.City)
	if !ok {
		return weatherOutput{}, fmt.Errorf("no weather station for %q; covered cities: %s", in.City, cityNames())
	}
	temp := s.TempC
	if units == unitsFahrenheit {
		temp = math.Round((temp*9/5+32)*10) / 10
	}
	return weatherOutput{
		City:            s.City,
		Country:         s.Country,
		StationID:       s.ID,
		Units:           units,
		Temperature:     temp,
		Conditions:      s.Conditions,
		HumidityPercent: s.Humidity,
		WindKph:         s.WindKph,
		ObservedAt:      observedAt,
	}, nil
}

// searchInvoices filters the invoice table.
func searchInvoices(in searchInvoicesInput) (searchInvoicesOutput, error) {
	customer := strings.ToLower(strings.TrimSpace(in.Customer))
	if customer == "" {
		return searchInvoicesOutput{}, errors.New("customer is empty; give a customer name such as Acme Corp")
	}
	if in.Status != "" && !slices.Contains(invoiceStatuses, in.Status) {
		return searchInvoicesOutput{}, fmt.Errorf("status %q is not one of open, paid, overdue", in.Status)
	}
	limit := in.Limit
	if limit == 0 {
		limit = defaultInvoiceLimit
	}
	if limit < 1 || limit > maxInvoiceLimit {
		return searchInvoicesOutput{}, fmt.Errorf("limit %d is out of range; use 1 to %d", in.Limit, maxInvoiceLimit)
	}
	if in.Since != "" {
		// The schema's "format": "date" is an annotation only (JSON Schema
		// 2020-12 does not require validators to assert formats), so the
		// check has to happen here.
		if _, err := time.Parse(time.DateOnly, in.Since); err != nil {
			return searchInvoicesOutput{}, fmt.Errorf("since %q is not a date of the form YYYY-MM-DD", in.Since)
		}
	}

	// Non-nil, so that an empty answer is [] rather than null.
	out := searchInvoicesOutput{Invoices: []invoice{}}
	for _, inv := range invoices {
		if !strings.Contains(strings.ToLower(inv.Customer), customer) {
			continue
		}
		if in.Status != "" && inv.Status != in.Status {
			continue
		}
		// ISO dates compare correctly as strings.
		if in.Since != "" && inv.IssuedOn < in.Since {
			continue
		}
		out.TotalMatches++
		if len(out.Invoices) < limit {
			out.Invoices = append(out.Invoices, inv)
		}
	}
	return out, nil
}

// validateEmail checks send_email's arguments. The schema states the same
// limits, but "format": "email" is not asserted by the SDK's validator.
func validateEmail(in sendEmailInput) error {
	addr, err := mail.ParseAddress(in.To)
	if err != nil || addr.Address != in.To {
		return fmt.Errorf("to %q is not a bare email address such as ana@example.com", in.To)
	}
	if strings.TrimSpace(in.Subject) == "" {
		return errors.New("subject is empty")
	}
	if n := len([]rune(in.Subject)); n > maxSubjectLen {
		return fmt.Errorf("subject has %d characters; the limit is %d", n, maxSubjectLen)
	}
	if strings.TrimSpace(in.Body) == "" {
		return errors.New("body is empty")
	}
	if n := len([]rune(in.Body)); n > maxBodyLen {
		return fmt.Errorf("body has %d characters; the limit is %d", n, maxBodyLen)
	}
	return nil
}

// Typed handlers, as mcp.AddTool wants them. They only adapt the functions
// above, which the tests call directly.

func getWeatherHandler(_ context.Context, _ *mcp.CallToolRequest, in weatherInput) (*mcp.CallToolResult, weatherOutput, error) {
	out, err := lookupWeather(in)
	return nil, out, err
}

func searchInvoicesHandler(_ context.Context, _ *mcp.CallToolRequest, in searchInvoicesInput) (*mcp.CallToolResult, searchInvoicesOutput, error) {
	out, err := searchInvoices(in)
	return nil, out, err
}

func sendEmailHandler(ob *outbox) mcp.ToolHandlerFor[sendEmailInput, sendEmailOutput] {
	return func(_ context.Context, _ *mcp.CallToolRequest, in sendEmailInput) (*mcp.CallToolResult, sendEmailOutput, error) {
		if err := validateEmail(in); err != nil {
			return nil, sendEmailOutput{}, err
		}
		id := ob.add(in.To, in.Subject, in.Body)
		return nil, sendEmailOutput{MessageID: id, To: in.To, Status: "queued"}, nil
	}
}

// Input schemas. The inferred schema knows types, required fields (those
// without omitempty) and descriptions; enums, bounds, formats and defaults
// cannot be written as struct tags, so they are added here. The SDK then
// validates arguments against the finished schema, enums and bounds included.

func weatherInputSchema() *jsonschema.Schema {
	s := mustInfer[weatherInput]()
	u := s.Properties["units"]
	u.Enum = enum(unitsCelsius, unitsFahrenheit)
	u.Default = json.RawMessage(`"celsius"`)
	s.Properties["city"].MinLength = ptr(1)
	return s
}

func searchInvoicesInputSchema() *jsonschema.Schema {
	s := mustInfer[searchInvoicesInput]()
	s.Properties["customer"].MinLength = ptr(1)
	s.Properties["status"].Enum = enum(invoiceStatuses...)
	l := s.Properties["limit"]
	l.Minimum = ptr(1.0)
	l.Maximum = ptr(float64(maxInvoiceLimit))
	l.Default = json.RawMessage(fmt.Sprint(defaultInvoiceLimit))
	s.Properties["since"].Format = "date"
	return s
}

func sendEmailInputSchema() *jsonschema.Schema {
	s := mustInfer[sendEmailInput]()
	s.Properties["to"].Format = "email"
	s.Properties["subject"].MinLength = ptr(1)
	s.Properties["subject"].MaxLength = ptr(maxSubjectLen)
	s.Properties["body"].MinLength = ptr(1)
	s.Properties["body"].MaxLength = ptr(maxBodyLen)
	return s
}

// Output schemas are inferred too; only the places where inference is looser
// than the handlers' promise are tightened.

func weatherOutputSchema() *jsonschema.Schema {
	s := mustInfer[weatherOutput]()
	s.Properties["units"].Enum = enum(unitsCelsius, unitsFahrenheit)
	return s
}

func searchInvoicesOutputSchema() *jsonschema.Schema {
	s := mustInfer[searchInvoicesOutput]()
	// A Go slice may be nil, so inference allows null; searchInvoices
	// always returns a (possibly empty) array.
	inv := s.Properties["invoices"]
	inv.Type, inv.Types = "array", nil
	inv.Items.Properties["status"].Enum = enum(invoiceStatuses...)
	return s
}

// mustInfer infers the schema of T. It panics because a failure is a
// programming error in the struct definitions above, found by the tests.
func mustInfer[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("infer schema of %T: %v", *new(T), err))
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// enum converts the allowed values to the []any a schema's enum holds.
func enum(values ...string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
