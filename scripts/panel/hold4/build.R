# Build the fourth hold-out panel: real tables from Debian's R packages (bookworm) that none of the
# other panels (../shared/panel/data, ../shared/panel/dev, hold, hold2, hold3, big) uses.
# Usage: Rscript build.R OUTDIR
# Each table is written as a user would have it: write.csv(..., row.names = FALSE, na = "").
# Nothing draws random numbers or drops rows. Row names are left out unless they carry
# information (then they become a first column, listed to drop).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "..", "panel.R"))

## 29 to 120 rows
w(g("ethanol", "lattice"), "ethanol", "NOx", "regression")
w(rn(g("votes.repub", "cluster"), "state"), "votesrepub", "X1976", "regression", "state")
w(g("bermuda.grass", "LearnBayes"), "bermudagrass", "y", "regression")
w(g("birdextinct", "LearnBayes"), "birdextinct", "time", "regression", "species")
w(g("calculus.grades", "LearnBayes"), "calculusgrades", "grade", "classification")
w(g("election", "LearnBayes"), "election2000", "buchanan", "regression", "county")
w(g("puffin", "LearnBayes"), "puffin", "Nest", "regression")
w(g("penny", "locfit"), "penny", "thickness", "regression")
w(g("mine", "locfit"), "mine", "frac", "regression")
w(g("kangaroo", "locfit"), "kangaroo", "spec", "classification")
w(g("footsize", "FactoMineR"), "footsize", "footsize", "regression")
w(g("geomorphology", "FactoMineR"), "geomorphology", "Block.size.median", "regression")
w(g("feedlot", "emmeans"), "feedlot", "ewt", "regression")
w(g("neuralgia", "emmeans"), "neuralgia", "Pain", "classification")
w(g("oranges", "emmeans"), "oranges", "sales1", "regression", "sales2")
w(g("pigs", "emmeans"), "pigs", "conc", "regression")
w(g("nutrition", "emmeans"), "nutrition", "gain", "regression")
w(g("Prostate", "lasso2"), "prostate", "lpsa", "regression")
w(g("Iowa", "lasso2"), "iowa", "Yield", "regression")
w(g("aSAH", "pROC"), "asah", "outcome", "classification", "gos6")
w(g("barley", "gnm"), "leafblotch", "y", "regression")
w(g("africa", "Amelia"), "africa", "gdp_pc", "regression")
w(g("barley", "lattice"), "barley", "yield", "regression")

## 112 to 908 rows
w(g("carnivora", "ape"), "carnivora", "GL", "regression", "Species")
w(g("chemdiab", "locfit"), "chemdiab", "cc", "classification")
w(g("meuse", "sp"), "meuse", "zinc", "regression", c("cadmium", "copper", "lead"))
w(g("freetrade", "Amelia"), "freetrade", "tariff", "regression")
w(g("carbon.fabric.2", "cmstatr"), "carbonfabric", "strength", "regression", c("modulus", "failure_mode"))
w(g("ais", "locfit"), "ais", "sport", "classification")
w(g("imports85", "randomForest"), "imports85", "price", "regression")
w(g("dystrophy", "ipred"), "dystrophy", "Class", "classification", "HospID")
w(g("pcb", "gstat"), "pcb", "PCB138", "regression")
w(g("singer", "lattice"), "singer", "height", "regression")
w(g("wheat", "gnm"), "wheatyield", "yield", "regression")
w(g("MU284", "sampling"), "mu284", "RMT85", "regression", "LABEL")
w(g("StereotypeThreat", "psychotools"), "stereotypethreat", "gpa", "regression")
w(g("USRegionalMortality", "lattice"), "usmortality", "Rate", "regression", "SE")
w(g("nlsyV", "mi"), "nlsyv", "ppvtr.36", "regression")
w(g("Diabetes", "Publish"), "diabetes", "glyhb", "regression", "id")
w(g("trypanosome", "flexmix"), "trypanosome", "Dead", "classification")
w(g("House2001", "gnm"), "house2001", "party", "classification")
w(g("CHAIN", "mi"), "chain", "log_virus", "regression")
w(g("suicide", "cutpointr"), "suicide", "suicide", "classification")
w(g("Owls", "glmmTMB"), "owls", "SiblingNegotiation", "regression", "NegPerChick")
w(g("Salamanders", "glmmTMB"), "salamanders", "count", "regression")
w(g("ham", "lmerTest"), "ham", "Informed.liking", "regression")
w(g("dmft", "flexmix"), "dmft", "End", "regression")
w(g("efc", "sjmisc"), "efc", "e42dep", "classification")

## over 1,000 rows
w(g("fulmar", "gstat"), "fulmar", "fulmar", "regression")
w(g("traceR", "Publish"), "tracer", "dead", "classification", "observationTime")
w(g("cardio", "ks"), "cardio", "NSP", "classification", "CLASS")

write_panel()
