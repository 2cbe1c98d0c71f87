# Build the second hold-out panel: real tables from Debian's R data packages (bookworm) that
# none of the other panels (../shared/panel/data, ../shared/panel/dev, hold, big) uses.
# Usage: Rscript build.R OUTDIR
# Each table is written as a user would have it: write.csv(..., row.names = FALSE, na = "").
# Nothing draws random numbers or drops rows. Row names are left out unless they carry
# information (then they become a first column, listed to drop).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "..", "panel.R"))

## under 100 rows
w(g("murders", "dslabs"), "murders", "total", "regression", c("state", "abb"))
w(g("stars", "dslabs"), "stars", "temp", "regression", "star")
w(g("clouds", "HSAUR3"), "clouds", "rainfall", "regression")
w(g("pottery", "HSAUR3"), "pottery", "kiln", "classification")
w(rn(g("USairpollution", "HSAUR3"), "city"), "usairpollution", "SO2", "regression", "city")
w(g("water", "HSAUR3"), "water", "mortality", "regression", "town")
w(g("plasma", "HSAUR3"), "plasma", "ESR", "classification")
w(g("household", "HSAUR3"), "household", "gender", "classification")
w(g("crickets", "modeldata"), "crickets", "rate", "regression")
w(g("oils", "modeldata"), "oils", "class", "classification")
w(g("Arthritis", "vcd"), "arthritis", "Improved", "classification", "ID")
w(g("ReedfrogPred", "emdbook"), "reedfrogs", "propsurv", "regression", "surv")
w(g("cbpp", "lme4"), "cbpp", "incidence", "regression")
w(g("tortues", "ade4"), "tortues", "sexe", "classification")
w(g("agefat", "HSAUR3"), "agefat", "fat", "regression")
w(g("litter", "multcomp"), "litter", "weight", "regression")

## 100 to 1,000 rows
w(g("brexit_polls", "dslabs"), "brexitpolls", "spread", "regression", c("remain", "leave", "undecided"))
w(g("BtheB", "HSAUR3"), "bthebb", "bdi.2m", "regression", c("bdi.3m", "bdi.5m", "bdi.8m"))
w(g("Orthodont", "nlme"), "orthodont", "distance", "regression")
w(g("penguins", "palmerpenguins"), "penguins", "species", "classification")
w(g("olive", "dslabs"), "olive", "area", "classification", "region")
w(g("skulls", "HSAUR3"), "skulls", "epoch", "classification")
w(g("epilepsy", "HSAUR3"), "epilepsy", "seizure.rate", "regression")
w(g("respiratory", "HSAUR3"), "respiratory", "status", "classification")
w(g("scat", "modeldata"), "scat", "Species", "classification")
w(g("biomass", "modeldata"), "biomass", "HHV", "regression", c("sample", "dataset"))
w(g("Sacramento", "modeldata"), "sacramento", "price", "regression")
w(g("ad_data", "modeldata"), "addata", "Class", "classification")
w(g("meats", "modeldata"), "meats", "protein", "regression", c("water", "fat"))
w(g("pd_speech", "modeldata"), "pdspeech", "class", "classification")
w(g("Baseball", "vcd"), "baseball", "sal87", "regression", c("name1", "name2"))
w(g("grouseticks", "lme4"), "grouseticks", "TICKS", "regression", "INDEX")
w(g("Arabidopsis", "lme4"), "arabidopsis", "total.fruits", "regression")
w(g("cake", "lme4"), "cake", "angle", "regression")
w(g("sleepstudy", "lme4"), "sleepstudy", "Reaction", "regression")
w(g("Crime", "plm"), "crime", "crmrte", "regression", "lcrmrte")
w(g("Produc", "plm"), "produc", "gsp", "regression")
w(g("Grunfeld", "plm"), "grunfeld", "inv", "regression")
w(g("Gasoline", "plm"), "gasolinedemand", "lgaspcar", "regression")
w(rn(g("sat.act", "psych"), "id"), "satact", "ACT", "regression", "id")
w(g("Earthquake", "nlme"), "earthquake", "accel", "regression")
w(g("Wafer", "nlme"), "wafer", "current", "regression")
w(g("BodyWeight", "nlme"), "bodyweight", "weight", "regression")
w(g("Oxboys", "nlme"), "oxboys", "height", "regression")

## over 1,000 rows
w(g("heights", "dslabs"), "heights", "sex", "classification")
w(g("concrete", "modeldata"), "concrete", "compressive_strength", "regression")
w(g("attrition", "modeldata"), "attrition", "Attrition", "classification")
w(g("CHFLS", "HSAUR3"), "chfls", "R_happy", "classification")
w(g("Forbes2000", "HSAUR3"), "forbes2000", "marketvalue", "regression", c("rank", "name"))
w(g("ames", "modeldata"), "ames", "Sale_Price", "regression")
w(g("hpc_data", "modeldata"), "hpcdata", "class", "classification")
w(g("credit_data", "modeldata"), "creditdata", "Status", "classification")

write_panel()
