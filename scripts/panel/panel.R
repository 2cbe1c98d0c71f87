# What the hold-out panels' build.R scripts share: read a table from an R package, write it as a
# user would have it (write.csv(..., row.names = FALSE, na = "")), and list it in panel.json.
# A build.R sources this file, calls w() once per table, then write_panel().
Sys.setenv(TZ = "UTC")
args <- commandArgs(TRUE)
out <- if (length(args) >= 1) args[1] else "."
dir.create(out, showWarnings = FALSE, recursive = TRUE)
panel <- list()

# g returns the table name of package pkg as a data frame.
g <- function(name, pkg) { e <- new.env(); data(list = name, package = pkg, envir = e); as.data.frame(e[[name]]) }

# w writes df as OUT/name.csv and lists it with its target, task and the columns to drop.
w <- function(df, name, target, task, drop = character(0)) {
  df <- as.data.frame(df)
  stopifnot(target %in% names(df), all(drop %in% names(df)))
  write.csv(df, file.path(out, paste0(name, ".csv")), row.names = FALSE, na = "")
  panel[[length(panel) + 1]] <<- list(name, target, task, drop)
}

# rn returns df with its row names as a first column named col.
rn <- function(df, col) { x <- data.frame(rownames(df), stringsAsFactors = FALSE); names(x) <- col; cbind(x, df) }

# write_panel writes OUT/panel.json: [name, target, task, [columns to drop]] per table.
write_panel <- function() {
  one <- function(p) jsonlite::toJSON(list(p[[1]], p[[2]], p[[3]], I(p[[4]])), auto_unbox = TRUE)
  writeLines(paste0("[\n", paste(sapply(panel, one), collapse = ",\n"), "\n]\n"), file.path(out, "panel.json"), sep = "")
  cat(length(panel), "tables\n")
}
