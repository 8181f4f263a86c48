package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMerge(t *testing.T) {
	server := Server{Target: "http://127.0.0.1:8080/mcp", Transport: "http", Fingerprint: "fp"}
	shard := func(started string, layers []string, checks []string, cases ...string) *Report {
		r := &Report{SchemaVersion: SchemaVersion, StartedAt: started, Server: server, Layers: layers, DurationMs: int64(len(cases))}
		for _, id := range checks {
			r.Checks = append(r.Checks, Check{ID: id, Status: StatusPass})
		}
		for _, id := range cases {
			r.Cases = append(r.Cases, Case{ID: id, Model: "m"})
		}
		return r
	}
	t.Run("joins", func(t *testing.T) {
		got, err := Merge([]string{"a.json", "b.json"}, []*Report{
			shard("2026-07-28T10:00:02Z", []string{"conformance", "behavior"}, []string{"x/y"}, "c1"),
			shard("2026-07-28T10:00:01Z", []string{"behavior", "telemetry"}, []string{"x/y"}, "c2", "c3"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if got.StartedAt != "2026-07-28T10:00:01Z" || got.DurationMs != 2 {
			t.Errorf("start %s, duration %d: want the earliest start and the longest duration", got.StartedAt, got.DurationMs)
		}
		if diff := cmp.Diff([]string{"conformance", "behavior", "telemetry"}, got.Layers); diff != "" {
			t.Errorf("layers (-want +got):\n%s", diff)
		}
		if len(got.Checks) != 1 || len(got.Cases) != 3 {
			t.Errorf("%d checks, %d cases: want the check once and every case", len(got.Checks), len(got.Cases))
		}
	})
	t.Run("overlap", func(t *testing.T) {
		_, err := Merge([]string{"a.json", "b.json"}, []*Report{shard("", nil, nil, "c1"), shard("", nil, nil, "c1")})
		if err == nil || !strings.Contains(err.Error(), "case c1@m ran in both a.json and b.json") {
			t.Errorf("error %v, want the overlapping case and both files", err)
		}
	})
}

// TestMergeKeepsSelection: the shards of a --select affected run merge
// into one selection (counts added, the cases that ran listed once each)
// and keep their surface diff.
func TestMergeKeepsSelection(t *testing.T) {
	d := &SurfaceDiff{Changes: []SurfaceChange{{Tool: "a", Kind: ChangeDescription}}, Tools: 1}
	s1 := &Report{Server: Server{Transport: "http"}, SurfaceDiff: d,
		Selection: &Selection{Mode: SelectAffected, From: "b", Ran: 2, Carried: 4, Cases: []SelectedCase{{ID: "x", Why: "uses changed tool a"}}}}
	s2 := &Report{Server: Server{Transport: "http"}, SurfaceDiff: d,
		Selection: &Selection{Mode: SelectAffected, From: "b", Ran: 1, Carried: 5, Cases: []SelectedCase{{ID: "y", Why: "sample"}}}}
	m, err := Merge([]string{"1.json", "2.json"}, []*Report{s1, s2})
	if err != nil {
		t.Fatal(err)
	}
	if m.SurfaceDiff != d || m.Selection == nil || m.Selection.Ran != 3 || m.Selection.Carried != 9 || len(m.Selection.Cases) != 2 {
		t.Errorf("merged selection %+v, diff %+v", m.Selection, m.SurfaceDiff)
	}
	if s1.Selection.Ran != 2 {
		t.Errorf("merge changed its input: %+v", s1.Selection)
	}
}
