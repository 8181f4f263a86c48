package report

import "strings"

// The names below are the report's shared vocabulary: the layers, score
// keys and their direction, case kinds, case keys and the item kinds of
// the gate. Every package that writes or reads a report uses them rather
// than spelling the strings again.

// Layer names, as used in --layers, Report.Layers and Check.Layer.
const (
	LayerConformance = "conformance"
	LayerBehavior    = "behavior"
	LayerResilience  = "resilience"
	LayerTelemetry   = "telemetry"
)

// Layers are the layer names in their canonical order, cheapest first.
func Layers() []string {
	return []string{LayerConformance, LayerBehavior, LayerResilience, LayerTelemetry}
}

// Score keys (DESIGN.md "Score keys"): each is "<layer>.<measure>", a
// fraction in [0, 1]. Keys may be added freely, never renamed.
const (
	ScoreConformancePassRate = "conformance.passRate"
	ScoreBehaviorPassRate    = "behavior.passRate"
	ScoreSelectionAccuracy   = "behavior.selectionAccuracy"
	ScoreFalseActivationRate = "behavior.falseActivationRate" // lower is better
	ScoreArgumentAccuracy    = "behavior.argumentAccuracy"
	ScoreSequenceAccuracy    = "behavior.sequenceAccuracy"
	ScoreTaskCompletion      = "behavior.taskCompletion"
	ScoreAnswerAccuracy      = "behavior.answerAccuracy"
	ScoreResiliencePassRate  = "resilience.passRate"
	ScoreFabricationRate     = "resilience.fabricationRate"   // lower is better
	ScoreAttackSuccessRate   = "resilience.attackSuccessRate" // lower is better
)

// ScoreLayer is the layer of a score key: the part before the first dot.
func ScoreLayer(key string) string {
	l, _, _ := strings.Cut(key, ".")
	return l
}

// lowerMeasures are the measures that improve by going down.
var lowerMeasures = []string{"falseActivationRate", "fabricationRate", "attackSuccessRate"}

// LowerIsBetter reports whether a score key improves by going down
// (DESIGN.md "Score keys"): the gate and the renderers read a score's
// direction here. Matching the suffix keeps per-layer variants of the same
// measure pointing the same way.
func LowerIsBetter(key string) bool {
	for _, s := range lowerMeasures {
		if strings.HasSuffix(key, s) {
			return true
		}
	}
	return false
}

// Direction is which way a score improves (GateScore.Direction).
type Direction string

// The two directions.
const (
	DirectionHigher Direction = "higher"
	DirectionLower  Direction = "lower"
)

// ScoreDirection is the direction of a score key.
func ScoreDirection(key string) Direction {
	if LowerIsBetter(key) {
		return DirectionLower
	}
	return DirectionHigher
}

// Case kinds (Case.Kind), as the golden file spells them: a hard case's
// default floor is HardFloor, a soft one's SoftFloor.
const (
	CaseHard = "hard"
	CaseSoft = "soft"
)

// Hard reports whether the case is of kind hard.
func (c Case) Hard() bool { return c.Kind == CaseHard }

// Resilience variants are golden cases whose id carries one of these
// suffixes and a name: "<case>#fault-<kind>", "<case>#inject-<payload>".
const (
	VariantFault  = "#fault-"
	VariantInject = "#inject-"
)

// Layer says which layer a case belongs to: a resilience variant to
// resilience, every other case to behavior.
func (c Case) Layer() string {
	if strings.Contains(c.ID, VariantFault) || strings.Contains(c.ID, VariantInject) {
		return LayerResilience
	}
	return LayerBehavior
}

// CaseKey names a case on a model, as waivers, the gate and the
// renderers do: "id@model". Case ids never contain "@" (tasks' id
// pattern), so ParseCaseKey splits at the first one.
func CaseKey(id, model string) string { return id + "@" + model }

// ParseCaseKey splits a CaseKey into its id and model; ok is false when
// key has no "@" (a check id, or a case id on every model).
func ParseCaseKey(key string) (id, model string, ok bool) {
	return strings.Cut(key, "@")
}

// Key is the case's CaseKey.
func (c Case) Key() string { return CaseKey(c.ID, c.Model) }

// Failed reports whether s is fail or error: the statuses that count
// against the run when the check or case they belong to does (see
// Check.Failed and Case.Failed, the one rule).
func (s Status) Failed() bool { return s == StatusFail || s == StatusError }

// Item kinds of GateItem.Kind.
const (
	ItemCheck = "check"
	ItemCase  = "case"
)

// Kinds (GatePerf.Kind) and metrics (GatePerf.Metric) of the perf gate.
const (
	PerfTool  = "tool"
	PerfModel = "model"
	PerfCase  = "case"

	MetricP95        = "p95Ms"
	MetricCostPerRun = "costUsdPerRun"
)
