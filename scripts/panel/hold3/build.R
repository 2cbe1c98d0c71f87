# Build the third hold-out panel: real tables from Debian's R packages (bookworm) that none of the
# other panels (../shared/panel/data, ../shared/panel/dev, hold, hold2, big) uses.
# Usage: Rscript build.R OUTDIR
# Each table is written as a user would have it: write.csv(..., row.names = FALSE, na = "").
# Nothing draws random numbers or drops rows. Row names are left out unless they carry
# information (then they become a first column, listed to drop).
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(here, "..", "panel.R"))

# columbus has two columns named AREA (the polygon's area and the neighbourhood's): the second
# becomes AREA.1, as R's make.unique names it, so that the CSV's header names each column once.
columbus <- g("columbus", "spData")
names(columbus) <- make.unique(names(columbus))

## 34 to 101 rows
w(g("lirat", "VGAM"), "lirat", "R", "regression")
w(g("toxop", "VGAM"), "toxop", "positive", "regression", "cityNo")
w(g("deermice", "VGAM"), "deermice", "weight", "regression")
w(g("backPain", "VGAM"), "backpain", "pain", "classification")
w(g("mercuryfish", "coin"), "mercuryfish", "group", "classification")
w(g("alpha", "coin"), "alpha", "elevel", "regression")
w(g("bonions", "sm"), "bonions", "Yield", "regression")
w(g("trout", "sm"), "trout", "Dead", "regression")
w(g("endometrial", "brglm2"), "endometrial", "HG", "classification")
w(g("wine", "ordinal"), "winebitterness", "rating", "classification", "response")
w(g("FacialBurns", "lavaan"), "facialburns", "Selfesteem", "regression")
w(g("PoliticalDemocracy", "lavaan"), "politicaldemocracy", "y5", "regression", c("y6", "y7", "y8"))
w(columbus, "columbus", "CRIME", "regression", c("COLUMBUS.", "COLUMBUS.I", "POLYID", "NEIG", "NEIGNO"))
w(rn(g("afcon", "spData"), "code"), "afcon", "totcon", "regression", c("code", "name", "id"))
w(g("us_states_df", "spData"), "usstates", "median_income_15", "regression", "state")
w(rn(g("PublicSchools", "sandwich"), "state"), "publicschools", "Expenditure", "regression", "state")
w(g("moneydemand", "lmtest"), "moneydemand", "logM", "regression")
w(g("unemployment", "lmtest"), "unemployment", "UN", "regression")
w(g("PErisk", "MCMCpack"), "perisk", "gdpw2", "regression", "country")
w(g("larynx", "KMsurv"), "larynx", "stage", "classification")

## 100 to 927 rows
w(rn(g("nc.sids", "spData"), "county"), "ncsids", "SID79", "regression", c("county", "CNTY.ID"))
w(g("mackerel", "sm"), "mackerel", "Density", "regression")
w(g("smacker", "sm"), "smacker", "Density", "regression")
w(g("trawl", "sm"), "trawl", "Score1", "regression", "Score2")
w(g("follicle", "sm"), "follicle", "Count", "regression")
w(g("radioc", "sm"), "radioc", "Rc.age", "regression")
w(g("worm", "sm"), "worm", "Infection", "classification")
w(g("aircraft", "sm"), "aircraft", "Speed", "regression")
w(g("coalash", "sm"), "coalash", "Percent", "regression")
w(g("bfeed", "KMsurv"), "bfeed", "duration", "regression", "delta")
w(g("std", "KMsurv"), "std", "rinfct", "classification", c("obs", "time"))
w(g("dietox", "geepack"), "dietox", "Weight", "regression")
w(g("koch", "geepack"), "koch", "y", "classification")
w(g("coalition", "brglm2"), "coalition", "duration", "regression")
w(g("baltimore", "spData"), "baltimore", "PRICE", "regression", "STATION")
w(g("nydata", "spData"), "nydata", "Z", "regression", c("AREAKEY", "TRACTCAS", "PROPCAS"))
w(g("worldbank_df", "spData"), "worldbank", "pop_growth", "regression", c("name", "iso_a2"))
w(g("wheat", "spData"), "wheat", "yield", "regression")
w(g("auckland", "spData"), "auckland", "Deaths.1977.85", "regression")
w(g("Mandible", "lmtest"), "mandible", "length", "regression")
w(g("hunua", "VGAM"), "hunua", "beitaw", "classification")
w(g("venice90", "VGAM"), "venice90", "sealevel", "regression")
w(g("bmi.nz", "VGAM"), "bminz", "BMI", "regression")
w(g("alzheimer", "coin"), "alzheimer", "disease", "classification")
w(g("HS.data", "sem"), "hsdata", "school", "classification", c("id", "paperrev", "flagssub"))

## over 1,000 rows
w(g("CNES", "sem"), "cnes", "MBSA2", "classification")
w(g("Nethvote", "MCMCpack"), "nethvote", "vote", "classification")
w(g("soup", "ordinal"), "soup", "SURENESS", "classification")
w(g("ohio", "geepack"), "ohio", "resp", "classification", "id")
w(g("pneumon", "KMsurv"), "pneumon", "hospital", "classification", c("chldage", "agepn"))
w(g("cheese", "bayesm"), "cheese", "VOLUME", "regression")
w(g("marital.nz", "VGAM"), "maritalnz", "mstatus", "classification")

write_panel()
