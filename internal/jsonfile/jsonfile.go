// Package jsonfile holds the rules every JSON file a user hands mcp-eval
// (a baseline, a report to gate or merge) is held to beyond its syntax:
// no byte order mark, and no member name twice in one object, each named
// with the line, so that the message says what to fix where encoding/json
// would say "invalid character 'ï'" or silently keep the last value.
package jsonfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// bom is UTF-8's byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Check returns the first way data breaks the rules, nil when it keeps
// them; a syntax error is left to the decoder (Syntax words it).
//
//   - A UTF-8 byte order mark: RFC 8259 §8.1, "Implementations MUST NOT add
//     a byte order mark (U+FEFF) to the beginning of a networked-transmitted
//     JSON text" (https://www.rfc-editor.org/rfc/rfc8259#section-8.1); an
//     editor that saves "UTF-8 with BOM" adds one.
//   - A member name twice in one object: RFC 8259 §4, "The names within an
//     object SHOULD be unique", and when they are not, which value a reader
//     takes is unpredictable (https://www.rfc-editor.org/rfc/rfc8259#section-4).
func Check(data []byte) error {
	if bytes.HasPrefix(data, bom) {
		return errors.New("line 1: starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow (RFC 8259 §8.1); save the file as UTF-8 without a BOM")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	// One set of names per open object; nil for an array.
	var stack []map[string]bool
	expectKey := func() bool { return len(stack) > 0 && stack[len(stack)-1] != nil }
	keyNext := false // in an object, the next string token is a name
	for {
		tok, err := dec.Token()
		off := dec.InputOffset() // just past the token: its line
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return nil // the decoder reports syntax
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, map[string]bool{})
				keyNext = true
				continue
			case '[':
				stack = append(stack, nil)
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if keyNext && expectKey() {
				names := stack[len(stack)-1]
				if names[t] {
					return fmt.Errorf("line %d: member %q twice in one object; JSON names SHOULD be unique (RFC 8259 §4) and which one a reader takes is unpredictable: keep one", Line(data, off), t)
				}
				names[t] = true
				keyNext = false
				continue
			}
		}
		// A value ended: in an object, a name comes next.
		keyNext = expectKey()
	}
}

// Line is the 1-based line of byte offset off in data, for messages.
func Line(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Syntax words a decoding error of data with its line: encoding/json gives
// a byte offset, which no editor shows.
func Syntax(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("line %d: %v", Line(data, se.Offset), err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("line %d: %v", Line(data, te.Offset), err)
	}
	return err.Error()
}
