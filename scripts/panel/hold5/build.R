# Build the fifth hold-out panel: real tables from Debian's R packages (bookworm) that none of the
# other panels (../shared/panel/data, ../shared/panel/dev, hold, hold2, hold3, hold4, big) uses.
# Usage: Rscript build.R OUTDIR
# Each table is written as a user would have it: write.csv(..., row.names = FALSE, na = "").
# Nothing draws random numbers or drops rows. Row names are left out unless they carry
# information (then they become a first column, listed to drop).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "..", "panel.R"))

## 48 to 1,000 rows
w(g("potatoes", "sfsmisc"), "potatoes", "yield", "regression")
w(g("chen2005", "multilevel"), "chen2005", "NCPRF.T3", "regression", "ID")
w(g("sherifdat", "multilevel"), "sherif", "y", "regression")
w(g("mite.env", "vegan"), "mite", "WatrCont", "regression")
w(g("graze", "ecodist"), "graze", "forestpct", "regression")
w(g("brycesite", "labdsv"), "brycesite", "elev", "regression", "plotcode")
w(g("tonedata", "fpc"), "tonedata", "tuned", "regression")
w(g("RGB", "psyphy"), "rgb", "Lum", "regression")
w(g("puzzles", "BayesFactor"), "puzzles", "RT", "regression")
w(g("dat.bangertdrowns2004", "metadat"), "writingtolearn", "yi", "regression", c("id", "author", "vi"))
w(g("dat.konstantopoulos2011", "metadat"), "schoolcalendar", "yi", "regression", c("study", "vi"))
w(g("dat.kalaian1996", "metadat"), "satcoaching", "yi", "regression", c("id", "vi"))
w(g("dat.assink2016", "metadat"), "delinquency", "yi", "regression", c("id", "vi"))
w(g("dat.tannersmith2016", "metadat"), "alcoholtreatment", "yi", "regression", c("vi", "sei"))
w(g("laptop_urry", "afex"), "laptopnotes", "overall", "regression", c("pid", "factual", "conceptual"))
w(g("fish", "ggeffects"), "fish", "count", "regression")
w(g("roaches", "rstanarm"), "roaches", "y", "regression")
w(g("plasma_retinol_MvsF", "ddalpha"), "plasmaretinol", "BETAPLASMA", "regression", "RETPLASMA")
w(g("kidiq", "rstanarm"), "kidiq", "kid_score", "regression")
w(g("klein2000", "multilevel"), "klein2000", "JOBSAT", "regression")
w(g("radon", "rstanarm"), "radon", "log_radon", "regression")
w(g("tae", "ddalpha"), "tae", "C", "classification")
w(g("banknoten", "ddalpha"), "banknote", "falsch", "classification")
w(g("ecoli_cpvsim", "ddalpha"), "ecoli", "C", "classification")
w(g("hla.demo", "haplo.stats"), "hla", "resp.cat", "classification", "resp")
w(g("groessen_MvsF", "ddalpha"), "heights", "sex", "classification")
w(g("myeloma", "survminer"), "myeloma", "molecular_group", "classification", c("event", "time"))
w(g("heart", "ddalpha"), "heart", "C", "classification")
w(g("breast", "beeswarm"), "breast", "event_survival", "classification", "time_survival")
w(g("haberman", "ddalpha"), "haberman", "C", "classification")
w(g("vertebral_column", "ddalpha"), "vertebral", "C", "classification")
w(g("Pbc3", "pec"), "pbc3", "status", "classification", c("ptno", "days"))
w(g("diabetes", "timereg"), "retinopathy", "status", "classification", c("id", "time"))
w(g("bmt", "timereg"), "bmt", "cause", "classification", "time")
w(g("cost", "pec"), "strokecost", "status", "classification", "time")
w(g("indian_liver_patient_1vs2", "ddalpha"), "liver", "C", "classification")
w(g("fourD", "etm"), "fourd", "status", "classification", c("id", "time"))
w(g("bloodtransfusion", "ddalpha"), "bloodtransfusion", "C", "classification")
w(g("wg93", "ca"), "wg93", "A", "classification")
w(g("epi.incin", "epiR"), "incinerator", "status", "classification")

## over 1,000 rows
w(g("rdata", "relsurv"), "rdata", "cens", "classification", "time")
w(g("gemsen_MvsF", "ddalpha"), "gemsen", "geschlecht", "classification")
w(g("dat.mccurdy2020", "metadat"), "generation", "yi", "regression", c("id", "vi"))

write_panel()
