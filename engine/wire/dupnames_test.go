package wire

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/internal/jsonscan"
)

// TestRecorderDuplicates: a name given twice is a finding with the
// object's pointer and both values, once per method, pointer and name; a
// message whose earlier value breaks the schema fails it though its later
// value does not, and identical duplicates are no schema violation.
func TestRecorderDuplicates(t *testing.T) {
	r := NewRecorder()
	r.SetRevision("2026-07-28")
	for range 3 {
		r.MessageReceived(modernCall("tools/list"), msg(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","tools":"none","tools":[],"ttlMs":1,"cacheScope":"public"}}`))
	}
	r.MessageReceived(modernCall("tools/call"), msg(t, `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"a","text":"a"}]}}`))
	r.MessageReceived(modernCall("tools/call"), msg(t, `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[]}}`))
	d := r.Duplicates()
	if d.Scanned != 5 || d.Messages != 4 || len(d.Findings) != 2 {
		t.Fatalf("duplicates %+v", d)
	}
	f := d.Findings[0]
	if f.Method != "tools/list" || f.Pointer != "/result" || f.Name != "tools" || f.First != `"none"` || f.Later != "[]" || !f.Differs || f.Count != 3 {
		t.Errorf("tools/list finding %+v", f)
	}
	if f := d.Findings[1]; f.Pointer != "/result/content/0" || f.Name != "text" || f.Differs {
		t.Errorf("tools/call finding %+v", f)
	}
	s := r.Summary()
	if len(s.Findings) != 1 {
		t.Fatalf("schema findings %+v, want the shadowed tools only", s.Findings)
	}
	if v := s.Findings[0]; v.Method != "tools/list" || v.Pointer != "/result/tools" || !strings.Contains(v.Message, "first value") || v.Count != 3 || v.Value != `"none"` {
		t.Errorf("shadowed finding %+v", v)
	}
}

// BenchmarkDuplicateScan: what the duplicate-name scan adds to the
// recorder's work on one tools/list page of 50 big tools, beside the
// schema validation every new answer already costs.
func BenchmarkDuplicateScan(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[`)
	for i := range 50 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"billing_list_invoice_%04d","title":"Billing list invoice","description":"List billing invoice records of the billing system (catalogue entry %d): filters by region and owner before anything is returned; results are sorted by status, newest first.","annotations":{"readOnlyHint":true,"openWorldHint":false},"inputSchema":{"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":200,"description":"Free text matched against the invoice's name and notes."},"region":{"type":"string","enum":["any","open","closed","archived"],"description":"Only invoice records in this region."},"limit":{"type":"integer","minimum":1,"maximum":50,"default":10,"description":"How many records to return at most."}},"required":["query"],"additionalProperties":false}}`, i, i)
	}
	sb.WriteString(`],"nextCursor":"50"}}`)
	page := []byte(sb.String())
	s, err := For("2026-07-28")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("validate", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if vs, err := s.Validate("tools/list", page); err != nil || len(vs) > 0 {
				b.Fatal(vs, err)
			}
		}
	})
	b.Run("duplicates", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if len(jsonscan.Duplicates(page, maxDupsPerMessage)) > 0 {
				b.Fatal("duplicates")
			}
		}
	})
}
