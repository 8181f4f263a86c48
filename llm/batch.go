package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// BatchRate is what the vendors' batch APIs bill, as a share of the
// synchronous price: OpenAI's Batch API and Anthropic's Message Batches
// API both charge 50 % of the standard price for input and output tokens
// (https://platform.openai.com/docs/guides/batch,
// https://docs.anthropic.com/en/docs/build-with-claude/batch-processing).
const BatchRate = 0.5

// BatchItem is one request of a batch, under an id unique in the batch
// (the APIs' custom_id: letters, digits, _ and -, at most 64).
type BatchItem struct {
	ID      string
	Request Request
}

// BatchResult is the outcome of one item: its answer, billed at the batch
// rate (Response.Usage.Batch is the whole usage), or why it has none (an
// error the API gave the item, or its expiry or cancellation). An item
// with no result at all was not finished: the caller sends it
// synchronously.
type BatchResult struct {
	Response *Response
	Err      error
}

// BatchOptions bound a batch.
type BatchOptions struct {
	// Deadline is when the batch must have ended: at it, the batch is
	// cancelled, what it finished is collected within Grace, and the rest
	// is left unanswered (the caller sends it synchronously). Zero is no
	// deadline beyond ctx's.
	Deadline time.Time
	// Poll is the wait between status reads (default 30 s).
	Poll time.Duration
	// Grace bounds the wait for a cancelled batch to end (default 2 min).
	Grace time.Duration
	// Sleep waits d or until ctx ends; nil is a timer (tests make it
	// instant).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Status, when set, is told each status read ("in_progress 3/10").
	Status func(status string)
}

// Batcher is a Provider whose vendor API takes batches of requests at the
// batch rate. Batch submits items (one model), polls within o's bounds and
// returns the results it got by item id; an error means no result at all
// (the batch was refused, failed validation or could not be read).
type Batcher interface {
	Provider
	// CanBatch reports whether this provider, as configured, has a batch
	// API (OpenAI at api.openai.com; Anthropic): a gateway or an Azure
	// deployment does not.
	CanBatch() bool
	Batch(ctx context.Context, items []BatchItem, o BatchOptions) (map[string]BatchResult, error)
}

// BatchObserver is an Observer that is also told about each answer a
// batch returned: its usage, billed at the batch rate, and no latency (a
// batch item has none of its own).
type BatchObserver interface {
	BatchEnd(provider, model string, u Usage, err error)
}

// BatchItemError is the error an API gave one item of a batch.
type BatchItemError struct {
	ID     string
	Status string // "errored", "expired", "canceled", "failed" or the HTTP status
	Msg    string
}

func (e *BatchItemError) Error() string {
	return fmt.Sprintf("batch item %s %s: %s", e.ID, e.Status, e.Msg)
}

func (o *BatchOptions) defaults() {
	if o.Poll <= 0 {
		o.Poll = 30 * time.Second
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// pollBatch reads the batch's status with poll until it reports done, or
// the deadline passes: then it cancels the batch and polls within the grace
// for it to end. It returns whether the batch ended (its results can be
// read) and the last error of a status read.
func pollBatch(ctx context.Context, o BatchOptions, poll func() (done bool, status string, err error), cancel func() error) (bool, error) {
	cancelled := false
	var graceEnd time.Time
	for {
		done, status, err := poll()
		if err != nil {
			return false, err
		}
		if o.Status != nil {
			o.Status(status)
		}
		if done {
			return true, nil
		}
		now := o.Now()
		if !cancelled && !o.Deadline.IsZero() && !now.Before(o.Deadline) {
			// Out of time: what is unfinished goes synchronously, and the
			// batch must not keep running (and billing) behind the run.
			cancelled = true
			graceEnd = now.Add(o.Grace)
			if err := cancel(); err != nil {
				return false, fmt.Errorf("cancelling the batch at its deadline: %w", err)
			}
			continue
		}
		if cancelled && !now.Before(graceEnd) {
			return false, nil
		}
		if err := o.Sleep(ctx, o.Poll); err != nil {
			return false, err
		}
	}
}

// maxBatchBody bounds a batch's results file: 100 000 answers of a few
// kilobytes each.
const maxBatchBody = 512 << 20

// send makes one request of method to rawURL with the client's headers
// (contentType replaces Content-Type when set) within the client's
// timeout, and returns a 2xx answer's body (at most limit bytes). Any
// other status is an *APIError; a failure to connect a scrubbed error. A
// batch's own requests are not retried: a failed status read is read again
// at the next poll, and a failed submission leaves the items to the
// synchronous calls.
func (c *Client) send(ctx context.Context, method, rawURL, contentType string, body []byte, limit int64) ([]byte, error) {
	timeout := c.cf.timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, max(timeout, time.Minute))
	defer cancel()
	safe := rawURL
	if u, err := url.Parse(rawURL); err == nil {
		safe = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, c.scrub(fmt.Sprintf("%s %s: %v", method, safe, err), err)
	}
	req.Header = c.header.Clone()
	switch {
	case contentType != "":
		req.Header.Set("Content-Type", contentType)
	case body == nil:
		req.Header.Del("Content-Type")
	}
	res, err := c.cf.httpClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, c.scrub(fmt.Sprintf("%s: %s %s: %v", c.name, method, safe, err), err)
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		_, err := c.statusError(res)
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, c.scrub(fmt.Sprintf("%s: %s %s: %v", c.name, method, safe, err), err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %s %s: the answer exceeds %d MiB", c.name, method, safe, limit>>20)
	}
	return data, nil
}

// batchAnswered marks resp as billed at the batch rate and tells the
// observer.
func (c *Client) batchAnswered(model string, resp *Response, err error) {
	if resp != nil {
		u := resp.Usage
		u.Batch = nil
		resp.Usage.Batch = &u
	}
	if bo, ok := c.cf.observer.(BatchObserver); ok {
		var u Usage
		if resp != nil {
			u = resp.Usage
		}
		bo.BatchEnd(c.name, model, u, err)
	}
}
