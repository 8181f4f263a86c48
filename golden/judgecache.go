package golden

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mcp-eval/mcp-eval/agent"
)

// JudgeCache remembers verdicts on disk next to the transcript cache, so
// that re-running an unchanged suite asks no model anything — the judge
// included. The key covers the judge model, the judge prompt's hash, and
// exactly what is judged (rubric and transcript, or the two texts).
// Errors are never cached.
type JudgeCache struct {
	// Judge does the grading on a miss.
	Judge interface {
		Judge
		SimilarityJudge
	}
	// Dir is the cache directory (verdicts go in Dir/judge); Model names
	// the judge model; Bypass skips reads (--no-cache) but still writes.
	Dir    string
	Model  string
	Bypass bool
}

var (
	_ Judge           = (*JudgeCache)(nil)
	_ SimilarityJudge = (*JudgeCache)(nil)
)

type verdict struct {
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
}

// Grade implements Judge.
func (c *JudgeCache) Grade(ctx context.Context, rubric string, t *agent.Transcript) (bool, string, error) {
	tj, err := json.Marshal(t)
	if err != nil {
		return false, "", err
	}
	key := c.key("grade", rubric, string(tj))
	if v, ok := c.get(key); ok {
		return v.Pass, v.Reason, nil
	}
	pass, reason, err := c.Judge.Grade(ctx, rubric, t)
	if err == nil {
		c.put(key, verdict{pass, reason})
	}
	return pass, reason, err
}

// Similar implements SimilarityJudge.
func (c *JudgeCache) Similar(ctx context.Context, expected, actual string) (bool, error) {
	key := c.key("similar", expected, actual)
	if v, ok := c.get(key); ok {
		return v.Pass, nil
	}
	ok, err := c.Judge.Similar(ctx, expected, actual)
	if err == nil {
		c.put(key, verdict{Pass: ok})
	}
	return ok, err
}

func (c *JudgeCache) key(parts ...string) string {
	h := sha256.New()
	for _, p := range append([]string{HarnessVersion, c.Model, JudgePromptSHA256()}, parts...) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *JudgeCache) path(key string) string {
	return filepath.Join(c.Dir, "judge", key[:2], key+".json")
}

func (c *JudgeCache) get(key string) (verdict, bool) {
	var v verdict
	if c.Bypass || c.Dir == "" {
		return v, false
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil || json.Unmarshal(b, &v) != nil {
		return v, false
	}
	return v, true
}

func (c *JudgeCache) put(key string, v verdict) {
	if c.Dir == "" {
		return
	}
	p := c.path(key)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	b, _ := json.Marshal(v)
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}
