// Command machines fits, runs and benchmarks parametric machines.
//
// Usage:
//
//	machines <command> [flags]
//
// The commands are (the overview that "machines help" prints, from the
// same table; TestManualOverview keeps them one):
//
//	experiment NAME   run one of the paper's experiments and write its JSON and figures
//	fit               fit a kernel machine to a CSV, Parquet or Arrow table
//	predict           predict with a fitted model
//	score             score a fitted model on labelled data
//	explain           measure how much each input column matters to a fitted model
//	export            write a fitted, sculpted or saved model as an ONNX model
//	bench             time the library's workloads
//	sculpt            sculpt a hypergraph architecture on an image data set
//	serve             serve model files over the Open Inference Protocol
//	version           print the version of machines and of Go it was built with
//	help [COMMAND]    print this overview, or the help of COMMAND
//
// "machines help COMMAND", "machines COMMAND -h" and "-help" or "--help"
// print the flags of a command on standard output. A flag given twice is
// an error (the flag package would keep the last value without a word);
// a list, such as fit's -ignore, takes its values separated by commas.
//
// # Experiments
//
//	machines experiment [-out DIR] [-seed N] [-quick] [-protocol fair|paper] NAME [flags]
//	machines experiment oneshot -data DIR [-shots 1,5,10] [-maxfreq 2,5,10,20] [-cost 0,0.001,0.01,0.1,1] [-conv] [-sine] [-tol T]
//	machines experiment sine -protocol paper [-draws 10] [-cost 0.003]
//	machines experiment oneshot -protocol paper -data DIR [-shots 1] [-maxfreq 2,5,10,20] [-cost 0.1]
//
// NAME is one of:
//
//	polynomial  fit p(x,y) = (2x-1)^2 + 2y + xy - 3 on the 6x6 grid of [0,1]^2 and
//	            test on the 101x101 grid: kernel machine, perceptron, kernel ridge
//	            (Figure 3a, 3b of the paper)
//	sine        100 noisy samples of sin(x^2/2) + U[0,1) on [0,8], tested against
//	            sin(x^2/2) + 0.5: kernel machine against ReLU and sigmoid
//	            perceptrons and kernel ridge (Figure 3c)
//	sine-cost   the sine task over a sweep of regularisation costs (Figure 3d)
//	oneshot     an infinite-depth kernel machine trained on a few images per
//	            class of the IDX data set in -data DIR, a run for each count of
//	            -shots (default 1,5,10), and tested on its whole test split,
//	            against k-nearest-neighbours, kernel ridge, a softmax
//	            perceptron and a CNN of about the machine's parameter count on
//	            the same images, over 10 seeds of the choice (2 with -quick).
//	            Each seed also draws 10 validation images per class from the
//	            other training images; every model picks its setting there
//	            and only that setting's test accuracy enters the table. The
//	            kernel machine's grid is the paper's two sweeps: each -maxfreq
//	            at cost 0.1 and each -cost at the largest maxfreq (comma
//	            lists, defaults 2,5,10,20 and 0,0.001,0.01,0.1,1; at most
//	            20 values a list, -shots and -maxfreq at most 1,000 each,
//	            for a fit's time grows with both, under either protocol); its state
//	            has 16 dimensions, a linear augmenter and cosines, solved by
//	            RK4 on 8 steps; one shot anchors it at the training images,
//	            more shots at 10 learned anchors. The authors' options are
//	            flags: -conv, their convolutional augmenter (3x3, stride 2,
//	            16 channels, ReLU), -sine, sines in the Fourier basis, and
//	            -tol T, adaptive Dormand-Prince at tolerance T (theirs is
//	            1e-3) with the adjoint. They are off by default: none raised
//	            the machine's validation accuracy by more than its standard
//	            error, and each makes a fit several times as costly
//	            (docs/results-paper.md). It writes DIR/oneshot.json with a run
//	            per shot count: the machine's configuration ("augmenter",
//	            "basis", "solver", "dim", "anchors", "iterations"), the CNN's
//	            ("cnn_hidden", "cnn_params"), "models"
//	            (name, grid, chosen setting,
//	            validation and test accuracy per seed), "comparisons" (the
//	            kernel machine minus each baseline per seed, a paired t 95%
//	            interval and a sign test), "settings" (every grid point's
//	            validation and test accuracy per seed and its coefficient
//	            histograms) and "seconds"; and per shot count the figures
//	            oneshot-4a..4d-Nshot: accuracy against maxfreq and cost with
//	            each baseline's test band drawn across, and the histograms
//	            of the coefficients. Fashion-MNIST is at
//	            /usr/share/datasets/fashion-mnist on Debian
//	shift       convolutional and recurrent machines of finite depth (dims 1,4,4,4)
//	            trained by Adam to predict a delayed sine from a noisy one; each
//	            model's held-out loss before and after training is in
//	            DIR/shift.json as initial_loss and final_loss
//	sculpt      a short sculpting run (see Sculpting below) on -data DIR,
//	            by default /usr/share/datasets/fashion-mnist
//	depth       a machine's stable state built up block by block: one picture
//	            per step of the solve of a conv and a recurrent machine
//
// -protocol fair, the default, is the experiment as described above:
// every model chooses its settings without the test set. -protocol paper
// runs sine and oneshot as the authors' code runs them instead, for
// comparison with the paper's figures:
//
//	sine     their data: 100 training and 100 test points, x uniform on
//	         [-10, 10], y = sin x + U(0, 1), the test points sharing the
//	         training points' noise vector as their fixed seed makes them;
//	         their (2,2,2,1) kernel machine of 514 parameters (affine
//	         augmenter of the raw input, unit Gaussian) and 1-16-32-1 ReLU
//	         and sigmoid perceptrons of 609, each penalised its own way
//	         (|A|² + |b|² + the RKHS norm; the squares of every weight and
//	         bias) with one cost for all, -cost (0.003); 3,000 calls of
//	         L-BFGS of at most 20 iterations each (40 with -quick), no
//	         selection. -draws N (at most 1,000) repeats it on N independent draws
//	         (seeds -seed to -seed+N-1). It prints, per model, the mean ± std over
//	         the draws of the penalised training and test losses (what the
//	         authors plot), the training and test MSE and the MSE against
//	         sin x + 0.5, and writes DIR/sine.json ("protocol": "paper",
//	         "models" with each quantity's "values" per draw, "mean" and
//	         "std", and the first draw's curves) and DIR/sine-paper.png and
//	         .svg: the fits, the penalised losses per L-BFGS call (Figure
//	         3c as they drew it), and each draw's test MSE and MSE against
//	         the truth.
//	oneshot  one fixed draw of -shots images per class (1; the draw of the
//	         fair run's first seed), their machine for each -maxfreq (2, 5,
//	         10, 20; at least 2) at cost 0.1 and each further -cost at the
//	         largest maxfreq: a Conv2d(1, 8·maxfreq, 3, stride 2) augmenter
//	         whose channels are the Fourier coefficients of a time-dependent
//	         initial condition, the Gaussian of the squashed states times
//	         their inner product, the states at maxfreq times read out by
//	         one linear layer, pixels normalised by the training split's
//	         mean and standard deviation, adaptive Dormand-Prince with the
//	         adjoint at rtol = atol = 1e-3; Adam at 0.04 with PyTorch's
//	         weight decay 0.01, 10 epochs of one step (batch 128), the whole
//	         test split after each (2 epochs on 300 test images with
//	         -quick). It keeps, as their checkpoint rule does, the epoch of
//	         the lowest penalised test loss: a choice made on the test set,
//	         reported as such beside the last epoch's accuracy, with
//	         1-nearest-neighbour on the same images. DIR/oneshot.json
//	         ("protocol": "paper", "train_indices", per setting every
//	         epoch, "best_epoch", "best_accuracy", "final_accuracy") and
//	         DIR/oneshot-paper.png and .svg.
//
// Each writes DIR/NAME.json (default DIR is "out") with the experiment,
// the seed, and for every model its name, parameter count, train and
// test mean squared error, fit time, iterations and settings; and its
// figures as DIR/NAME-*.png and .svg. -quick runs fewer iterations. The
// flags may come before or after NAME.
//
// # Fitting your own data
//
//	machines fit -data train.csv|- -target COLUMN [-task regression|classification] [-sep ;] [-strict] \
//	    [-ignore a,b] [-keep a,b] [-id COLUMN] [-family auto|shallow|deep] [-dims 3,3,3,1] [-kernel additive|multiplicative] \
//	    [-cost C] [-bandwidth SIGMA] [-folds 5] [-anchors M] [-target-scale auto] [-inputs auto] [-shallow-kernel auto] [-standardize=true] \
//	    [-extrapolate] [-weight COLUMN] [-balance] [-group COLUMN | -time COLUMN] [-budget 30s] \
//	    [-seed 0] [-iters N] [-starts 1] -model model.json
//	machines predict -model model.json -data new.csv|- [-sep ;] [-strict] -out pred.csv|- [-interval 0.9]
//
// -data may also name a Parquet file or an Arrow IPC file (Feather
// version 2), told from CSV by their first bytes, not their names, or a
// glob pattern in quotes (-data 'part-*.parquet') whose files, of any of
// these formats and with the same columns (by their names, in any order),
// are read as one table; -data -
// reads an Arrow stream as well as CSV. Their columns read as the CSV file
// of the same table would (see dataset.OpenTable): numbers, booleans, text
// and pandas' categories, dates and timestamps, with nulls as missing
// cells; nested and binary columns are refused, naming them, and errors
// name a Parquet or Arrow file's row where a CSV file's name its line.
// predict -out pred.parquet writes Parquet, and -out pred.arrow (or
// .feather) an Arrow IPC file, chosen by the name's extension: numbers as
// float64, the classes, sets and id as strings, empty cells as nulls.
//
// The CSV files have a header row and may look as real tables do: numbers,
// quoted or not; booleans (TRUE/FALSE, true/false, yes/no; predict reads
// a boolean input's other spellings, Y, t, 1, N, f, 0, as the value they
// spell, with a warning, and refuses other text); missing cells
// (empty, NA, ? or NaN); dates in an ISO 8601 form (2024-01-31, 2024-01-31
// 13:45, 2024-01-31T13:45:30Z, 2024-01), with the month's name
// (31-Jan-2024, Jan 31, 2024, Jan 2024), or with the year last (31/01/2024
// or 01/31/2024, also with . or -, in the order that a day above 12 shows,
// or else a day that never changes as in monthly figures; with neither, the
// column stays text and fit warns, as it warns of a two-digit year, 10/25/16,
// whose century it cannot tell; a column may mix them with ISO dates, each
// read in its own form, with a warning; predict, score, explain and serve
// refuse a date written in the other order than training's, 02/13/2024 in
// a column of 31/01/2024, whose table would read its dates of a day of 12
// or less with the day and month swapped), which are read as the days since 1970,
// so that a date after the training ones is later, not an unknown level,
// followed by the sine and cosine of their phase in the year, the week and
// the day, each cycle that the training dates show (see dataset.Encoder),
// unless the shallow machine's lowest held-out loss is lower without those
// phases (fit prints both losses); and categories, any other text, and
// whole numbers beyond 2^53 (64-bit ids, card numbers, whose last digits a
// float64 loses), with a warning. Their
// fields are separated by commas, semicolons, tabs or vertical bars,
// whichever splits the first lines evenly (-sep sets it: one character, or
// tab; so does a first line "sep=;" above the header, as spreadsheets write
// it), and their lines end as any system ends them (LF, CRLF, or a lone CR
// as "CSV (Macintosh)" saves them), with or without a separator at the end
// of each, or empty fields without a name (x,g,y,,,) after the last
// column. Numbers may have thousands separators (4,599.0, or spaces or
// apostrophes between groups of three digits: 10 851.5, 1'554.50), a
// minus sign (U+2212) or parentheses for a minus, as accounts write it
// ((1,234.50) reads as -1234.5), a spreadsheet's mark of a number kept
// as text ('12.5 or ="12.5" reads as 12.5), or a minus after the number, as SAP
// exports it (1.234,50- reads as -1234.5), a percent sign, which makes a fraction
// (17.5% reads as 0.175, so that a column may mix 50% and 0.5; a model
// fitted before this rule reads it as 17.5, as it did), and a currency sign
// ($, €, £ or ¥, before or after), which is dropped ($1,234.50 reads as
// 1234.5; amounts in two currencies in one column stay text, with a warning,
// and predict refuses an amount in another currency than the training
// amounts'); a file separated by other than commas whose first 64 KiB hold a
// decimal comma (3,14) is read with decimal commas and points or spaces
// between thousands (1.234,5, 1 554,5), as spreadsheets write them in much
// of Europe, and so is a file separated by commas whose first 64 KiB hold
// such a number quoted ("3,14", not "1,234", which may be thousands) and no
// number with a decimal point. Times of day and durations (13:45, 7:05:30, 10:00 PM) read as
// hours (13.75, 7.09, 22). A unit of measure after the numbers (12 kg, 23.4
// kmpl, 74bhp; 1 month and 3 months share one), the unit of most of a
// column's cells with one, is dropped, and the model keeps it, so that
// predict reads a new value in it as its number; a value in another unit is
// a stray (below), in fit as in predict. Suffixes of magnitude, two of them
// or more in a column (950, 1.2k, 3.4M, $1.5B; k, K, M, B or bn), or one
// beside plain numbers that it brings nearer (950 and 1.2k), multiply:
// 1.2k reads as 1200. A column of numbers with a few
// cells that are not (a typo such as 4.2.1, a dash): one among ten numbers
// or more, and in general one in fifty, stays a column of numbers, and those
// cells are read as missing, with one warning that counts them and names the
// first lines and columns; a target's are dropped (a target also tolerates
// one beside two numbers or more), so that one cell never turns a regression
// into a classification. So are any number of cells of one or two texts
// without a digit that stand for missing values (a dash, a dot, "missing"),
// and of spreadsheets' error values (#N/A, #DIV/0!), in at most half the
// cells, beside ten distinct numbers or more. With more such cells the
// column is text, and fit warns when most of its cells are numbers; the same
// holds for a column of dates. A classification target whose classes differ
// only in case ("No" and "no"), in how they write a number ("1" and "1.0")
// or in how they write a yes or a no ("Y", "TRUE", "1" and "yes", where
// every class is a yes or a no) is warned of, and so is a text input
// whose levels differ so ("Male", "male" and "MALE"). predict, score, explain and
// serve read a cell that is not a number in a column of numbers (or not a
// date in a column of dates) as missing, with the same warning; when such
// cells are more than half a column's rows, and at least 3 ("30 years" for
// 30 in every row), a warning of its own says the column is as good as
// missing (which column, how many rows, the first cell): each of those rows
// reads as the training mean, and its prediction ignores the column. A date
// written with the year last in a column of ISO 8601 dates in training
// (31/01/2024 where training wrote 2024-01-31) is such a cell, with a
// warning of its own that says so, since its order of day and month is not
// the model's to guess (03/04/2024). -strict
// refuses such cells instead, naming file, line and column. The warnings
// name a Parquet or Arrow file's row where a CSV file's name its line. A file that
// is not UTF-8 is read as Windows-1252 (Latin-1), with a warning; names
// in the header may be in single quotes ('vote' is vote). A later line that
// repeats the header, as tables joined end to end hold, is left out with a
// warning; a line of one field of text below the table (a source, a
// footnote) is refused, asking whether it is a note, and the lines that
// end the file below the table padded with empty fields, as spreadsheets
// export them ("Source: national survey, 2023,,", the only value in the
// first field, with a letter and a space or a colon, no digit first; or
// ",,"), are left out with a warning. A first column
// without a name holds row names, as R's write.csv and pandas' to_csv
// write them: it is named "row.names" and is the id column unless -id
// names another, and fit warns when its values repeat, as row names do not
// (a column of data whose name was lost). -data - reads standard input,
// and says so on stderr when that is a terminal. fit uses every column
// but the target, the -ignore columns, the row names and the -id column
// as an input, except columns that identify the rows rather than describe
// them (see dataset.Identifiers): text with a different value in at least
// nine rows in ten (names, codes, keys), and whole numbers that count the
// rows from 0 or 1; these are left out with a warning naming each, and
// -keep COL[,COL] keeps them. Categories are one-hot encoded, each of
// their levels a column, at most dataset.MaxLevels of them, the most
// frequent (the others are encoded as none, as an unseen level is, with a
// warning; predict, score, explain and serve read a level in another
// case, MALE or male for Male, as the one training level it matches, with
// a warning, but as unseen where it matches several, Blue and blue),
// except bins of a quantity (three or more levels that
// each begin with a different number, such as age groups "25-34" ...
// "75+"), which become that number so that their order counts; missing
// values are replaced by the training mean (numbers) or the most frequent
// value, with an indicator column for every column that had gaps; a column
// empty in every row with a target is left out, with a warning. Rows whose
// target is missing are dropped, and fit says how many; a last row of
// totals (a cell "Total", "Sum" or alike, and the sum of the rows above in
// a column of numbers) is left out of a regression, with a warning, and
// warned of in a classification. Without -task the
// target decides: a column of numbers means regression, except numbers that
// take two values only, such as the 0 and 1 of a yes-or-no outcome, which
// mean classification, as does anything else; fit says which it chose and
// why, and -task regression fits two values as numbers.
//
// Before it fits, fit checks what would make the fit fail or mean
// nothing, and says what and where: -id naming the target; a -model path
// that is a directory or cannot be written; a regression target with the
// same value on every row, or one row only. It warns of classes with a
// single row, which a model can hardly learn, and of a regression target
// far from the others, as a typo makes it: beyond 15 robust standard
// deviations (1.4826 times the median absolute deviation) from the
// median, on the log scale too for a nonnegative target, in at most 3
// rows or 1% of them (a streamed fit, of its sample's rows, then of the
// lowest and highest target of all of them). It sizes the fit from the
// table and the settings: more -folds than the rows the cross-validation
// runs on are refused, and so is a hidden block of -dims larger than the
// inputs (as encoded) plus the anchors, since its states span no more
// dimensions than that; a fit whose estimated memory exceeds what the
// machine has available, or whose estimated time exceeds a day, is
// refused with what it would take; and one estimated at over five seconds
// of processor time is announced with its time and memory, for each
// family it may end with: the deep machine's final fit on all the rows
// costs more when it wins the selection, which cannot be known before.
// Each is a range, where the shallow machine's final fit may grow its
// anchors: from the fit that stops at the first count it tries to the
// fit that tries every one, which the refusals count.
// The tests hold the estimate to within a factor of 2 of the CPU time and
// peak memory of the fits measured in cost_test.go's fitCostTables.
//
// fit standardises the encoded inputs (and a regression target) and
// chooses between two finite-depth kernel machines (-family auto): the
// shallow machine, of depth one, solved in closed form, and the deep
// machine of -dims, fitted with L-BFGS; the deep machine competes on
// tables of 60 training rows or more with at most 5 rows per input as
// encoded, where it has won, and the shallow machine is fitted alone on
// the others. Their costs and bandwidths are
// scored by k-fold cross-validation (-folds: 5, or fewer on tables of
// fewer rows, groups or times; stratified by class for classification)
// on at most tabular.SelectionRows rows, and the best is refitted on all
// of them; fit prints every setting's cross-validated score, then the
// chosen one. -family shallow or deep fits one family alone; -dims, -cost
// and -bandwidth describe the deep machine, which they choose; with both
// -cost and -bandwidth nothing is searched. A classifier's shallow
// machine fits its one-hot labels by least squares, its settings ranked
// by the held-out Brier score of its scores. The chosen setting's held-out
// predictions calibrate the machine (a classifier's probabilities, by a
// factor and a bias for each class; a regression's shrinkage towards the
// mean), and its absolute held-out
// residuals are kept in the model file for predict -interval. A
// nonnegative, right-skewed regression target is also tried on the log
// scale, log(1 + y) (-target-scale linear or log fixes the scale); a
// regression's numeric inputs are also tried through their training
// quantiles, then weighed by their relevance (a regression of at most 300
// rows also leaves out, one at a time, the columns whose absence raises
// the shallow machine's evidence and lowers its leave-one-out loss: their
// relevance then 0.01), and a classifier's through
// their quantiles where the shallow machine chooses on 800 rows or more
// (-inputs linear or quantile fixes the scale and weighs nothing); where
// a regression of at most 1,000 rows finds the two scales' held-out
// losses within their noise, the shallow machine of the other scale is
// fitted too and weighs 1/4 in the predictions (the fit record's
// "other_weight"), and so does a classifier's machine of the quantiles
// where their loss is the lower and the shallow machine chose on fewer
// than 800 rows; a regression of at most 1,000 rows also fits a
// linear machine, the ridge regression on the standardised inputs as
// they are, which weighs 1/4 in the
// predictions where its evidence or held-out loss is near the chosen
// machine's (the fit record's "linear_weight"); a
// numeric column of whole numbers that may be a code of groups (at least
// 10 values, 15 rows to a value on average: a school's number, a day's;
// at most 3 such columns; on tables of 30 to 999 rows 3 rows to a value,
// fractions too, where the residuals cluster by it and the codes lower the
// loss by 15% or more) is also tried
// by its values as categories, one 0/1 column each after the value, kept
// where the shallow machine's held-out loss is lower so (not with -inputs
// linear or quantile); and a regression's predictions, and the ends of its intervals, stay within
// the training targets' range widened by a tenth of it on each side
// (-extrapolate lifts the bounds). A regression whose settings are
// searched (no -budget) is fitted twice, all of the above, with the
// shallow machine's Gaussian and with its Laplacian kernel,
// exp(-|x - a|_1 / sigma), which sets rows apart along any one input (a
// group's code, a step) as a tree's split does; the fit of lower held-out
// loss is kept (the fit record's "kernel_losses"; -shallow-kernel
// gaussian or laplacian fixes the kernel, a streamed fit's is the
// Gaussian). The second fit doubles a regression's time.
// fit says what it chose, and the model file records it for predict,
// serve, explain and export. The package documentation of tabular (go doc
// github.com/parametric-machines/machines/tabular) states these rules,
// and docs/learner.md the measurements that chose them.
//
// -weight COLUMN weighs each row's loss by that column (numbers >= 0),
// refused before any work when the weights are all 0, or so spread that
// the fit would rest on fewer than 5 rows' worth of them (Kish's
// effective sample size (Σw)²/Σw²). -balance weighs the classes of a
// classification equally (multiplying -weight); both choose the shallow
// machine, the only one whose loss weighs its rows. -group COLUMN makes
// folds that never split a group between training and held-out rows, and
// -time COLUMN (numbers or dates, read as an input column reads them,
// with its warning of ISO 8601 dates mixed with dates written with the
// year last) folds that move forward in time, each
// trained on earlier rows than it holds out; these columns are not
// inputs. -target a,b fits several regression targets at once, one
// output of the machine each, on the rows where all of them have a
// value; predict writes one column per target (and lower_a, upper_a, ...
// with -interval), score averages R^2 and MSE over them, and export
// refuses such a model. -budget 30s bounds the fit's time: the deep
// machine's cross-validation fits not started by then are skipped (their
// settings marked "skipped") and its final fit stops there; the shallow
// machine is always scored, so the best machine found is returned.
// -anchors M sets the number of anchor points (by default every row up
// to tabular.ShallowAnchors, for the deep machine tabular.DeepAnchors,
// and that many k-means++ centres of larger tables; on more rows, not
// split by -group or -time, the shallow machine's final fit also tries
// 200 and 400 (at most the rows), then 800 and 1,600 where the count is
// at most half the rows and the basis under 3.2e7 features of the rows,
// and keeps a count while its leave-one-out loss on all the
// rows falls by more than one standard error of the rows' paired
// differences and by 0.25%; 1,600 only where 800 lowered it by more than
// 1%). The final fit stops
// at -iters, and -starts N (at most 1,000) fits it from N initial points
// and keeps the one of lowest loss.
// A -data file of more than tabular.StreamRows (20,000) rows is read
// twice, in chunks, so that memory does not grow with the rows: the
// shallow machine's settings are chosen on a seeded sample of 20,000
// rows (with, for a classification, the first row of each class that the
// sample lacks), with the square root of the rows as anchors (100 to 400), and it
// is fitted to every row from their sums, its cost chosen on one row in
// ten held out (see docs/large.md); where more anchors lower the
// sample's own held-out error, the sums hold up to 1,600 (as many as the
// rows allow at the time 400 take on 10^6 rows), and the held-out rows
// choose the count too; -family deep, -dims, -cost,
// -bandwidth and -balance read it whole, as does -data -. score reads
// such a table in chunks too, from a file or standard input, and explain
// measures on a seeded sample of it.
// fit reports progress on standard
// error, then a summary: rows, columns and inputs, the settings and how
// they were chosen, the training score, the parameters and the time.
//
// -dims lists the sizes of the blocks of the machine space, the input block
// first and the output block last; the last entry must be 1 for regression
// and the number of classes for classification, and fit says so if it is
// not. Without -dims the blocks are 3,3,3 and then the output block.
//
// The model file is JSON in the module's envelope, shared by every file it
// writes: "format": "machines", "kind": "kernel-machine", "version": 12;
// then the "task", the "target" and "id" column names, the "features" (the
// table's input columns), for classification the "classes" in order, the
// "encoder" (each column's kind, categories, imputed value and indicator,
// a date column's "cycles", a numeric column's "codes"),
// the "fit" record (data file, or "standard input", rows, dropped rows,
// seed, the -weight, -balance, -group, -time and -budget flags, chosen
// settings, "shallow" for the shallow machine, the inputs' scale and
// relevance weights with the held-out losses that chose them (and, where
// the weights were kept, "held_out": the chosen setting's held-out
// scores with each fold's weights measured on its training rows alone,
// whose residuals the intervals hold), the "cycle_losses" with the dates'
// cycles and without, the "code_losses" without numeric columns by their
// codes and with the best tried, iterations,
// the rows of the coarse fit, whether the optimiser converged, time, the
// whole "selection" with every candidate's scores (and "shallow_rows" where
// the shallow machine's settings were chosen on more rows than the race's)
// and the "calibration":
// "logit_scale" and "class_bias", or "shrinkage"), the "intervals" of a regression
// ("residuals": the sorted absolute held-out residuals on the scale the
// machine fits, at most 1000 evenly spaced ones), and the "machine": its
// "dims", "kernel", "bandwidth", the matrices "a", "c" and "anchors" as
// arrays of rows, "input_block" when the first block is the input itself
// and "a" holds the other blocks alone (the shallow machine), the
// "quantiles" map of inputs mapped through their training quantiles
// ("knots", "ranks"), the "input" and "output" scalers ("mean", "scale"; a
// classifier's output scaler adds its intercepts to the class scores), and
// a regression's "range", the lowest and highest prediction of each
// target, and the "other" machine, in this same form, with its
// "other_weight", when two scales of the inputs were averaged, and the
// "linear" machine, in this same form, with its "linear_weight", when
// the linear machine of the inputs as they are was averaged in (files
// written by the fits of 2026-11-30 may also hold the "mean" machine, in
// this same form, with its "mean_weight", averaged in and recorded in
// the fit record alike; predict, serve and export apply it). Files of
// versions 1 to 4, whose "format" was "machines-model", are still read.
// It is written atomically: a temporary file renamed into place.
//
// predict reads the model's feature columns from new.csv by name, in any
// order, ignoring other columns, encodes them as fit did (a category not
// seen in training encodes as all zeros, with one warning per column, and
// numbers beyond a column's training values by more than their spread, as
// numbers in another unit or scale are, are warned of: the model
// extrapolates there; so are cells with no value in a column that had one
// in every training row, read as the training mean or most frequent level
// in a model that never met a gap there) and
// writes pred.csv, also atomically, or standard output for -out -: the id
// column if the model has one (or -id names one), then for regression a
// column named after the target, for classification the predicted class
// in a column named after the target and the probability of each class in
// columns p_CLASS. It reads, predicts and writes 4,096 rows at a time, so
// that its memory does not grow with the file. A prediction that is not a
// finite number (inputs far outside the training data, or an output that
// overflows) is left empty, and a warning says how many and where.
// -interval 0.9 adds to a regression's predictions the
// columns lower and upper: a conformal prediction interval of that level,
// the prediction on the scale the machine fits plus and minus the
// ceil((n+1) 0.9)-th smallest of the n held-out residuals, mapped back to
// the target's units (so an interval of a log target is wider above than
// below). It holds new rows' targets with probability about 0.9 when they
// are drawn like the training rows; a model fitted with -cost and
// -bandwidth both fixed has no residuals, and -interval says so. For a
// classifier -interval 0.9 adds the column set: the classes of the row's
// conformal prediction set, separated by |, those whose score 1 - p is at
// most the ceil((n+1) 0.9)-th smallest of the n held-out rows' scores of
// their true class, so that the set holds a new row's class with
// probability about 0.9 (model files of version 6 and later).
//
//	machines predict -model out/sculpt-model.json -data DIR|IMAGE -out pred.csv|-
//
// predict also classifies images with a sculpted machine (a model file
// of package model whose one input is an image and whose one output is
// its classes): -data is an image file or a folder, whose image files,
// in it and its folders, it reads as sculpt reads a folder (formats,
// EXIF orientation, hidden files, and a warning of the files it does not
// read), turned to the machine's channels, resized to its size if they
// are of another (with a warning that counts them) and scaled as its
// file says. It warns of images in colour given to a machine of grey
// images (read as grey), of a folder of grey images only given to a
// machine of colour images, and of folders of -data named like the
// machine's classes among others named like none (a class the machine
// does not have, whose images it classifies among its own). It writes a row per image: "file", its path within -data,
// "class", the class of the largest logit by name (by number for an IDX
// data set), and the probability of each class, p_CLASS (the softmax of
// the logits). A model file of version 1, which does not say how it
// reads pixels, is refused; -interval, -id, -sep and -strict are for
// tables.
//
//	machines score -model model.json -data test.csv|- [-strict] [-json FILE] [-interval 0.9] [-figure BASE]
//
// score reads labelled data, with the model's feature columns and its
// target column, predicts every row and prints the coefficient of
// determination R^2 and the mean squared error for a regression model
// (with -interval, also the fraction of rows inside their interval and
// the intervals' mean width; for a classifier, inside their prediction
// set and the sets' mean size), or the accuracy, the log-loss and the Brier
// score (the mean squared distance between the probabilities and the true
// class) for a classifier; -json also writes them to a JSON file. R^2 is
// undefined when the target does not vary, as on a single row, and the
// MSE when it exceeds the largest float64: score says so instead of
// printing a number, and the JSON leaves them out with a note. A
// prediction that is not a finite number makes score fail, naming the
// rows. A label is one of the model's classes, or that of the same number
// (1 for a class written 1.0, as pandas writes whole numbers in a column
// with gaps), or the one class it is in another case (HIGH for High, with
// a warning, as predict reads an input's levels); any other label makes
// score fail, naming its row. The JSON's
// "calibration" bins the rows by their predictions: a regression's in up
// to 10 groups of equal size by its prediction of the first target, a
// classifier's in 10 bins of the probability of the class it predicts;
// each bin has its "rows", their mean prediction ("predicted") and mean
// outcome ("observed": the target, or the fraction of rows whose predicted
// class is right), which a calibrated model keeps near each other;
// -figure BASE draws them against the diagonal in BASE.png and BASE.svg.
// Its "warnings" are those about the data that standard error received
// (each with its "column", an example "value", the "rows" concerned and
// the "message"), as explain's JSON has them too.
//
//	machines explain -model model.json -data test.csv|- [-strict] [-repeats 10] [-seed 1] [-json FILE] [-figure BASE]
//
// explain measures how much each input column matters to the model:
// the permutation importance, the drop in the model's score (R^2 for
// regression, accuracy for classification) on the labelled rows of
// test.csv when the column's values are shuffled among the rows, averaged
// over -repeats shuffles (at most 1,000), with a 95% interval: each row's
// share of the drop, averaged over the shuffles, gives a Student t
// interval of the mean over the rows, which speaks of the sample of rows
// as well as of the shuffles. A categorical column's one-hot columns and
// a column's missing indicator move with it. It prints a table, the most
// important column first; -json writes the score, its value on the rows
// as they are ("baseline") and each column's importance, interval and
// per-shuffle drops; -figure BASE draws the importances as bars with
// their intervals in BASE.png and BASE.svg. Measure on rows the model was
// not fitted to, as on a held-out test set: on its training rows it shows
// what the model memorised. A -data file of more than
// tabular.StreamRows (20,000) rows is read once, in chunks, for a
// uniform sample of 20,000 of its rows drawn with -seed, on which the
// importances are measured, so that memory does not grow with the rows:
// the first line says so, and -json records the table's rows as
// "table_rows"; the intervals, over the sample's rows, speak of the
// sampling too.
//
// # Exporting to ONNX
//
//	machines export -model model.json -onnx model.onnx [-interval 0.9]
//
// writes the model of fit as an ONNX model (opset 17, ai.onnx.ml 2, IR
// version 8), atomically, for ONNX Runtime and the other runtimes that
// read ONNX. The model computes what predict does, preprocessing included,
// in float64: its inputs are the feature columns, one per column, named
// after it, of shape [N, 1] for a batch of N rows: a numeric column as a
// double with NaN for a missing cell; a boolean, categorical or ordinal
// column as a string, the cell's text as the CSV file has it (trimmed),
// read as predict reads it (a boolean's other spellings, a level in
// another case), but for a level whose letters beyond ASCII differ in
// case (ÉTÉ for Été), no level to the model. Its outputs are
// "prediction" ([N, 1]) for regression, and for classification "scores"
// ([N, K], the machine's outputs), "probabilities" (their softmax, the
// p_CLASS columns of predict) and "label" (the predicted class, [N]
// strings). -interval 0.9 adds to a regression the outputs "lower" and
// "upper" ([N, 1]), the interval of predict -interval. The model's
// metadata holds the target, the task and the
// classes, and each input's documentation says what it takes; "go doc
// github.com/parametric-machines/machines/onnx" tells the rest.
//
//	machines export -model mixed.model.json -onnx model.onnx [-float64]
//	machines export -model finite.json -onnx machine.onnx [-shape L|H,W] [-float64]
//
// export also takes a model file of package model (any model built
// through its layers and saved, such as the mixed.model.json of
// examples/mixed; a saved hypergraph machine, such as the
// sculpt-model.json of sculpt) and a saved finite machine, and knows
// each file by its "kind". They compute in float32, or float64 with
// -float64, with a dynamic batch. What a model file says of its inputs
// and outputs (sculpt-model.json's classes and pixel scale) goes into
// the ONNX model's metadata: "classes.logits" (the classes, one a
// line), "pixel_scale.x" and "channels.x". A model's inputs and outputs are its
// input and output spaces, named after them ([N, C, H, W] for images,
// [N, D] for vectors; an output is the space's activated state), in one
// graph whatever its layers' families; only its live layers, those on a
// path to an output, are exported. Finite machines are unrolled block by
// block, kernel machines' anchors' states stored as constants, and
// infinite-depth kernel layers and neural ODEs unrolled RK4 step by
// step; such a layer solved adaptively (an infinite-depth layer with a
// tolerance, a neural ODE with 0 steps) is refused, since its step sizes
// depend on the data. A saved finite machine takes "y0", its input
// block, and returns "z", its stable state, unrolled block by block (a
// recurrent machine time step by time step); a convolutional or
// recurrent machine needs -shape, its signals' length L or height and
// width H,W, which the graph fixes; a recurrent machine's graph grows with
// L (about a kilobyte a time step for a small machine), and an L whose
// file would exceed the 2 GiB that ONNX files hold, or whose building
// would exceed the memory available, is refused. A hypergraph spec has
// no weights and is refused, as are parameter and checkpoint files.
//
// # Sculpting
//
//	machines sculpt -data DIR [-size N|WxH] [-split 0.2] [-nodes 10] [-channels 4] [-epochs E] [-finetune N] \
//	    [-lambda 0.085] [-tol 1e-6] [-validation 0.1] [-path [-tolerance 0.005] [-budget EDGES]] \
//	    [-out out] [-seed 1] [-resume] [-plain] [-lr 0.001] [-batch 32] [-protocol fair|paper]
//
// trains the generous hypergraph architecture of section 3.1 of the paper
// (Figure 2) on the training images in DIR (see Image data below) and
// prunes it while it trains. The architecture has -nodes hidden nodes of -channels
// channels, each a ReLU6 followed by a resampling (identity, max-pool or
// upsample; sizes between a half and a quarter of the input), a 3x3
// convolution from every earlier node of the size a node reads, and a
// linear head from every node into the class logits. The loss is the
// cross-entropy plus -lambda times the sum over edges of sqrt(weights) times
// the edge's weight norm (group lasso); Adam (-lr) takes the steps and a
// proximal step (block soft-thresholding) after each sets weak edges to
// exactly zero. -plain adds the penalty's subgradient to the gradient
// instead, which seldom drives a norm below -tol. An edge whose norm falls
// below -tol is pruned, and so is a node whose inputs or outputs are all
// pruned, with its edges; pruned edges are removed from the machine at
// the end of the epoch, so they cost nothing afterwards. The last
// -finetune of the -epochs (by default 3/7 of them, at most one fewer
// than -epochs; 0 for none) train the sculpted machine without the
// penalty, which undoes its shrinkage of the surviving weights. -tol
// must be greater than 0.
//
// Before it trains, sculpt sizes the run, without building the
// architecture: its edges, weights and FLOPs per image, and the memory
// and the time the run will take, which it prints on standard error. A
// run of more than 2^24 weights, or that would need more memory than the
// machine has (or its control group allows) or more than a week, is
// refused with an error that says what it would take and what to change
// (-nodes, -channels, -epochs or -batch). The time is estimated at the
// speed of training measured on two cores and is good to a factor of a
// few.
//
// So that the defaults prune as much on a thousand images as on sixty
// thousand, a run without -epochs takes about 12,000 minibatch steps (7
// epochs of Fashion-MNIST), and -lambda is the penalty at 55,000
// training images, scaled by the fourth root of 55,000 over the number
// of training images (sculpt.json records it as "lambda_effective"; go
// doc ./sculpt says how the rule was measured). -validation (0.1, at most
// 5,000 images) of the training images are held out and measured after
// every epoch; the test images are classified once, at the end.
//
// -path trains along seven penalties from -lambda/2 to 4 -lambda, half an
// octave apart, each starting where the last ended and training as many
// epochs with its penalty as a run without -path; each point is judged
// by the validation accuracy of a copy fine-tuned without the penalty.
// A point may be kept if it is within -tolerance of the best point's
// validation accuracy, or within its standard error if that is larger
// (small validation splits); up to three points are then added between
// the sparsest such point and the next sparser one, each halving the
// step in penalty. The sparsest point that may be kept (the more
// accurate of equal FLOPs) is kept, or the first with at most -budget
// live edges, and tested. sculpt-path.png and .svg draw validation
// accuracy against FLOPs with the kept point and the threshold marked,
// and sculpt.json lists the points ("path", "path_chosen",
// "path_threshold"). A path takes several runs' time (3 min 20 s on
// Fashion-MNIST, where a run takes 30 to 45 s); it cannot be resumed.
//
// -protocol paper trains under the authors' protocol instead
// (Veos-Digital/hypergraph_machines): plain SGD at -lr 3e-3 on
// minibatches of -batch 128 for 100 epochs (-epochs may shorten it, and
// the summary and sculpt.json, "paper_epochs", say by how much), no
// fine-tuning, and their penalty: -lambda 1 times, for a convolution into
// a node, the node's incoming edges beyond 3 (nodes with 3 or fewer go
// free), and for a head 1 (but the first head, which their code leaves
// out), times the RMS norm of the edge's weights, added as a
// subgradient and not scaled to the data size; an edge is pruned when
// its RMS norm falls below -tol. Flags given keep their values.
// sculpt.json then holds "protocol": "paper".
//
// # Image data
//
// -data DIR of sculpt, and of "experiment sculpt", is either an IDX data
// set (MNIST's format: the train split for training, t10k for testing) or
// a folder of PNG, JPEG, GIF (the first frame), BMP, TIFF, WebP and
// Netpbm (PBM, PGM, PPM, and PAM of grey or RGB, with or without alpha)
// images, one folder per class:
// DIR/train/CLASS/*.png and DIR/test/CLASS/*.png with the same classes
// (train and test, and valid below, in any case: Train, TEST),
// or DIR/CLASS/*.png (or .jpg, .jpeg, .gif, .bmp, .tif, .tiff, .webp,
// .pbm, .pgm, .ppm, .pnm, .pam, in any case), of which the fraction -split of
// each class (0.2; drawn by -seed) is held out for testing. A folder of
// validation images beside train and test, DIR/valid (or DIR/val or
// DIR/validation) with the same classes, is the validation set that
// sculpt measures after each epoch and -path chooses on, in place of the
// -validation fraction it otherwise holds out of the training images (up
// to 5,000 of its images; -validation is then refused). The classes are
// the folder names, sorted. Other files and folders in a class folder are
// skipped with a warning on standard error that counts them by extension
// and names one (HEIC and AVIF photographs among them: convert them to
// JPEG or PNG); hidden files (.DS_Store, macOS's ._NAME), Thumbs.db,
// desktop.ini and the __MACOSX folders of macOS's archives are ignored,
// and links are followed (a link to DIR or a folder above it is refused).
// A class folder's name that is not UTF-8 text, as archives made on
// Windows leave them, is read as Windows-1252, with a warning. In a
// folder without train and test folders, a folder named valid, val or
// validation is refused if it holds class folders, and is a class, with a
// warning, if it holds images. The EXIF orientation
// of a JPEG, PNG (its eXIf chunk before the pixels), WebP or TIFF file,
// which phones write rather than turning the pixels, turns the image
// upright before it is resized. The images are grey if every
// file is grey and RGB otherwise, with the input of the architecture as
// many channels; transparency is dropped, each pixel keeping the colour
// it stores (a transparent pixel stored white is white), as removing the
// alpha channel does. -size N or -size WxH resizes every image
// (Catmull-Rom interpolation), with a warning if their aspect ratios
// differ by more than a factor of 1.25 (portraits among landscapes),
// which one size stretches unlike each other; without it the images must
// all be of one size, and the error names the first that is not. Errors name the file
// or folder at fault: a file that is not a readable image, one of more
// than 2^25 pixels, a class folder without images, a class in one split
// only, a folder of one class or of classes of one image each (none left
// for testing). Classes without a training image, which IDX labels that
// skip numbers make, are warned of on standard error, and so are
// classes without a test image (a class folder of one image keeps it for
// training), classes of more than ten times the training images of
// another (with the test accuracy of a machine that answers the largest
// class whatever the image), and images smaller than 8 pixels on a side
// as the architecture reads them, which its nodes pool down further
// (-size enlarges them). -size and -split are for folders only, and "experiment
// sculpt" reads a folder with their defaults (one size, 0.2 held out).
//
// It trains with the library's one training loop, which reports the loss
// and images/s on standard error about once a second; after each epoch it
// prints the validation accuracy, live edges and images/s, and writes
// a checkpoint, DIR/checkpoint.json of -out, after each, atomically; after
// an interruption, the same command with -resume continues after the last
// finished epoch and gives the same result as an uninterrupted run. A
// checkpoint of another architecture or other settings is refused; only
// -epochs may grow, and once fine-tuning has begun it goes on to the
// end. Also refused, each with what to do: a checkpoint of more epochs
// than -epochs asks for, one with weights that no run of its settings
// could have reached (a damaged file), and one whose every edge is
// pruned; -resume with no checkpoint in -out says there is nothing to
// resume. The checkpoint records the number of workers (one per core,
// GOMAXPROCS): a run resumed with another number goes on and says so,
// for it then sums its gradients in another order and ends a little
// differently from an uninterrupted run. A run whose penalty prunes every
// edge goes back to the sparsest of its earlier epochs within -tolerance
// of the best validation accuracy, and fine-tunes it without the penalty
// for the -finetune epochs (sculpt.json's "fell_back" names the epoch): a
// machine with no edge predicts one class whatever the image. One that
// has no earlier epoch to go back to (every edge pruned in the first
// epoch, or since a -resume) writes its files and exits with status 1,
// naming the epoch of best validation accuracy (-path chooses the
// penalty on the validation images). At the end
// it writes, in the -out directory,
// sculpt.json ("epochs", "validation_accuracy" per epoch, "edges_initial",
// "edges_live", "flops_initial", "flops_live", "seconds_per_epoch", and
// "accuracy_pruned" against "accuracy_unpruned", the generous machine
// with the same weights, for a folder "classes", its class folders'
// names, and "warnings", those about the data that standard error
// received: files not read, images stretched or few in colour, small
// images, unbalanced classes, classes without a training or a test
// image), the final machine sculpt-model.json (a saved hypergraph
// machine), the architecture at the start and at the end as Graphviz
// files sculpt-start.dot and sculpt-end.dot, and the pictures
// sculpt-architecture.png and .svg. The machine, which export and serve
// take, reads images as sculpt read them: its input "x" is [N, C, H, W]
// at the size it was trained on, each pixel's value divided by 255 (so
// in [0, 1], not 0 to 255), the channels red, green and blue or one grey
// level (the luma); its output "logits" has a column per class, in the
// order of "classes" (the sorted folder names; for IDX files, the
// labels). sculpt-model.json records both in its "meta" (a model file of
// version 2): "pixels" (the scale, 1/255, and the channels) and, for a
// folder, "classes", so that serve answers the class by name ("label")
// and tells the scale in its metadata, and predict classifies image
// files with it (see predict above). "machines experiment sculpt -quick"
// runs four epochs on 10,000 of the training images with a larger
// penalty, a few seconds that still prune (by default Fashion-MNIST at
// /usr/share/datasets/fashion-mnist).
//
// # Benchmarks
//
//	machines bench [-suite default|machines|tabular|sculpt|onnx|serve] [-json FILE] [-runs N] [-model FILE]
//
// times the workloads described in cmd/machines/internal/bench/WORKLOADS.md single-threaded and
// prints the median time of -runs samples (9; at most 1,000, for each
// lasts at least 20 ms) of each: W1 (matmul), W3 (convolution), W4, W4b
// and W4fit (the finite-depth kernel machine) and the Volterra solvers,
// general against fast, at 100 and 1000 time points. -suite machines
// times instead dense, conv and recurrent machines of package finite
// (workloads KIND-SIZE-PASS, float32, tanh) in three passes: forward
// (the forward solve), backward (the reversed solve, giving the
// cotangents of y0 and z0, as the authors time their backward pass) and
// gradient (the reversed solve and the weight gradient), and the
// reference layers KIND-medium-reference (one masked product or im2col
// convolution); it prints the backward/forward (goal 1),
// gradient/forward (goal 2) and forward/reference (goal 2) ratios, which
// the JSON also holds under "ratios". -suite tabular times fits of the
// default kernel machine on Friedman 1. -suite sculpt times one epoch of
// package sculpt on the first 10,000 Fashion-MNIST training images, on
// one core (sculpt-epoch-1) and on every core (sculpt-epoch-all), and
// prints the images per second of each and the speed-up (goal 1.8).
// -suite onnx times inference of a batch of 256 Fashion-MNIST test images
// through the sculpted machine of -model (default out/sculpt-model.json,
// where sculpt writes it), on one thread, by the library (onnx-library)
// and exported to ONNX in ONNX Runtime (onnx-runtime, through
// onnx/runtime/time.js; run it from the repository's root), after
// checking that the runtime's logits agree with the library's within
// 1e-5, and prints the images per second of each. -suite serve runs this
// program's serve on loopback, serving a model of fit on Friedman 1 (10
// numeric columns), loaded by Debian's wrk from 64 connections of one-row
// requests (serve-single) and 8 of 256-row requests (serve-256), and
// prints the rows per second and the 99th percentile of the latency of
// each; serve-replace replaces the model 10 times in 30 s of load and
// fails if a request fails or an answer is not that of the version it
// names; serve-sigterm sends serve SIGTERM under load and fails unless
// serve answers the requests in flight and exits 0
// (cmd/machines/internal/bench/WORKLOADS.md).
//
// # Serving
//
//	machines serve -models DIR [-addr 127.0.0.1:8080] [-token-file FILE] [-insecure] \
//	    [-batch-size 256] [-batch-delay 200us] [-workers N] [-max-body 4MiB] [-max-inflight 256] \
//	    [-max-memory 512MiB] [-timeout 10s] [-queue-wait T] [-min-write-rate 32KiB] \
//	    [-grace 30s] [-poll 1s] [-interval 0.9] [-log-level INFO]
//
// serves every file NAME.json of DIR (hidden files aside; NAME of
// letters, digits, '.', '_' and '-') as the model NAME over the Open
// Inference Protocol's REST API (KServe V2), which Triton, KServe,
// Seldon and ONNX Runtime's server speak, so that their clients work
// unchanged. The files are models of fit, the model files of the
// library's composed models (sculpt's sculpt-model.json, spec-built
// machines, models of every family, and the saved hypergraph machines of
// earlier versions) and saved finite machines, each known by its
// "format" (and "kind"). The endpoints:
//
//	GET  /v2                                       the server's name and version
//	GET  /v2/health/live, /v2/health/ready         200 when live; ready when every file has a model served
//	GET  /v2/models/NAME[/versions/V]              inputs and outputs: names, datatypes, shapes (-1: any size)
//	GET  /v2/models/NAME[/versions/V]/ready        200 when a version is served, 400 when none is
//	POST /v2/models/NAME[/versions/V]/infer        tensors in, tensors out
//	GET  /metrics                                  Prometheus metrics
//
// A model of fit takes the inputs of its ONNX export: one per feature
// column, of shape [N, 1], FP64 for a numeric column (null for a
// missing cell) and BYTES for a boolean, categorical or ordinal one (the
// cell's text, missing texts included); it returns "prediction" ([N, T]
// for T targets) for regression, with "lower" and "upper" ([N, T]), the
// prediction interval of level -interval that predict -interval gives,
// when the model holds enough held-out residuals for that level (fit
// keeps them unless -cost and -bandwidth are both given); and "scores",
// "probabilities" ([N, K]) and "label" ([N]) for classification, with
// "set" ([N]), the prediction set of level -interval that predict
// -interval gives, when the model holds enough held-out scores. The
// rows are encoded as predict encodes them, and the numbers are
// predict's to the last digit; a level not seen in training gives
// predict's warning in the response's "parameters": {"warnings": "..."}.
// A composed model takes and returns tensors named after its input and
// output spaces, [N, shape...], FP32 or FP64 as its file's element type;
// an output whose classes its file names (sculpt-model.json of a folder
// of images) adds "label" ([N], BYTES), the class of its largest column
// by name, and the metadata gives the classes in the label's
// "parameters" and, for an image input, "pixel_scale" (1/255: values in
// [0, 1], not 0 to 255) and "channels" in the input's;
// a finite machine takes "y0", [N, d0] or [N, d0, L...], and returns
// "z", its stable state, computed in float32. A request's
// "outputs" selects outputs; its "id" comes back with the response. A
// model's version, in "model_version" and the metadata's "versions", is
// the first 12 hexadecimal digits of the SHA-256 of its file.
//
// The requests to one model are computed in batches of up to -batch-size
// rows, each waiting at most -batch-delay for requests to join it (not
// at all when no other request to the model is in flight): while
// -workers batches are being computed, new requests queue and join the
// next one. -batch-size is at most 65536, -workers at most 256
// (each holds a copy of a composed model) and -max-memory at most the
// machine's memory: larger values are refused before anything listens.
// serve sets the garbage collector's target to 400% unless GOGC is set,
// so that it collects a quarter as often as at the default 100, and,
// unless GOMEMLIMIT is set, a soft memory limit of twice -max-memory and
// the heap of the models loaded at the start, near which it collects as
// often as it must: a server's live heap is small, and each collection
// stops every goroutine.
//
// The directory is read every -poll, and at once on SIGHUP: a file
// added is served, a file
// replaced (write a hidden file, one whose name starts with '.', in the
// directory and rename it onto the old one, as fit and sculpt do) is
// served in place of the old version,
// and a file removed stops being served; requests in flight finish on
// the version they started with. A file that fails to load leaves the
// previous version serving, and the log and the model's ready endpoint
// say why; one that cannot be read (its permissions) is tried again at
// each reading of the directory, so that a chmod or chown is enough.
//
// Errors are the protocol's {"error": "..."}: 400 for a malformed request
// (bad JSON, JSON nested deeper than 32 levels, unknown or missing
// inputs, wrong datatypes or shapes, data that do not fill the shape,
// cells the model cannot read), 401 without the token, 404 for an
// unknown model or version, 405 for a wrong method, 408 for a body not
// sent within -timeout, 413 for one larger than -max-body or a request
// whose computation would take more than -max-memory less six times
// -max-body (estimated from the model's shapes before any work; the
// error says the most samples of that shape a request may hold), 415 for
// a compressed body (Content-Encoding: serve reads JSON as it is), 429 beyond
// -max-inflight requests in flight (a body on its way holds no place),
// 499 for a client that closed the connection, or only its sending
// side, before the answer (net/http takes either for a client gone);
// 503 when the memory budget -max-memory stays full (a request counts six
// times its body and the memory of its computation, and waits its turn
// for them in a queue, at most -queue-wait, half of -timeout unless
// given and at most -timeout; the clients, by remote address, take
// turns, one request a round, so that a client's many connections do not
// crowd out another's one, and clients behind one proxy share its turns;
// the bodies not computing yet hold at most half the budget),
// when a model did not answer within -timeout or its file has not
// loaded, 500 when a model fails, and 505 for HTTP/2 without TLS. An
// answer is written at -min-write-rate at least (a size per second, at
// most 1GiB), and within another -timeout: a client that reads slower is
// cut, and the memory its request holds given back (lower it for
// clients behind a slow network; raise -queue-wait for clients that
// would rather wait than retry). Every answer is JSON, those of malformed HTTP included.
// A row whose outputs are not finite numbers is answered as predict
// leaves it (numbers null, texts empty) and the response's parameters
// say which ("warnings", "blank_rows"). Model names are never used as
// paths; only regular files are models, of at most a twentieth of the
// machine's memory and 1 GiB (loading one takes about 4 times its
// size), and a link to nowhere or round a loop is a model not ready. A
// request with a chunked body has its connection closed after the
// answer. serve serves on when its log can no longer be written.
//
// serve refuses an -addr beyond loopback unless -token-file is given,
// whose first line is a bearer token that every request but
// /v2/health/live and /v2/health/ready must then carry (Authorization:
// Bearer TOKEN; the file must not be readable by others), or -insecure. It
// takes connections at once: while the models load, /v2/health/live
// answers 200 and every other endpoint 503 with Retry-After, so that a
// liveness probe does not restart a server loading large models. Once
// they are loaded it prints "serve: listening on ADDRESS" on standard
// output. It logs on standard
// error a line per model load at level INFO and per request at DEBUG. On
// SIGTERM or SIGINT it stops taking connections, finishes the requests
// in flight within -grace, and exits with status 0 (1 if some did not
// finish). Once it holds as many connections as three quarters of the
// files the process may open (ulimit -n), or as -max-memory holds at 8
// KiB each, it closes the idle ones and keeps none alive until they are
// half as many, so that idle clients cannot keep others, health checks
// included, from connecting, nor take memory without bound.
//
// # Version
//
//	machines version
//
// prints the module version of machines ("(devel)" for a build from a
// source tree), the VCS revision it was built from, marked "dirty" if the
// tree had uncommitted changes, and the Go version.
//
// # Files
//
// Every file the commands write (models, predictions, scores, reports,
// checkpoints, figures, ONNX models) is written atomically: to a
// temporary file beside it, .NAME.tmp-PID-N, renamed into place once
// whole. A command killed while it writes leaves that temporary file;
// the next write of the same file removes it, and any other left by a
// process that no longer runs or not touched for a day.
//
// fit, predict, score, export and explain check that their output files
// can be written (not a directory, in a directory that exists and is
// writable) before any work. No command writes over one of its own
// inputs, nor one output over another: fit -model, predict -out, score
// and explain -json, explain -figure, export -onnx, bench -json, and the
// -out directory of sculpt and experiment are refused, naming both flags,
// when they name the file (or directory) of an input flag, by the same
// path or another (a symbolic or hard link, "..").
//
// Exit statuses: 0 for success; 2 for an error in the command line,
// found before any work: a flag that is unknown, given twice, malformed,
// out of range or at odds with another or with the table (-anchors
// beyond its rows, -dims of another output than its classes), a flag
// that names a column the table lacks, or a file or directory that does
// not exist, and an output that cannot be written (a directory, in a
// directory that does not exist, over an input); 1 for inputs that exist
// but are refused (a table or model file that does not read, bad cells,
// a target of one class) and for failures of the work. An error of status
// 2 is followed by a hint to run the command with -h.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
)

// command is a subcommand: it parses its own flags from args. args and
// summary are its line of the overview.
type command struct {
	name, args, summary string
	run                 func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"experiment", "NAME", "run one of the paper's experiments and write its JSON and figures", runExperiment},
		{"fit", "", "fit a kernel machine to a CSV, Parquet or Arrow table", runFit},
		{"predict", "", "predict with a fitted model", runPredict},
		{"score", "", "score a fitted model on labelled data", runScore},
		{"explain", "", "measure how much each input column matters to a fitted model", runExplain},
		{"export", "", "write a fitted, sculpted or saved model as an ONNX model", runExport},
		{"bench", "", "time the library's workloads", runBench},
		{"sculpt", "", "sculpt a hypergraph architecture on an image data set", runSculpt},
		{"serve", "", "serve model files over the Open Inference Protocol", runServe},
		{"version", "", "print the version of machines and of Go it was built with", runVersion},
	}
}

// overview returns the lines of the overview of the commands, help last,
// as the package comment lists them.
func overview() []string {
	var lines []string
	for _, c := range append(commands(), command{name: "help", args: "[COMMAND]", summary: "print this overview, or the help of COMMAND"}) {
		lines = append(lines, fmt.Sprintf("%-17s %s", strings.TrimSpace(c.name+" "+c.args), c.summary))
	}
	return lines
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usageError marks errors in the command line: they exit with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// helpError is returned by parseFlags when the command line asks for help.
// It carries the flag set, so that run can print the help on standard
// output, where a reader who asked for it expects it.
type helpError struct{ fs *flag.FlagSet }

func (e *helpError) Error() string { return flag.ErrHelp.Error() }
func (e *helpError) Unwrap() error { return flag.ErrHelp }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "help":
		return runHelp(args[1:], stdout, stderr)
	}
	c, ok := lookup(args[0])
	if !ok {
		unknownCommand(stderr, "machines", args[0])
		return 2
	}
	return exitStatus(c, c.run(args[1:], stdout, stderr), stdout, stderr)
}

// unknownCommand reports that name is not a command, offering the
// command it is likely a typo of.
func unknownCommand(stderr io.Writer, prefix, name string) {
	fmt.Fprintf(stderr, "%s: unknown command %q", prefix, name)
	if near, ok := nearestCommand(name); ok {
		fmt.Fprintf(stderr, "; did you mean %q?", near)
	}
	fmt.Fprintln(stderr, "\nrun 'machines help' for the list of commands")
}

// nearestCommand returns the command that name is at most two edits away
// from, ignoring case, if one is.
func nearestCommand(name string) (string, bool) {
	best, bestDist := "", 3
	for _, c := range append(commands(), command{name: "help"}) {
		if d := editDistance(strings.ToLower(name), c.name); d < bestDist {
			best, bestDist = c.name, d
		}
	}
	return best, best != ""
}

// editDistance returns the number of edits that turn a into b: byte
// insertions, deletions, substitutions and swaps of neighbours, the
// typos of a command name (the optimal string alignment distance).
func editDistance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			sub := d[i-1][j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// runHelp prints the overview, or the help of the command named in args.
func runHelp(args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		usage(stdout)
		return 0
	case 1:
		if args[0] == "help" {
			usage(stdout)
			return 0
		}
		c, ok := lookup(args[0])
		if !ok {
			unknownCommand(stderr, "machines help", args[0])
			return 2
		}
		// Every command stops at -h before doing any work.
		return exitStatus(c, c.run([]string{"-h"}, stdout, stderr), stdout, stderr)
	default:
		fmt.Fprintf(stderr, "machines help: want at most one command, got %q\n", args)
		return 2
	}
}

// exitStatus reports the error err of command c and returns the exit status.
func exitStatus(c command, err error, stdout, stderr io.Writer) int {
	var he *helpError
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &he):
		he.fs.SetOutput(stdout)
		he.fs.Usage()
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	// A flag that names a file or directory that does not exist is an
	// error in the command line too.
	case errors.As(err, &ue) || errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "machines %s: %s\n", c.name, trimPrefix(err, c.name))
		fmt.Fprintf(stderr, "run 'machines %s -h' for usage\n", c.name)
		return 2
	default:
		fmt.Fprintf(stderr, "machines %s: %s\n", c.name, trimPrefix(err, c.name))
		return 1
	}
}

// trimPrefix returns the message of err without a leading "name: ". The
// packages behind the commands prefix their errors with the package name,
// as Go packages do; where that is the command's name (experiment,
// sculpt, bench), printing it after "machines name: " would say it twice.
func trimPrefix(err error, name string) string {
	return strings.TrimPrefix(err.Error(), name+": ")
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: machines <command> [flags]\n\ncommands:")
	for _, line := range overview() {
		fmt.Fprintln(w, "  "+line)
	}
	fmt.Fprintln(w, "\nrun 'machines help <command>' or 'machines <command> -h' for the flags of a command")
}

// parseFlags parses args with fs, turning flag errors and stray arguments
// into usage errors, and a request for help into a *helpError. fs must use
// flag.ContinueOnError. It prints nothing, to stderr or elsewhere: run
// reports the errors and prints the help.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := parseSilently(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		// The flag package stops at the first word that is not a flag,
		// so that "fit x.csv -target y" leaves -target unread too.
		return usagef("unexpected arguments %q: the command takes its inputs as flags (-flag value), and reads no flag after a word that is not one", fs.Args())
	}
	return nil
}

// parseSilently parses args with fs without printing anything: the flag
// package would print the whole flag list on any error, where one line
// and a hint to run -h read better, and it would print help to the flag
// set's output, where run wants standard output. It leaves fs's output
// discarded; exitStatus sets it when it prints the help.
func parseSilently(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	usage := fs.Usage
	fs.Usage = func() {}
	var repeated string
	fs.VisitAll(func(f *flag.Flag) { f.Value = onceValue{f.Value, fs, f.Name, &repeated} })
	err := fs.Parse(args)
	fs.VisitAll(func(f *flag.Flag) { f.Value = f.Value.(onceValue).Value })
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		return &helpError{fs}
	case repeated != "":
		return usagef("-%s is given twice: give each flag once, a list's values separated by commas", repeated)
	default:
		return &usageError{err.Error()}
	}
}

// onceValue is the value of a flag of fs that refuses to be set twice:
// the flag package keeps the last value of a repeated flag, so that
// "-target a -target b" would fit b alone, and "-ignore a -ignore b"
// keep a as an input, without a word. It names the flag in repeated.
type onceValue struct {
	flag.Value
	fs       *flag.FlagSet
	name     string
	repeated *string
}

func (v onceValue) Set(s string) error {
	set := false
	v.fs.Visit(func(f *flag.Flag) { set = set || f.Name == v.name })
	if set {
		*v.repeated = v.name
		return errors.New("given twice")
	}
	return v.Value.Set(s)
}

// IsBoolFlag tells the flag package that a boolean flag takes no value.
func (v onceValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// parseInterspersed parses args with fs, allowing flags after positional
// arguments, which the flag package stops at, and returns the positional
// arguments in order.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := parseSilently(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runVersion(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: machines version\n\nprints the module version, the VCS revision and the Go version of this build")
	}
	if err := parseFlags(fs, args, stderr); err != nil {
		return err
	}
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(bi))
	return nil
}

// versionLine describes the build bi, which may be nil when the binary
// carries no build information.
func versionLine(bi *debug.BuildInfo) string {
	if bi == nil {
		return "machines (devel), no build information"
	}
	version := bi.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var revision, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	line := "machines " + version
	if revision != "" {
		line += ", revision " + revision
		if modified == "true" {
			line += " (dirty)"
		}
	}
	return line + ", " + bi.GoVersion
}
