package option

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Budget is a budget of wall time, dollars, or both, written as a comma
// list: "10m", "$2" (or "2usd"), "10m,$2"; each within its maximum. It
// stores 0 (none) in both at the start.
func Budget(d *time.Duration, usd *float64, maxD time.Duration, maxUSD float64) flag.Value {
	*d, *usd = 0, 0
	return &budgetValue{d, usd, maxD, maxUSD}
}

type budgetValue struct {
	d      *time.Duration
	usd    *float64
	maxD   time.Duration
	maxUSD float64
}

func (b *budgetValue) String() string {
	if b == nil || b.d == nil {
		return ""
	}
	var parts []string
	if *b.d > 0 {
		parts = append(parts, b.d.String())
	}
	if *b.usd > 0 {
		parts = append(parts, "$"+strconv.FormatFloat(*b.usd, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

func (b *budgetValue) Set(s string) error {
	if strings.TrimSpace(s) == "" || strings.TrimSpace(s) == "0" {
		*b.d, *b.usd = 0, 0 // none
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lower := strings.ToLower(part)
		amount, isUSD := strings.CutPrefix(lower, "$")
		if !isUSD {
			amount, isUSD = strings.CutSuffix(lower, "usd")
		}
		if isUSD {
			f, err := strconv.ParseFloat(strings.TrimSpace(amount), 64)
			if err != nil || f != f || f < 0 || f > b.maxUSD {
				return fmt.Errorf("want a dollar amount from $0 to $%g, such as $2 or 0.5usd, got %q", b.maxUSD, part)
			}
			*b.usd = f
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d < 0 || d > b.maxD {
			return fmt.Errorf("want a wall time up to %s such as 10m, a dollar amount such as $2, or both (10m,$2), got %q", b.maxD, part)
		}
		*b.d = d
	}
	return nil
}
