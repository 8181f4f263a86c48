package golden

import (
	"context"
	"testing"

	"github.com/mcp-eval/mcp-eval/agent"
)

type countingJudge struct{ grades, similars int }

func (j *countingJudge) Grade(context.Context, string, *agent.Transcript) (bool, string, error) {
	j.grades++
	return true, "fine", nil
}

func (j *countingJudge) Similar(_ context.Context, a, b string) (bool, error) {
	j.similars++
	return a == b, nil
}

func TestJudgeCache(t *testing.T) {
	dir := t.TempDir()
	inner := &countingJudge{}
	c := &JudgeCache{Judge: inner, Dir: dir, Model: "openai:m"}
	tr := &agent.Transcript{Final: "done"}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if pass, reason, err := c.Grade(ctx, "rubric", tr); !pass || reason != "fine" || err != nil {
			t.Fatalf("Grade = %v %q %v", pass, reason, err)
		}
		if ok, _ := c.Similar(ctx, "x", "x"); !ok {
			t.Fatal("Similar")
		}
	}
	if inner.grades != 1 || inner.similars != 1 {
		t.Errorf("judge asked %d/%d times, want once each", inner.grades, inner.similars)
	}
	// Another rubric, another transcript or another judge model misses.
	c.Grade(ctx, "other rubric", tr)
	c.Grade(ctx, "rubric", &agent.Transcript{Final: "other"})
	(&JudgeCache{Judge: inner, Dir: dir, Model: "openai:other"}).Grade(ctx, "rubric", tr)
	if inner.grades != 4 {
		t.Errorf("grades %d, want 4", inner.grades)
	}
	// Bypass re-asks but refreshes.
	(&JudgeCache{Judge: inner, Dir: dir, Model: "openai:m", Bypass: true}).Grade(ctx, "rubric", tr)
	if inner.grades != 5 {
		t.Errorf("bypass did not ask the judge")
	}
}
