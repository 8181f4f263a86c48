package golden

import (
	"fmt"

	"github.com/mcp-eval/mcp-eval/llm"
	"github.com/mcp-eval/mcp-eval/llm/providers"
)

// droppedParams are the warnings, one line per model, for the options of
// the run that a model's provider would drop silently because its API has
// no such parameter (Def.Accepts): a seed on Anthropic.
func droppedParams(models []string, f RunFlags) []string {
	var probe llm.Request
	if f.ModelSeed >= 0 {
		seed := int64(f.ModelSeed)
		probe.Seed = &seed
	}
	flagOf := map[llm.Param]string{llm.ParamSeed: "--model-seed"}
	var out []string
	for _, spec := range models {
		def, _, err := providers.Parse(spec)
		if err != nil {
			continue
		}
		for _, p := range def.Unaccepted(probe) {
			out = append(out, fmt.Sprintf("%s: %s has no %s parameter, so %s runs without one", flagOf[p], def.Title, p, spec))
		}
	}
	return out
}
