// Package dataset provides the data of the library's regression and
// classification tasks: tables read from CSV, Parquet and Arrow files,
// encoded into float64 matrices; images read from IDX files or image folders; and the synthetic
// tasks of the paper's finite-depth kernel machine experiments.
//
// # CSV tables
//
// Tables as users have them hold more than numbers: factors ("VC", "0-5yrs"),
// TRUE and FALSE, empty cells. ReadFrame and LoadFrame read such a CSV file
// as text into a Frame, checking only its shape: a header of unique,
// non-empty names and rows of as many fields. They detect the separator
// (comma, semicolon, tab or vertical bar) from the first lines; a first
// column whose header cell is empty holds row names, as R's write.csv and
// pandas' to_csv write them, and is named RowNamesColumn. A FrameReader
// reads a table a few rows at a time, with a separator of the caller's
// choice if it likes, for programs whose input may not fit in memory.
// The lines that end a file below its table, as a spreadsheet exports
// them padded with empty fields, are left out with a warning: notes,
// whose only value is in the first field, holds a letter and a space or
// a colon and begins with no digit ("Source: national survey, 2023,,"),
// and lines of empty fields (",,"). Such lines followed by a row, or with
// no row above them, are rows.
//
// A file is read as UTF-8, except that a byte that is not part of UTF-8
// is read as its Windows-1252 character: a file saved by a spreadsheet in
// Windows-1252 or Latin-1 (Générale) reads as it was written, with a
// warning naming the file and the first line of such bytes. Column names
// may be quoted in double quotes, as CSV quotes any field, or in single
// quotes ('vote' is vote).
//
// A cell is missing if it is empty or one of NA, N/A, ?, NaN and null, in
// any case. Each column has a kind, inferred from its other cells:
//
//   - boolean if they are all true, false, yes or no, in any case;
//   - numeric if they are all numbers but for a few strays (see below);
//   - date if they are all dates in an ISO 8601 form (2024-01-31,
//     2024-01-31 13:45, 2024-01-31T13:45:30Z, 2024-01) or with the
//     month's name (31-Jan-2024, Jan 31, 2024, Jan 2024; see ParseDate).
//     The Encoder reads them as the days since 1970 and their phases in
//     the cycles of the calendar (see Cycle);
//   - categorical otherwise. Numbers in a categorical column are levels
//     like any other text. The Encoder reads a categorical column of
//     dates with the year last (31/01/2024, 01/31/2024, 31.01.2024) as
//     dates too, in the order that the column shows (see YearLastOrder).
//     A column of dates with a two-digit year (10/25/16) stays text, and
//     is warned of: neither its century nor, always, which number is the
//     year can be told.
//
// A number is written in Go's syntax, or with any of these:
//
//   - thousands separators: 4,599.0, or spaces, no-break spaces, thin
//     spaces and apostrophes between groups of three digits (10 851.5,
//     1'554.50);
//   - a minus sign (U+2212) or a hyphen, or parentheses around the
//     number, as accounts write a negative amount: (1,234.50) is -1234.5,
//     or a minus after it, as SAP exports one: 1.234,50- is -1234.5;
//   - a percent sign, which makes a fraction: 17.5% is 0.175, so that a
//     column may mix 50% and 0.5. A column that mixes percentages with
//     plain numbers above 1, such as 50% and 50, is warned of. An Encoder
//     saved before percentages were fractions still reads 17.5% as 17.5,
//     as it did in training;
//   - a currency sign ($, €, £ or ¥) before or after it, likewise
//     dropped: $1,234.50 is 1234.5, -$5 is -5. A column whose numbers
//     carry two currencies is categorical, with a warning. An amount in
//     another currency than a numeric column's is an error when the
//     Encoder reads it;
//   - a decimal comma (3,14), in a file separated by other than commas
//     whose first lines hold one, with points or spaces between
//     thousands (1.234,5, 1 234,5);
//   - hours and minutes, and optionally seconds: a time of day or a
//     duration, read in hours (13:45 is 13.75, 1:02:03 is 1.034, 10:00
//     PM is 22), so that a column of times is a quantity, not one level
//     per time;
//   - a unit of measure after it, the same in every cell of a column
//     (12 kg, 23.4 kmpl, 74bhp, 5 km/h; 1 month and 3 months share one),
//     but not an ordinal's ending (1st, 4th). A column's unit is that of
//     most of its cells with one, and a cell in another unit is a stray.
//     The Encoder keeps the unit of a numeric column and reads a cell in
//     it as its number. A column of two suffixes of magnitude or more (k,
//     K, M, B, bn: 950, 1.2k, 3.4M, $1.5B) counts in thousands, millions
//     and billions: 1.2k is 1200; so does one such suffix beside plain
//     numbers that it brings nearer (950 and 1.2k, $95,000 and $85K),
//     and otherwise it is a unit (300K beside 295 may be kelvins). Read as text, each quantity would be a
//     level, and a value not seen in training none.
//
// An infinite number in a numeric column is an error, and so is a column
// with no value at all.
//
// # Stray cells
//
// A typo (4.2.1), a stray byte or a dash in a column of numbers does not
// make the column text. A column whose n cells with a value are numbers
// but for s strays is numeric if s <= max(1, n/50) with n > 10: one stray
// beside 10 numbers or more, two beside 98 or more, 20 beside 980. The
// strays are read as missing cells, with one Warning that counts them and
// names the first lines and columns. Frame.Warnings returns it, or else
// the first Encoder.Transform of the frame. A regression's target (see
// Frame.Target) drops their rows, and tolerates one stray beside two
// numbers or more, so that one cell never turns a regression into a
// classification. A column with more strays is text, unless they are
// missing codes: a column may write its missing cells as a text other
// than NA, such as a dash, a dot or "missing". Strays of at most two
// texts without a digit, in at most half the cells with a value, beside
// at least ten distinct numbers, are read as missing however many they
// are, with the same Warning, and so are spreadsheets' error values
// (#N/A, #DIV/0!, #VALUE!), which are not counted among the texts; a text with a digit ("90+", "<0.01") may
// be a bin of the quantity, and a few numbers beside a word ("none", 1,
// 2, 3) are levels. A column read as text although most of its cells
// are numbers, of ten distinct or more, is warned of once, with its
// other texts, so that a quantity with too many or too varied codes does
// not become levels in silence.
//
// A Frame read with FrameOptions.Strict refuses strays instead, with a
// *ParseError naming the file, the line and the column. When an Encoder
// encodes new rows, any text in a numeric column is a stray, and so is a
// text cell that EncodeColumn encodes into a numeric column. The same
// rule holds for a column of dates with a few cells that are not dates.
//
// Frame.Target reads the target of a task: the numbers of a regression, or
// the class names of a classification, sorted as strings. Rows without a
// target are dropped, and Target says which rows are kept.
//
// Problems with the data are returned as *ParseError values naming the file,
// the line and the column, for example
//
//	train.csv: row 3, column "x2": value is infinite: "1e999"
//
// so that a user can find and fix the offending field.
//
// An Encoder turns the other columns into numbers for a model. FitEncoder
// learns it from the training rows: a numeric column is copied and a boolean
// one becomes 0 or 1, their missing cells taking the training mean; a
// categorical column becomes one 0/1 column per training level, its missing
// cells taking the most frequent level, unless its levels are bins of a
// quantity, three or more that each begin with a different number ("25-34",
// "75+", "0-39g/day"): such an ordinal column becomes the number its level
// begins with, keeping the order that one-hot columns would lose, with the
// training mean for a missing cell or an unseen level; and each column with gaps in the
// training rows gains an indicator column, 1 where the cell is missing, so
// that a model can tell an imputed value from a real one. Encoder.Transform
// applies the same rules to any frame with those columns, such as new data
// to predict; a level unseen in training encodes as zeros, with a Warning,
// and numbers beyond a numeric column's training values by more than their
// spread (another unit or scale) are warned of too, as are missing cells in
// a column that had none in training: the model reads them as its fill,
// never having met a gap there.
// Encoder.WithCodes also encodes chosen numeric columns by their training
// values, as codes of groups: one 0/1 column per value after the number,
// zeros, with a Warning, for a value not seen in training. The Encoder is saved with a
// model as JSON; one with codes is not read by versions before them.
//
// A model then rescales the encoded columns, through the maps of package
// scale.
//
// # Parquet and Arrow tables
//
// OpenTable and LoadTable read a table from a CSV file, an Apache Parquet
// file or an Apache Arrow IPC file or stream (Feather version 2), told
// apart by their first bytes (PAR1, ARROW1, or an Arrow stream's first
// message), not by their names; a file whose name says Parquet or Arrow
// but whose bytes do not is an error. A glob pattern (part-*.parquet)
// reads the files that match it, in lexical order, as one table: each must
// have the first file's columns, checked before any row is read.
// NewTableReader reads a CSV table or an Arrow stream from standard input.
// A TableReader gives the table a few rows at a time, from one file at a
// time: a Parquet file is decoded by batches of 65,536 rows, the buffers of
// its column chunks through a buffer of 1 MiB, and an Arrow file by the
// batches it was written in, so that memory stays bounded by a batch. The
// sizes that a file's metadata claims are checked before anything is
// allocated, and a damaged file is an error that names it, never a crash.
//
// A Parquet or Arrow table is read into the same Frame as the CSV file of
// the same table: each cell as the text that the CSV file would hold, so
// that the columns have the same kinds, the same missing cells and the
// same errors. Integers, floating-point numbers and decimals are numbers
// (NaN is missing, as in a CSV file), booleans are true or false, strings
// and dictionaries of strings (pandas' categories) are text, dates are
// dates (2024-01-31) and timestamps are times (2024-01-31 13:45:30, in UTC
// with a Z if the column has a time zone); a null is a missing cell.
// Nested columns (lists, structs, maps), binary columns, durations and
// times of day are refused, naming the column. Errors locate a cell by its
// row, counted from 1 in each file, where a CSV file's cells are located
// by line.
//
// TableWriter writes a table of text cells, such as predictions, as CSV,
// Parquet (compressed with Snappy, one row group per 65,536 rows) or Arrow
// IPC, the format FormatOf says from a file's name: columns of numbers as
// float64 and others as strings, empty cells as nulls.
//
// Parquet and Arrow come from the Apache Arrow project's Go module,
// github.com/apache/arrow-go, in pure Go, so that the module still builds
// without cgo: Parquet's encodings, compressions and logical types are too
// many to write again, and the Arrow project is the reference for both
// formats.
//
// # IDX images
//
// LoadIDX reads a split of MNIST or of a data set in the same format, such as
// Fashion-MNIST (installed by Debian's dataset-fashion-mnist package in
// /usr/share/datasets/fashion-mnist): the "train" split from
// train-images-idx3-ubyte and train-labels-idx1-ubyte, the "t10k" split from
// t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte, each file optionally
// gzip-compressed. The result, Images, keeps the pixels as bytes; Image and
// Image32 scale one image to [0, 1] for a model, Subset copies selected
// images, and OnePerClass draws the one-image-per-class training set of a
// one-shot task. Headers, sizes and label counts are checked, and problems are
// returned as *ParseError values naming the file.
// (Minibatches are dealt by train.Run, which shuffles anew each epoch.)
//
// # Image folders
//
// LoadImageFolder reads images as they are usually kept, one folder per
// class, in a train and a test folder (and perhaps a valid folder) or in
// one folder of which a seeded fraction of each class is held out: PNG,
// JPEG, GIF, BMP, TIFF, WebP and Netpbm (PBM, PGM, PPM, PAM) files, grey
// or in colour (Images.Channels 1 or 3, the pixels of each image channel
// after channel), JPEG, PNG, WebP and TIFF files turned upright by their
// EXIF orientation, of one
// size or resized to one with golang.org/x/image/draw. Each file's header
// is checked before its pixels are decoded, and problems are returned as
// *ParseError values naming the file or folder; the files of other
// formats in the class folders are counted in ImageFolder.Warnings.
// LoadImages reads either kind of data set, IDX or folder, from a
// directory. Netpbm files and EXIF tags are read by the package itself,
// since neither the standard library nor golang.org/x/image reads them.
//
// # Synthetic tasks
//
// The paper (Figure 3) fits the polynomial p(x, y) = (2x-1)² + 2y + xy - 3 on
// a 6×6 grid of [0,1]² (PolynomialGrid) and interpolates a noisy sine,
// sin(x²/2) plus uniform noise on [0,1), from 100 random points of [0,8]
// (NoisySine). SineGrid gives the noise-free curve, shifted by the noise mean
// 0.5, at evenly spaced points for testing.
package dataset
