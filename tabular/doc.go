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
// FitRegression and FitClassifier fit a Machine to a matrix of rows: a
// kernel.Machine with the maps of its inputs and outputs; Fit calls
// them. The zero Settings is the model of the command
// `machines fit`:
//
//   - Inputs and regression targets are standardised to mean 0 and
//     standard deviation 1. The machine undoes it when it predicts.
//     Fit scales the 0/1 columns of the levels of a categorical column
//     of three levels or more together, by sqrt(1 - sum p^2), p the
//     levels' frequencies: rows of different levels are then one
//     distance apart whichever the levels, and the column weighs as one
//     numeric column.
//   - Two families of machines compete (Settings.Family). The shallow
//     machine has depth one: dims [inputs, outputs]. Its first block is
//     the standardised input itself (or its map by the inputs' metric,
//     below); its output is a linear part plus one
//     level of Gaussians on the anchors. Its loss is then a ridge
//     regression on the inputs and the anchors' kernel features, solved
//     in closed form. One eigendecomposition per bandwidth gives the exact
//     leave-one-out residuals of every cost. Its 91 candidates are
//     13 costs (1e-4 to 100, half decades) times 7 bandwidths
//     (1/4, 0.35, 1/2, 0.71, 1, 2 and 8 times the median distance
//     between the anchors); on
//     inputs mapped through their quantiles or weighed by relevance, the
//     5 bandwidths best on the inputs before them (passBandwidths).
//     Its kernel part and its linear part are penalised alike, but on
//     tables of at most 5 training rows per input, as encoded
//     (wideRowsPerInput), where the linear part is penalised d times
//     more, d the inputs: its features are the inputs times 1/sqrt(d)
//     (linearFactor), whose kernel x.x'/d has a mean diagonal of 1, as
//     the Gaussians' has. Penalised alike, the d coefficients of a wide
//     table's linear part outweighed the kernel part, and the cost
//     chosen to tame them smoothed the kernel part too; on narrower
//     tables the factor lost as much as it gained. The kernel part
//     penalised 10 to 1000 times more, which earlier versions also
//     tried, cost a twentieth of the CPU and gained nothing on splits
//     that chose no rule. A classifier fits its one-hot labels by least
//     squares, and its settings are ranked by the held-out Brier score
//     of its scores (their mean squared distance to the one-hot labels),
//     the loss the fit minimises: ranked by the log-loss of their
//     calibrated scores, the settings chosen were less accurate on the
//     panels' classifiers. Against the deep machine, and in averages,
//     it is judged on its calibrated log-loss. The deep machine has dims
//     DefaultHidden (3, 3, 3) then the output block. It is fitted by
//     L-BFGS, its cost chosen among DefaultCosts at the bandwidths
//     DefaultBandwidths.
//   - The deep candidates and the best shallow one are scored on the same
//     k-fold cross-validation: 5 folds, or fewer on fewer rows, groups or
//     times (Settings.FoldsFor), stratified by class for a classifier.
//     The lowest held-out mean squared error (standardised) or log-loss
//     wins; R^2 or accuracy is reported beside it. The shallow machine's
//     bandwidths are ranked by leave-one-out first; the best three
//     are scored on the folds, each at
//     the costs within two steps of the grid of its best cost by
//     leave-one-out. A regression's selection on at most 300 rows
//     (evidenceRows) ranks them, and chooses the setting that measures
//     the relevance weights, by their evidence instead: the likelihood of
//     the targets under the Gaussian process whose posterior mean the
//     ridge regression is, its noise scale fitted, from the same
//     eigendecomposition; it also keeps or drops their relevance
//     weights (below). On few rows leave-one-out's ranking follows the
//     rows' noise; the evidence's did better on the panels' small
//     regressions (not on their classifiers). The inputs' quantiles,
//     levels and codes stay chosen by leave-one-out. Such a regression
//     whose inputs are all categorical then takes the cost one step of
//     the grid below the folds' best, at its bandwidth (lowerCost): its
//     machine fits the means of a few cells of rows, each fold's
//     training rows hold fewer of a cell's rows than all the rows do,
//     and the folds' best cost shrank the cells' means towards the mean
//     more than the test rows bore out. When the selection runs on
//     all the rows, the shallow machine that competes is the average of
//     the best setting of each of the three, on the chosen scale of the
//     targets, if the average's calibrated held-out loss is lower than
//     the best setting's: a sum of machines (Machine.Sum,
//     Result.Averaged), whose held-out predictions, the mean of theirs,
//     score and calibrate it. A regression that averages no bandwidths
//     averages, by the same test, the best setting with its bandwidth's
//     two neighbouring costs on the grid (one at the grid's ends): the
//     mean of their ridge solutions, one machine on the same basis
//     (Result.Costs; dropped where the fit to all the rows grows the
//     anchors, below: it re-chooses the cost on the new basis). The
//     folds choose the cost with noise on few rows; a classifier's
//     average of costs lost the panels' classifiers under every rule
//     tried. When the deep machine was then fitted on every fold of all
//     the rows (not raced out), the fit may average it
//     with the shallow machine, each calibrated alone, the deep one
//     weighing 1/4, 1/2 or 3/4 (Result.DeepWeight): the weight of lowest
//     calibrated held-out loss, if that is lower than the winner's. The
//     model is then the deep machine with the shallow ones in its Sum,
//     and the deep machine is fitted on all the rows even when the
//     shallow one won.
//   - Tables of fewer than 150 rows repeat the k-fold split on two or three
//     shuffles: one split of a few dozen rows ranks the settings by noise.
//     The deep machine is fitted on the first split. It is fitted on the
//     others only if the shallow machine does not lead it there by more
//     than two standard errors of the mean log ratio of their fold losses;
//     otherwise its candidates are marked Raced and never chosen. Tables
//     of fewer than 60 training rows leave the deep machine out: the
//     shallow machine's best three bandwidths are scored on the folds
//     alone, and Result.Selection holds their candidates. So do tables
//     of more than 5 training rows per input, as encoded
//     (deepRowsPerInput): the deep machine won on tables of many inputs
//     for their rows, and on narrower ones its race cost about a third
//     of the fit's CPU for nothing on splits that chose no rule. A
//     block of levels counts as one input there (raceInputs): the
//     levels of a categorical column of three or more, or a numeric
//     column's codes (below), which scaleLevels scales as one column. A column of many groups widens the table by its groups,
//     not by what there is to learn, and pulled the deep machine into
//     races that it did not win.
//   - The deep fits of the selection run in parallel, one job per fold and
//     bandwidth, along the costs from the smallest up. The first starts
//     from a random augmenter and zero coefficients, each next one from
//     the previous one's end, and each stops after 40 iterations of
//     L-BFGS keeping 30 steps, or when the loss improves by less than
//     0.1% over 10. When it races the shallow machine, the deep machine
//     is fitted first at half its anchors on the first fold, then on the
//     first three, and the race stops where the shallow machine leads it
//     there by 2% more than the race's own margins; otherwise this probe
//     is set aside and the race runs at DeepAnchors as without it. Sets
//     larger than SelectionRows choose the deep machine's settings on a
//     seeded subsample of that many rows, and the shallow machine's (its
//     inputs' scale, relevance and metric included) on a larger one that
//     holds it: half the rows,
//     at most 800, when its basis (inputs and anchors) has fewer than
//     SelectionRows features (tables of fewer than 800 rows, and wider
//     ones, choose as before). Its fits are closed-form, and settings
//     chosen on fewer rows smooth a large table more than its rows need;
//     a wider basis would cost the cube of the rows. On shuffled folds the
//     shallow machine then races the deep one on the held-out rows of the
//     deep machine's folds, each of its fits learning from the other rows
//     of its own subsample. The chosen machine is refitted on all the
//     rows; Result.Selection keeps every candidate's scores. A shallow
//     machine chosen on a shuffled subsample then has its cost re-chosen
//     among StreamCosts, and its calibration made, by the exact
//     leave-one-out residuals of all the rows (Result.CostRows): the more
//     rows, the smaller the best cost. For a log target the cost may be
//     at most one step of StreamCosts above the best by the loss on the
//     scale the machine fits, log(1 + y), whose squared error the ridge
//     minimises: mapped back to the targets, one row of high leverage
//     whose held-out prediction is far too large can carry most of the
//     loss and choose a cost that smooths the machine for every row.
//   - The chosen setting's held-out predictions calibrate it
//     (Result.Calibration). A classifier's scores are multiplied by the
//     logit scale, and each class's is moved by the bias, of lowest
//     held-out log-loss, so that its probabilities are calibrated: a
//     least-squares machine's scores are shrunk towards the classes'
//     frequencies by its cost, which its argmax alone would follow, and
//     the biases move the decision where the held-out rows put it. A
//     regression's predictions are shrunk towards the
//     mean by the factor, between 0 and 1, that best fits the targets from
//     their held-out predictions. Both are taken about the mean of the rows
//     that each held-out prediction's fit learned from, as the final
//     machine's are about the mean of all the rows. The absolute held-out
//     residuals after it are kept (those scored again with each fold's
//     relevance weights, where the weights are kept; below):
//     Model.PredictInterval turns them into conformal prediction
//     intervals.
//   - Settings.Weights weigh the rows; only the shallow machine takes them,
//     as its leave-one-out residuals stay exact under weights.
//     Settings.Groups and Settings.Times replace the shuffled folds by
//     folds that keep groups together or move forward in time; the shallow
//     machine is then scored on them too. Settings.Budget bounds the time.
//   - A nonnegative regression target skewed beyond a sample skewness
//     of 1 (counts, amounts) is also tried on the log scale. Each
//     setting is then fitted to log(1 + y) too, judged by the held-out
//     error of its predictions of y; the better scale wins
//     (Settings.TargetScale). The deep machine, when it races the
//     shallow one, is fitted on the scale the shallow machine chose.
//   - Fit tries a numeric column that may be a code of groups (a school's
//     number, the day of a year of measurements) by its codes too
//     (dataset.Encoder.WithCodes): after its value, one 0/1 column per
//     value, scaled together as a categorical column's levels are, so
//     that the kernel sees "same group or not" and the linear part gives
//     each group its own offset, penalised by the cost. A column
//     qualifies when its training values are at least 10, with at least
//     15 rows to a value on average and whole numbers in a table of at
//     least 1,000 training rows, or 3 in a smaller one (so 30 rows at
//     least), whole or not there (a grid's coordinate 2.51, 5.02, ...
//     labels groups as a number does, and the screen and the margin below
//     judge it), and the table has at most 3 such columns of whole
//     numbers, and at most 3 of fractions, counted apart (more are
//     quantities: percentages, counts, measurements to a decimal; the
//     many measurements of a table do not keep its few whole numbers from
//     being tried). Each is tried alone,
//     and those that lower the shallow machine's lowest held-out loss are
//     kept, together (Report.CodeLosses): by more than a millionth of it
//     on 1,000 rows or more, by more than 15% of it on 100 to 999, where an
//     age or a count read by its codes may lower that loss by a tenth by
//     chance (a subject's number in repeated measures lowers it by far
//     more), and on fewer than 100 rows by 15% times the square root of
//     100 over the rows (27% on 30), as the held-out loss's noise grows.
//     On fewer than 1,000 rows a column is tried only where the held-out
//     residuals cluster by its values: the one-way F statistic of the
//     residuals grouped by the column's values, pooled over the outputs,
//     has an upper tail probability below 0.001, first for the
//     leave-one-out residuals of a ridge regression on the standardised
//     inputs (nearly free: most tables stop there, without the shallow
//     pass the trial is judged against), then for the held-out residuals
//     of that shallow pass (an age whose curve the kernel fits stops
//     there, without its trial). The fit takes over the shallow pass of
//     the encoding chosen (without codes, or the trial's of those kept,
//     scored on the best bandwidths, which it completes) rather than run
//     it again.
//     Only fits that choose the inputs' scale (AutoInputs) try them. A
//     value not seen in training encodes as no group, in predict, serve
//     and the ONNX export alike.
//   - A regression's inputs are also tried through their quantiles
//     (scale.QuantileMap, Machine.Quantiles): each input of more
//     than two values becomes its training rows' distribution function.
//     The quantiles are kept when the shallow machine's lowest held-out
//     loss is lower there by more than a millionth (Settings.InputScale,
//     Result.InputScale). The comparison costs one more shallow pass. A
//     classifier's inputs are chosen so only when the shallow machine
//     chooses on 800 rows or more: on fewer, the choice followed the
//     folds' noise, and they are kept as they are. Fit weighs the phases
//     of dates by the same measure and rule. When a fit of at most 1,000
//     rows finds the two losses
//     within their noise (their relative difference times the square root
//     of the rows at most 2.5), the shallow machine of the other encoding
//     is chosen and fitted too (relevance, metric and its selection on
//     the folds, without the deep machine's race), and the model predicts
//     the chosen machine's prediction weighing 3/4 and the other's 1/4,
//     in the units of the targets (Machine.Other, Result.OtherWeight): leave-one-out judges
//     the quantiles on the rows that placed them, and on small tables its
//     choice often loses the test rows; the average halves the cost of a
//     wrong choice. Its intervals are the chosen machine's residuals
//     about the average, on the scale that machine fits. A classifier
//     on fewer than 800 rows averages so only the machine of the
//     quantiles, where its loss is the lower, fitted without the
//     metric, and averages the machines' class scores (their calibrated
//     logits); its prediction sets hold
//     the classes whose averaged probability passes the threshold of the
//     chosen machine's held-out scores.
//   - Then a regression's standardised inputs are also tried weighed by
//     their relevance: the root mean square of the best shallow machine's
//     partial derivative along each input, relative to the others', to the
//     power 1/2. Inputs that do not matter then stop diluting the
//     distances of those that do. The weights are kept when the shallow
//     machine's lowest held-out loss is lower so, or, on at most 300
//     selection rows, its highest evidence higher
//     (Result.Relevance). They divide the scales of the machine's input
//     scaler, so new rows are weighed too, in predict, serve and the ONNX
//     export alike. The weights are measured on the rows that judge
//     them, which keeps them where the folds, each measuring its own,
//     would not: on tables of many inputs for their rows they fit the
//     noise, and the held-out scores of the selection are optimistic.
//     Where they are kept, the chosen setting (its average, if any) is
//     therefore scored again on the folds of the first split, each
//     fold's weights, and its metric where the inputs are mapped by
//     theirs (below), measured on its training rows alone, the columns
//     left out (below) left out there too: those held-out scores are
//     reported (Result.HeldOut) and their residuals, shrunk as the
//     machine is, make the intervals. A deep machine chosen, or averaged
//     in, is fitted again on each fold along its costs, as the selection
//     fits it. The choice, the machine and its predictions are the
//     same. Where the scores cannot be measured so (a deep machine of
//     Family Deep, one chosen on other rows than the shallow machine's,
//     or one that diverged on a fold), the fit warns that they may be
//     optimistic.
//   - Then a regression on at most 300 selection rows, of 2 to 20
//     columns, leaves out its columns of noise one at a time, a
//     categorical column's levels together (dropColumns): at each step
//     the shallow machine is scored without each of the two columns of
//     least relevance, and the better of them is left out (weight 1/100
//     in Result.Relevance) when the log evidence over the rows rises by
//     more than 1 and the leave-one-out loss falls. Trees leave such
//     columns out; damped relevance weights only shrink them.
//   - Then the inputs of a regression or a classifier (2 to 200 of them)
//     are also tried mapped by their metric: x -> M^(1/4) x, M the mean
//     over the rows of the outer product of the best shallow machine's
//     gradient with itself (summed over the outputs), scaled to a mean
//     eigenvalue of 1. Directions of the inputs that matter, such as a
//     sum of two, are then stretched, and those that do not shrunk. The
//     metric is judged on the folds, each fold's measured on its training
//     rows alone, and kept when the shallow machine's held-out loss falls
//     below 0.9 times the unmapped one (Result.Metric). It is not judged
//     when its map, measured once on all the rows, stretches the
//     directions in which the machine is not flat more than 60 times
//     (the data's nearly dependent columns, such as a categorical
//     column's levels): on the panels such a map never won, and judging
//     it costs a shallow fit and a basis per fold. The map is the
//     machine's first block, its augmenter (so a shallow machine's first
//     block is then no longer the input itself), held in the model file
//     and applied in predict, serve and the ONNX export alike.
//   - A regression of at most 1,000 rows whose inputs' encodings were
//     compared (not one of categorical inputs alone, whose kernel part
//     holds the interactions of their levels) is also fitted as a linear
//     machine: the ridge regression on the standardised inputs as they
//     are (no quantiles, relevance weights, metric or kernel part), on the
//     scale of the targets the chosen machine fits, its cost the one of
//     highest evidence (up to 300 rows) or lowest leave-one-out loss among
//     the shallow machine's. When it is near the chosen machine (on at
//     most 300 selection rows, the chosen one's evidence at most e^8
//     times the linear one's; else their leave-one-out losses' relative
//     difference times the square root of the rows at most 2), the model
//     predicts the average of the chosen machine's prediction (with its
//     other encoding's, if averaged) weighing 3/4 and the linear
//     machine's 1/4, in the units of the targets (Machine.Linear,
//     Result.LinearWeight). The encodings and relevance weights are
//     judged on the rows that learned them, and the kernel part adds a
//     variance that leave-one-out does not see: on small regressions
//     whose truth is nearly linear the hedge recovers part of what a
//     ridge regression wins. The intervals are the chosen machine's
//     residuals about the average.
//   - Fit fits a regression whose settings it searches (Settings.Family
//     the default or Shallow, no dims, no fixed cost and bandwidth, no
//     Budget) twice, all of the above: with the shallow machine's
//     Gaussian kernel and with its Laplacian, exp(-|x - a|_1 / sigma)
//     (ShallowKernel), the bandwidths then multiples of the anchors'
//     median L1 distance. It keeps the fit of lower held-out loss
//     (Result.HeldOut's where the relevance weights were scored again,
//     else the selection's choice's; Result.KernelLosses). The Laplacian
//     is a product of one-dimensional kernels with a kink where two rows
//     agree: rows apart along one input, a group's code or a step, are
//     far whatever the others, as a tree's split sets them apart, where
//     the Gaussian smooths across them. The deep machine's kernels, a
//     classifier's and a streamed fit's are Gaussians: a classifier's
//     accuracy fell with the Laplacian on the development panels. The
//     second fit doubles a regression's time.
//   - A regression's predictions, and the ends of its intervals, are
//     bounded to the range of its training targets, widened by RangeMargin
//     of it on each side, and to 0 below when no target is negative
//     (Machine.Range). A linear part or a log target would
//     otherwise carry a row with an extreme input far beyond anything
//     seen. Settings.Extrapolate lifts the bounds.
//   - Every training row is an anchor up to ShallowAnchors rows (the
//     shallow machine) or DeepAnchors (the deep one). Above, that many
//     anchors are chosen by k-means++ seeding, so that time and memory
//     grow linearly with the rows. On more than ShallowAnchors rows
//     that are exchangeable (folds neither grouped nor forward), the
//     shallow machine is refitted on all the rows at twice
//     ShallowAnchors, then at 400, 800 and 1,600, drawn by the same
//     seeding (past 400 where the count is at most half the rows and
//     the basis at most 3.2e7 features of the rows; a count of at
//     least the rows is all of them, and the last tried): a count is
//     kept while the exact leave-one-out loss of all the rows, each
//     count at its best cost (chosen as the cost re-chosen above),
//     falls from the count before by more than one standard error of
//     the rows' paired differences of loss and by more than 0.25% of
//     it, and the first that does not stops the search
//     (Result.Anchors); 1,600 is tried only where 800 lowered it by
//     more than 1%, its basis taking four times the time. The
//     standard error guards the tables of a few hundred rows, whose loss
//     is noisy; the 0.25% those of thousands,
//     whose loss is precise and where counts that passed the standard
//     error alone cost time for nothing. An average of bandwidths grows
//     as its best member does, every member on the anchors kept. Where
//     the count grew, the cost of each machine is re-chosen, and the
//     calibration made, by leave-one-out on all the rows
//     (Result.CostRows), as after a selection on a subsample.
//     Settings.Anchors fixes the count.
//   - The final fit of a deep machine starts, as the selection's, from a
//     random augmenter and zero coefficients, and stops when the loss
//     improves by less than DefaultLossTol over 10 iterations, or at
//     DefaultMaxIter; Result.Converged says which. From 2,000 rows it
//     starts from the minimum of the same loss on an eighth of the rows
//     (Result.CoarseRows), which leaves it little to do.
//   - The final fit runs from one initial point. Settings.Starts fits from
//     several and keeps the lowest loss: the loss of a deep machine is not
//     convex, and one start may stall near a constant function.
//
// # Large tables
//
// FitFile and FitSource read a table of more than StreamRows rows twice,
// a chunk at a time, so that the memory of its fit does not grow with
// the rows: a seeded sample of StreamRows rows chooses the shallow
// machine's settings (NewStreamPlan), with StreamAnchors anchors, the square
// root of the rows between ShallowAnchors and 400; every row's
// sufficient statistics are then added up (Stats), one row in ten held
// out to choose the cost, and the machine is solved from their sums
// (Plan.Solve). Its anchors may grow as a fit in memory grows them:
// when the sample's own rows that Stats hold out, fitted from its
// others, say that the next count of 200, 400, 800 and 1,600 lowers
// their squared error by more than growMargin (0.25%) of the sample's
// count's, the stats add up the features of more anchors, drawn by
// continuing the sample's k-means++ seeding, so that each count's are a
// prefix of the next's: up to the largest count whose rows times its
// square is at most 10^6 x 400^2, the add phase of the default on 10^6
// rows (1,600 anchors up to 62,500 rows, 800 up to 250,000, none more
// beyond). Solve then chooses the count on the table's held-out rows as
// it chooses the cost, keeping a count while its lowest held-out error
// falls below the count's before by more than growMargin, and trying
// 1,600 only where 800 lowered it by more than 1% (worthTrying); on
// tables where the sample's count is enough, the screen on the sample
// saves the time of summing more. docs/large.md records the
// measurements behind the rule.
// Plan, Stats and Solve are also the API of a fit spread over machines.
//
// Dims, Costs or Bandwidths describe the deep machine, which is then
// fitted alone. A one-element Costs or Bandwidths fixes that setting; when
// both are fixed nothing is searched.
//
// # How the defaults were chosen
//
// Every default was chosen on the project's tabular panel, by its mean
// over the tables, and checked on a hold-out of other tables;
// docs/learner.md and the README's section on tables record the
// measurements behind each.
package tabular
