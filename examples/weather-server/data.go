package main

import (
	"fmt"
	"strings"
	"sync"
)

// The tables below are the server's whole world. They are fixed so that every
// answer is reproducible: mcp-eval compares runs against a baseline, and a
// server whose answers drift (clock, randomness, network) would make that
// comparison noisy for reasons unrelated to the server under test.

// observedAt is the timestamp of every observation. A fixed time, not
// time.Now, keeps tool results byte-identical across runs.
const observedAt = "2026-07-28T12:00:00Z"

// A station is a weather station and the fake observation it reports.
type station struct {
	ID        string   `json:"id"`
	City      string   `json:"city"`
	Country   string   `json:"country"`
	Latitude  float64  `json:"latitude"`
	Longitude float64  `json:"longitude"`
	Aliases   []string `json:"-"`

	// The observation, in metric units.
	TempC      float64 `json:"-"`
	Conditions string  `json:"-"`
	Humidity   int     `json:"-"`
	WindKph    float64 `json:"-"`
}

// stations is sorted by ID, which is the order of the weather://stations
// resource.
var stations = []station{
	{ID: "EDDB", City: "Berlin", Country: "DE", Latitude: 52.362, Longitude: 13.501,
		TempC: 19.5, Conditions: "partly cloudy", Humidity: 58, WindKph: 14},
	{ID: "EGLL", City: "London", Country: "GB", Latitude: 51.470, Longitude: -0.454,
		TempC: 17.2, Conditions: "light rain", Humidity: 81, WindKph: 22},
	{ID: "FACT", City: "Cape Town", Country: "ZA", Latitude: -33.965, Longitude: 18.602,
		TempC: 13.8, Conditions: "windy", Humidity: 67, WindKph: 41},
	{ID: "KJFK", City: "New York", Country: "US", Latitude: 40.640, Longitude: -73.779,
		TempC: 27.9, Conditions: "humid and sunny", Humidity: 72, WindKph: 11,
		Aliases: []string{"nyc", "new york city"}},
	{ID: "LFPG", City: "Paris", Country: "FR", Latitude: 49.010, Longitude: 2.548,
		TempC: 22.4, Conditions: "sunny", Humidity: 45, WindKph: 9},
	{ID: "RJTT", City: "Tokyo", Country: "JP", Latitude: 35.552, Longitude: 139.780,
		TempC: 30.1, Conditions: "hot and hazy", Humidity: 77, WindKph: 7},
	{ID: "SBGR", City: "Sao Paulo", Country: "BR", Latitude: -23.432, Longitude: -46.469,
		TempC: 16.3, Conditions: "overcast", Humidity: 88, WindKph: 6,
		Aliases: []string{"são paulo"}},
	{ID: "YSSY", City: "Sydney", Country: "AU", Latitude: -33.946, Longitude: 151.177,
		TempC: 12.6, Conditions: "clear", Humidity: 54, WindKph: 18},
}

// stationByCity finds a station by city name or alias, ignoring case and
// surrounding space, since models rarely agree on capitalisation.
func stationByCity(city string) (station, bool) {
	want := strings.ToLower(strings.TrimSpace(city))
	for _, s := range stations {
		if strings.ToLower(s.City) == want {
			return s, true
		}
		for _, a := range s.Aliases {
			if a == want {
				return s, true
			}
		}
	}
	return station{}, false
}

// stationByID finds a station by its (case-sensitive) ID, as used in
// weather://stations/{id}.
func stationByID(id string) (station, bool) {
	for _, s := range stations {
		if s.ID == id {
			return s, true
		}
	}
	return station{}, false
}

// cityNames lists the covered cities, for error messages that tell a model
// what it may ask for instead.
func cityNames() string {
	names := make([]string, len(stations))
	for i, s := range stations {
		names[i] = s.City
	}
	return strings.Join(names, ", ")
}

// An invoice is one row of the fake accounts-receivable table.
type invoice struct {
	ID          string `json:"id" jsonschema:"invoice number"`
	Customer    string `json:"customer" jsonschema:"customer name"`
	Status      string `json:"status" jsonschema:"open, paid or overdue"`
	AmountCents int    `json:"amountCents" jsonschema:"amount due in the smallest unit of the currency"`
	Currency    string `json:"currency" jsonschema:"ISO 4217 currency code"`
	IssuedOn    string `json:"issuedOn" jsonschema:"issue date, YYYY-MM-DD"`
	DueOn       string `json:"dueOn" jsonschema:"due date, YYYY-MM-DD"`
}

// invoices is sorted by issue date, newest first, which is the order
// search_invoices returns.
var invoices = []invoice{
	{ID: "INV-1012", Customer: "Acme Corp", Status: "open", AmountCents: 420000, Currency: "USD", IssuedOn: "2026-07-20", DueOn: "2026-08-19"},
	{ID: "INV-1011", Customer: "Globex", Status: "open", AmountCents: 98050, Currency: "EUR", IssuedOn: "2026-07-15", DueOn: "2026-08-14"},
	{ID: "INV-1010", Customer: "Initech", Status: "paid", AmountCents: 15000, Currency: "USD", IssuedOn: "2026-07-02", DueOn: "2026-08-01"},
	{ID: "INV-1009", Customer: "Acme Corp", Status: "paid", AmountCents: 310000, Currency: "USD", IssuedOn: "2026-06-18", DueOn: "2026-07-18"},
	{ID: "INV-1008", Customer: "Umbrella Health", Status: "overdue", AmountCents: 1250000, Currency: "GBP", IssuedOn: "2026-06-01", DueOn: "2026-07-01"},
	{ID: "INV-1007", Customer: "Globex", Status: "paid", AmountCents: 77500, Currency: "EUR", IssuedOn: "2026-05-22", DueOn: "2026-06-21"},
	{ID: "INV-1006", Customer: "Acme Corp", Status: "overdue", AmountCents: 199900, Currency: "USD", IssuedOn: "2026-05-10", DueOn: "2026-06-09"},
	{ID: "INV-1005", Customer: "Initech", Status: "overdue", AmountCents: 45000, Currency: "USD", IssuedOn: "2026-04-28", DueOn: "2026-05-28"},
	{ID: "INV-1004", Customer: "Umbrella Health", Status: "paid", AmountCents: 880000, Currency: "GBP", IssuedOn: "2026-04-03", DueOn: "2026-05-03"},
	{ID: "INV-1003", Customer: "Acme Corp", Status: "paid", AmountCents: 120000, Currency: "USD", IssuedOn: "2026-03-15", DueOn: "2026-04-14"},
	{ID: "INV-1002", Customer: "Globex", Status: "overdue", AmountCents: 230000, Currency: "EUR", IssuedOn: "2026-02-11", DueOn: "2026-03-13"},
	{ID: "INV-1001", Customer: "Acme Corp", Status: "paid", AmountCents: 95000, Currency: "USD", IssuedOn: "2026-01-09", DueOn: "2026-02-08"},
}

// A sentEmail is a message recorded by send_email.
type sentEmail struct {
	ID      string
	To      string
	Subject string
	Body    string
}

// An outbox records the messages send_email was asked to send. Nothing ever
// leaves it: the example must be safe to run in CI, where mcp-eval's agent
// layers may call send_email many times.
type outbox struct {
	mu   sync.Mutex
	sent []sentEmail
}

// add records a message and returns its id. Ids are sequential per process so
// that a fresh server always answers the same way.
func (o *outbox) add(to, subject, body string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	id := fmt.Sprintf("msg-%06d", len(o.sent)+1)
	o.sent = append(o.sent, sentEmail{ID: id, To: to, Subject: subject, Body: body})
	return id
}

// messages returns a copy of the recorded messages.
