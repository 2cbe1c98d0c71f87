package tabular

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Summary says what was fitted, one line each: the rows and inputs, the
// settings and how they were chosen, the encoding, the calibration, the
// bounds, and how the optimiser ended.
func (rep *Report) Summary(md *Model) []string {
	res, m := rep.Result, md.Machine
	var lines []string
	say := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	head := fmt.Sprintf("%d rows, %d columns encoded as %d inputs", rep.Rows, len(md.Features), len(md.Encoder.Names()))
	if md.Task == Classification {
		head += fmt.Sprintf(", %d classes", len(md.Classes))
	}
	say("%s", head)
	settings := describeSettings(res)
	if res.HeldOut != nil {
		settings += " (optimistic: the relevance weights were measured on all the rows; the held-out scores below are not)"
	}
	say("%s", settings)
	if p := rep.Phases; len(p) > 2 {
		var parts []string
		for _, ph := range p {
			part := fmt.Sprintf("%s %.3g s", ph.Name, ph.Seconds)
			if ph.CPUSeconds > 0 {
				part += fmt.Sprintf(" (CPU %.3g s)", ph.CPUSeconds)
			}
			parts = append(parts, part)
		}
		say("streamed in chunks: %s", strings.Join(parts, ", "))
	}
	if h := rep.HeldOutCost; h != nil {
		say("cost %g chosen on %d rows held out of the stream: mse %.4g there on the scale fitted; the sample chose %g",
			res.Cost, h.Rows, slices.Min(h.Losses), h.Sample)
		if len(h.Counts) > 1 {
			tried := make([]string, len(h.Counts))
			for i, m := range h.Counts {
				tried[i] = fmt.Sprintf("%.4g at %d", h.CountLosses[i], m)
			}
			say("%d anchors chosen there, each count kept while its mse fell by more than %g%% of the count's before: %s", h.Anchors, 100*growMargin, strings.Join(tried, ", "))
		}
	}
	if l := rep.CycleLosses; l != nil {
		if c := describeCycles(md.Encoder); c != "" {
			say("dates followed by their phases in the cycles (%s): the shallow machine's held-out loss %.4g so, %.4g without", c, l[0], l[1])
		} else {
			say("dates as their days alone: the shallow machine's held-out loss %.4g so, %.4g with their cycles", l[1], l[0])
		}
	}
	if l := rep.CodeLosses; l != nil {
		if c := describeCodes(md.Encoder); c != "" {
			say("numeric columns also by their codes, as groups (%s): the shallow machine's held-out loss %.4g so, %.4g without", c, l[1], l[0])
		} else {
			say("numeric columns by their values alone: the shallow machine's held-out loss %.4g so, %.4g at best by their codes", l[0], l[1])
		}
	}
	if res.InputScale == QuantileInputs.String() {
		say("numeric inputs mapped through their training quantiles%s", describeInputLosses(res.InputLosses))
	}
	if w := res.OtherWeight; w != 0 {
		other := "their quantiles"
		if res.InputScale == QuantileInputs.String() {
			other = "the inputs as they are"
		}
		say("averaged with the shallow machine of %s, weighing %g: the two held-out losses within their noise", other, w)
	}
	if w := res.LinearWeight; w != 0 {
		say("averaged with the linear machine of the inputs as they are, weighing %g: its evidence or held-out loss near the machine's", w)
	}
	if left := leftOut(md.Encoder.Names(), res.Relevance); left != nil {
		say("inputs left out as noise, weighing %g: %s (without each, the shallow machine's evidence rose and its held-out loss fell)", minRelevance, strings.Join(left, ", "))
	}
	if l := res.RelevanceLosses; byRelevance(res.Relevance) {
		chose := fmt.Sprintf("held-out loss %.4g so, %.4g unweighed", l[1], l[0])
		if e := res.RelevanceEvidence; e != nil {
			chose = fmt.Sprintf("negative log evidence per row %.4g so, %.4g unweighed (%s)", e[1], e[0], chose)
		}
		say("inputs weighed by their relevance (%s): the shallow machine's %s", describeWeights(md.Encoder.Names(), res.Relevance), chose)
	}
	if h := res.HeldOut; h != nil {
		measured := "the relevance weights"
		if res.Metric {
			measured += " and the metric"
		}
		say("held-out scores on the folds of the first split, %s measured on each fold's training rows alone: %s; their residuals are kept for predict -interval",
			measured, h.scores(res.Selection))
	}
	if l := res.MetricLosses; res.Metric {
		say("inputs mapped by their metric, the machine's first block: the shallow machine's held-out loss on the folds %.4g so, %.4g unmapped", l[1], l[0])
	}
	if c := describeCalibration(res.Calibration); c != "" {
		say("%s", c)
	}
	if m.Range != nil {
		say("predictions bounded to %s, the training targets' range widened by a tenth on each side (-extrapolate lifts the bounds)", describeRange(md.TargetNames(), m.Range))
	}
	coarse := ""
	if res.CoarseRows > 0 {
		coarse = fmt.Sprintf(", from the minimum on %d of the rows", res.CoarseRows)
	}
	if res.Converged {
		say("converged after %d iterations%s (%s)", res.Iterations, coarse, res.Status)
	} else {
		say("stopped at the limit of %d iterations%s (%s); -iters raises it", res.Iterations, coarse, res.Status)
	}
	return lines
}

// kernelPenaltyNote describes the kernel penalty of a shallow candidate
// for the summary, "" at 1: a model file of an earlier version may hold
// one (see Candidate.KernelPenalty).
func kernelPenaltyNote(c Candidate) string {
	if c.KernelPenalty == 0 {
		return ""
	}
	return fmt.Sprintf(" (the kernel part's penalty %g times the linear part's)", c.KernelPenalty)
}

// describeSettings says which cost and bandwidth the fit used and how
// they were chosen.
func describeSettings(res Result) string {
	cost := fmt.Sprintf("cost %g", res.Cost)
	if res.CostRows > 0 {
		cost += fmt.Sprintf(" (re-chosen by leave-one-out on all %d rows)", res.CostRows)
	}
	if sel := res.Selection; sel != nil && res.Shallow {
		cost += kernelPenaltyNote(sel.Candidates[sel.Best])
	}
	chosen := fmt.Sprintf("%s, bandwidth %g, dims %v, %d anchors", cost, res.Bandwidth, res.Dims, res.Anchors)
	if len(res.Averaged) > 1 {
		var each []string
		for _, c := range res.Averaged {
			deep := ""
			if !c.Shallow {
				deep = "deep, "
			}
			each = append(each, fmt.Sprintf("%scost %g%s at bandwidth %g", deep, c.Cost, kernelPenaltyNote(c), c.Bandwidth))
		}
		chosen = fmt.Sprintf("the average of %d machines (%s), dims %v, %d anchors", len(res.Averaged), strings.Join(each, "; "), res.Dims, res.Anchors)
		if !res.Averaged[0].Shallow {
			chosen += fmt.Sprintf("; the deep machine weighs %g, the shallow ones share the rest", res.DeepWeight)
		}
	}
	if len(res.Costs) > 1 {
		each := make([]string, len(res.Costs))
		for i, c := range res.Costs {
			each[i] = fmt.Sprintf("%g", c)
		}
		chosen += fmt.Sprintf("; the shallow machine is the mean of its solutions at costs %s", strings.Join(each, ", "))
	}
	if res.LogTarget {
		chosen += ", fitted to log(1 + target)"
	}
	sel := res.Selection
	if sel == nil {
		return chosen + " (fixed by the flags)"
	}
	c := sel.Candidates[sel.Best]
	how := fmt.Sprintf("%d-fold cross-validation", sel.Folds)
	switch {
	case sel.Folds == sel.Rows:
		how = "leave-one-out cross-validation"
	case sel.Split == "grouped":
		how = fmt.Sprintf("%d-fold cross-validation by groups", sel.Folds)
	case sel.Split == "forward":
		how = fmt.Sprintf("%d folds forward in time", sel.Folds)
	case sel.Repeats > 1:
		how = fmt.Sprintf("%d-fold cross-validation repeated %d times", sel.Folds, sel.Repeats)
	}
	rows := fmt.Sprintf("%d rows", sel.Rows)
	if sel.ShallowRows > 0 {
		rows += fmt.Sprintf(" (the shallow machine's settings on %d)", sel.ShallowRows)
	}
	if sel.Folds == sel.Rows {
		return fmt.Sprintf("%s, chosen by %s over %d settings on %s: %s %.4g, %s %.4g",
			chosen, how, len(sel.Candidates), rows, sel.Score, c.Score, sel.Loss, c.Loss)
	}
	return fmt.Sprintf("%s, chosen by %s over %d settings on %s: %s %.4g ± %.2g, %s %.4g ± %.2g",
		chosen, how, len(sel.Candidates), rows, sel.Score, c.Score, c.ScoreStd, sel.Loss, c.Loss, c.LossStd)
}

// describeRange lists the bounds of each target's predictions.
func describeRange(names []string, r [][2]float64) string {
	if len(r) == 1 {
		return fmt.Sprintf("[%.4g, %.4g]", r[0][0], r[0][1])
	}
	parts := make([]string, len(r))
	for k, b := range r {
		parts[k] = fmt.Sprintf("%s [%.4g, %.4g]", names[k], b[0], b[1])
	}
	return strings.Join(parts, ", ")
}

// describeInputLosses says which held-out losses chose the inputs' scale,
// if any.
func describeInputLosses(losses []float64) string {
	if losses == nil {
		return ""
	}
	return fmt.Sprintf(": the shallow machine's held-out loss %.4g there, %.4g on the inputs as they are", losses[1], losses[0])
}

// leftOut returns the names of the inputs that dropColumns left out, of
// weight minRelevance, or nil if none.
func leftOut(names []string, w []float64) []string {
	var left []string
	for j, v := range w {
		if v == minRelevance {
			left = append(left, names[j])
		}
	}
	return left
}

// byRelevance reports whether the weights w are the inputs' relevance, rather
// than none (nil) or only inputs left out, the others weighing 1.
func byRelevance(w []float64) bool {
	return slices.ContainsFunc(w, func(v float64) bool { return v != 1 && v != minRelevance })
}

// describeWeights lists the inputs with their weights, the largest first,
// at most five and a count of the others.
func describeWeights(names []string, w []float64) string {
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w[b], w[a]) })
	var parts []string
	for _, i := range order[:min(5, len(order))] {
		parts = append(parts, fmt.Sprintf("%s %.2g", names[i], w[i]))
	}
	if len(order) > 5 {
		parts = append(parts, fmt.Sprintf("%d more", len(order)-5))
	}
	return strings.Join(parts, ", ")
}

// describeCalibration says how the chosen setting's held-out predictions
// calibrated the machine, or nothing when there were none.
func describeCalibration(c Calibration) string {
	switch {
	case c.LogitScale > 0:
		s := fmt.Sprintf("class scores multiplied by %.3g", c.LogitScale)
		if c.ClassBias != nil {
			s += fmt.Sprintf(" and moved by the biases %.3g", c.ClassBias)
		}
		return s + ", of lowest held-out log-loss (calibrated probabilities)"
	case c.Shrinkage != nil:
		f := make([]string, len(c.Shrinkage))
		for j, v := range c.Shrinkage {
			f[j] = fmt.Sprintf("%.3g", v)
		}
		s := fmt.Sprintf("predictions shrunk towards the mean by the factor %s fitted to the held-out predictions; ", strings.Join(f, ", "))
		return s + fmt.Sprintf("%d held-out residuals kept for predict -interval", len(c.Residuals[0]))
	}
	return ""
}
