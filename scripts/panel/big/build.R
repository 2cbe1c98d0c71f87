# Build the large hold-out panel: real tables of 10,000 rows or more from Debian's R data
# packages that no other panel uses. Usage: Rscript build.R OUTDIR
# Each table is written as a user would have it: write.csv(..., row.names = FALSE, na = "").
# Nothing draws random numbers or drops rows; panel.json beside this file lists the tables.
Sys.setenv(TZ = "UTC")
args <- commandArgs(TRUE)
out <- if (length(args) >= 1) args[1] else "."
dir.create(out, showWarnings = FALSE, recursive = TRUE)
g <- function(name, pkg) { e <- new.env(); data(list = name, package = pkg, envir = e); as.data.frame(e[[name]]) }
w <- function(df, name) write.csv(df, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "")

## read whole (at most 20,000 rows: tabular.StreamRows)
w(g("LetterRecognition", "mlbench"), "letter")
w(g("CPSSW9298", "AER"), "cpssw9298")
w(g("gss_cat", "forcats"), "gsscat")
storms <- g("storms", "dplyr")
w(storms[, c("year", "month", "day", "hour", "lat", "long", "status", "wind", "pressure")], "storms")
## streamed (more than 20,000 rows)
w(g("CPS1988", "AER"), "cps1988")
w(g("Fertility2", "AER"), "fertility2")
w(g("diamonds", "ggplot2"), "diamonds")
w(g("CPSSW8", "AER"), "cpssw8")
