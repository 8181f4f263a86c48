package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes r as report.json: indented, checks and cases in their
// canonical order, map keys sorted, and empty arrays or objects (never null)
// where the schema requires them. r itself is not modified.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(normalized(r), "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
