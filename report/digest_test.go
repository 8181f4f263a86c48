package report

import (
	"crypto/sha256"
	"encoding/json"
	"strings"
	"testing"
)

// A Digest is written and read as the hex string report.json always held:
// a report read back compares equal, a hash not recorded is "" where the
// member is always present and omitted where it is optional, and what is
// not 64 hex digits is refused with the value quoted.
func TestDigestJSON(t *testing.T) {
	d := Digest(sha256.Sum256([]byte("hello")))
	const hexHello = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	b, err := json.Marshal(SurfaceItem{Name: "t", DescriptionSHA256: d, SHA256: d})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"name":"t","descriptionSha256":"` + hexHello + `","sha256":"` + hexHello + `"}`; string(b) != want {
		t.Errorf("marshal = %s, want %s", b, want)
	}
	if b, _ := json.Marshal(SurfaceItem{Name: "t"}); string(b) != `{"name":"t","descriptionSha256":""}` {
		t.Errorf("a hash not recorded: %s", b)
	}
	for _, tc := range []struct {
		in   string
		want Digest
		err  string
	}{
		{`"` + hexHello + `"`, d, ""},
		{`"` + strings.ToUpper(hexHello) + `"`, d, ""},
		{`""`, Digest{}, ""},
		{`"abc"`, Digest{}, "64 hex digits, not 3 characters"},
		{`"` + strings.Repeat("zz", 32) + `"`, Digest{}, "invalid byte"},
		{`12`, Digest{}, "cannot unmarshal number"},
	} {
		var it SurfaceItem
		err := json.Unmarshal([]byte(`{"name":"t","descriptionSha256":`+tc.in+`}`), &it)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || it.DescriptionSHA256 != tc.want {
			t.Errorf("%s: read %v, %v", tc.in, it.DescriptionSHA256, err)
		}
	}
}
