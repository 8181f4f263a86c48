package report

import (
	"encoding/hex"
	"fmt"
)

// Digest is a SHA-256, written in report.json as 64 lowercase hex digits.
// It is kept as its 32 bytes: a surface of 100 000 tools holds three to
// five of them a tool, and as hex strings they were 18 MB of a run's heap.
// The zero Digest is "not recorded" (a baseline written before a hash was
// kept), written as "" where the member is always present.
type Digest [32]byte

// IsZero says the digest was not recorded (it makes omitzero omit it).
func (d Digest) IsZero() bool { return d == Digest{} }

// String is the digest's hex form, or "" when it was not recorded.
func (d Digest) String() string {
	if d.IsZero() {
		return ""
	}
	return hex.EncodeToString(d[:])
}

// MarshalText writes the hex form.
func (d Digest) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads 64 hex digits (either case), or "" for not recorded.
func (d *Digest) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*d = Digest{}
		return nil
	}
	if len(b) != hex.EncodedLen(len(d)) {
		return fmt.Errorf("a SHA-256 is 64 hex digits, not %d characters: %.80q", len(b), b)
	}
	if _, err := hex.Decode(d[:], b); err != nil {
		return fmt.Errorf("a SHA-256 is 64 hex digits: %.80q: %w", b, err)
	}
	return nil
}
