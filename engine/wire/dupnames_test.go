package wire

import (
	"strings"
	"testing"
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
	if v := s.Findings[0]; v.Method != "tools/list" || v.Pointer != "/result/tools" || !strings.Contains(v.Message, "first value") || v.Count != 3 {
		t.Errorf("shadowed finding %+v", v)
	}
}
