// Package tabular fits kernel machines to tables: the learner of
// machines fit as a library. Fit reads the target columns and the inputs
// of a dataset.Frame, encodes the inputs (numbers, categories, dates),
// chooses the machine and its settings by cross-validation (package
// kernel) and returns a Model, which predicts new rows with conformal
// prediction intervals (regression) or prediction sets
// (classification), scores labelled rows, measures the importance of
// each input column, and saves itself as the model file that every
// command of machines reads (predict, score, explain, export, serve).
// Options configures the fit; its zero value is machines fit without
// flags.
//
// Fitting a CSV file and predicting new rows (FitFile and PredictFile
// read the files; Fit and Predict take a dataset.Frame):
//
//	model, _, err := tabular.FitFile("houses.csv", []string{"price"}, tabular.Options{})
//	if err != nil {
//		log.Fatal(err)
//	}
//	pred, _, err := model.PredictFile("new_houses.csv")
//	if err != nil {
//		log.Fatal(err)
//	}
//	fmt.Println(mat.Formatted(pred.Values))
//
// A classifier's Prediction holds the class of each row and the
// probability of each class. Model.Save writes the model file; Load reads
// every version of it that machines fit has written, and onnx.Tabular
// exports the model to ONNX.
//
// # The learner's defaults
//
// FitRegression and FitClassifier fit a kernel.Machine to a matrix of
// rows. Fit calls them. The zero Settings is the model of the command
// `machines fit`:
//
//   - inputs, and regression targets, standardised to mean 0 and standard
//     deviation 1; the machine undoes it when it predicts;
//   - two families of machines compete (Settings.Family). The shallow
//     machine has depth one: dims [inputs, outputs], its first block the
//     standardised input itself, its output a linear part plus one level
//     of Gaussians on the anchors. With the first block fixed, its loss
//     (mean squared error plus cost times |A|^2 and the RKHS norm) is a
//     ridge regression on the inputs and the anchors' kernel features,
//     solved in closed form, and the exact leave-one-out residuals of every
//     cost follow from one eigendecomposition per bandwidth. Its 117
//     candidates are ShallowCosts (1e-4 to 100, half decades) times
//     ShallowBandwidths (1/4 to 8 times the median distance between the
//     anchors: near-linear fits at the large end, where a large cost also
//     shrinks it to the mean). A classifier fits its one-hot labels by least
//     squares and is judged on softmax(scale * scores) with the scale of
//     lowest held-out log-loss. The deep machine has dims DefaultHidden
//     (3, 3, 3) then the output block, fitted by L-BFGS, its cost chosen
//     among DefaultCosts at the bandwidths DefaultBandwidths;
//   - the deep candidates and the best shallow one are scored on the same
//     k-fold cross-validation (5 folds, or fewer on fewer rows, groups or
//     times, Settings.FoldsFor; stratified by class for a classifier),
//     ranked by the held-out mean squared error (standardised) or
//     log-loss, with R^2 or accuracy reported beside it, and the lowest
//     loss wins. The shallow machine's bandwidths are ranked by
//     leave-one-out first, and the best three scored on the folds at
//     every cost. Tables of fewer than 150 rows repeat the k-fold split on
//     two or three shuffles, since one split of a few dozen rows ranks the
//     settings by noise; the deep machine is fitted on the first split,
//     and on the others only if the shallow machine does not lead it there
//     clearly (by more than two standard errors of the mean log ratio of
//     their fold losses; its candidates are then marked Raced and never
//     chosen). The deep fits of the selection run in parallel,
//     one job per fold and bandwidth along the costs from the smallest up,
//     each warm-started from the previous one, stopped after 50 iterations
//     or when the loss improves by less than 0.1% over 10. Sets larger
//     than SelectionRows choose on a seeded subsample of that many rows.
//     The chosen machine is refitted on all the rows; Result.Selection
//     keeps every candidate's scores;
//   - the chosen setting's held-out predictions calibrate it
//     (Result.Calibration): a classifier's scores are multiplied by the
//     logit scale of lowest held-out log-loss, so that its probabilities
//     are calibrated; a regression's predictions are shrunk towards the
//     mean by the factor, between 0 and 1, that best fits the targets from
//     their held-out predictions, both taken about the mean of the rows
//     each held-out prediction's fit learned from (its fold's, or all but
//     the row left out), as the final machine's are about the mean of all
//     the rows; the absolute held-out residuals after it are kept:
//     Conformal and kernel.Machine.PredictInterval turn them into conformal
//     prediction intervals;
//   - Settings.Weights weigh the rows (the shallow machine alone, whose
//     leave-one-out residuals stay exact under weights); Settings.Groups
//     and Settings.Times replace the shuffled folds by folds that keep
//     groups together or move forward in time, on which the shallow machine
//     is then scored too; Settings.Budget bounds the time;
//   - a nonnegative regression target skewed beyond SkewedTarget (counts,
//     amounts) also tried on the log scale: each setting is fitted to
//     log(1 + y) too, judged by the same held-out error of its predictions
//     of y, and the best of both scales wins (Settings.TargetScale);
//   - a regression's inputs also tried through their quantiles
//     (scale.QuantileMap, kernel.Machine.Quantiles): each input of more than
//     two values becomes its training rows' distribution function, and
//     the quantiles are kept for every candidate when the shallow
//     machine's lowest held-out loss is lower there by more than
//     rounding (LowerLoss; Settings.InputScale, Result.InputScale). The
//     comparison costs one more shallow pass; the chosen scale's pass is
//     the selection's own. ShallowLoss and LowerLoss give the same
//     measure and rule to a caller weighing two encodings of a table, as
//     the command weighs the phases of dates;
//   - then a regression's standardised inputs also tried weighed by their
//     relevance: the root mean square of the best shallow machine's
//     partial derivative along each input over the rows (the diagonal of
//     its expected gradient outer product, in closed form), relative to
//     the others', to the power 1/2 (the mean squared slope to the power
//     1/4), so that inputs that do not matter stop diluting the
//     distances of those that do; kept when the shallow machine's lowest
//     held-out loss is lower so, by LowerLoss (Result.Relevance). The
//     weights divide the scales of the machine's input scaler, so new
//     rows are weighed too, in predict, serve and the ONNX export alike;
//   - a regression's predictions, and the ends of its intervals, bounded
//     to the range of its training targets widened by RangeMargin of it
//     on each side, and to 0 below when no target is negative
//     (kernel.Machine.Range): a linear part or a log target would otherwise carry
//     a row with an extreme input far beyond anything seen.
//     Settings.Extrapolate lifts the bounds;
//   - every training row an anchor up to ShallowAnchors rows (the
//     shallow machine) or DeepAnchors (the deep one), and that many
//     anchors chosen by k-means++ seeding above, so that time and memory
//     grow linearly with the rows;
//   - the final fit of a deep machine stops when the loss improves by less
//     than DefaultLossTol over 10 iterations, or at DefaultMaxIter;
//     Result.Converged says which. From CoarseMinRows rows it starts from
//     the minimum of the same loss on an eighth of the rows
//     (Result.CoarseRows), which leaves it little to do;
//   - the final fit runs from one initial point. Settings.Starts fits from
//     several and keeps the lowest loss: the loss of a deep machine is not
//     convex, and one start may stall near a constant function.
//
// Dims, Costs or Bandwidths describe the deep machine, which is then
// fitted alone. A one-element Costs or Bandwidths fixes that setting; when
// both are fixed nothing is searched.
//
// # How the defaults were chosen
//
// Every default was chosen on the project's tabular panel, by its mean
// over the tables, and checked on a hold-out of other tables; the
// README's section on tables records the measurements behind each.
package tabular
