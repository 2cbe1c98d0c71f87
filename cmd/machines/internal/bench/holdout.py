#!/usr/bin/env python3
"""Writes the hold-out tables of docs/results-tables.md.

Nineteen small public tables that no default of `machines fit` was chosen
on, from the files that scikit-learn and statsmodels ship (Debian's
python3-sklearn and python3-statsmodels; nothing is downloaded): diabetes,
600 of the digits and linnerud's waist from scikit-learn; anes96, ccard,
committee, copper, cpunish, engel, longley, scotland, spector, stackloss,
statecrime, strikes, heart, grunfeld, 2,000 rows of fair and cancer from
statsmodels. It writes DIR/NAME.csv for each and DIR/panel.json in the
form that ../shared/panel/panel.py reads:

    /usr/bin/python3 bench/holdout.py DIR
    /usr/bin/python3 ../shared/panel/panel.py ./machines --panel DIR/panel.json

usage: /usr/bin/python3 bench/holdout.py DIR
"""

import importlib
import json
import os
import sys

import pandas as pd
from sklearn import datasets


def statsmodels_table(name):
    return importlib.import_module("statsmodels.datasets." + name).load_pandas().data


def tables():
    """Yields (name, frame, target, task, columns to drop)."""
    yield "diabetes", datasets.load_diabetes(as_frame=True, scaled=False).frame, "target", "regression", []
    digits = datasets.load_digits(as_frame=True).frame.copy()
    digits["target"] = ["d%d" % v for v in digits["target"]]
    yield "digits600", digits.sample(n=600, random_state=0).sort_index(), "target", "classification", []
    lin = datasets.load_linnerud(as_frame=True)
    yield "linnerud_waist", pd.concat([lin.data, lin.target[["Waist"]]], axis=1), "Waist", "regression", []
    anes = statsmodels_table("anes96")
    anes["vote"] = anes["vote"].map({0: "Clinton", 1: "Dole"})
    cols = ["popul", "TVnews", "selfLR", "ClinLR", "DoleLR", "PID", "age", "educ", "income", "vote"]
    yield "anes96", anes[cols], "vote", "classification", []
    yield "ccard", statsmodels_table("ccard"), "AVGEXP", "regression", []
    yield "committee", statsmodels_table("committee"), "BILLS104", "regression", ["COMMITTEE"]
    yield "copper", statsmodels_table("copper"), "WORLDCONSUMPTION", "regression", []
    yield "cpunish", statsmodels_table("cpunish"), "EXECUTIONS", "regression", ["STATE"]
    yield "engel", statsmodels_table("engel"), "foodexp", "regression", []
    yield "longley", statsmodels_table("longley"), "TOTEMP", "regression", ["Obs"]
    yield "scotland", statsmodels_table("scotland"), "YES", "regression", ["COUNCILDIST"]
    spector = statsmodels_table("spector")
    spector["GRADE"] = spector["GRADE"].map({0: "no", 1: "yes"})
    yield "spector", spector, "GRADE", "classification", ["OBS"]
    yield "stackloss", statsmodels_table("stackloss"), "STACKLOSS", "regression", []
    yield "statecrime", statsmodels_table("statecrime").reset_index(), "murder", "regression", ["state"]
    yield "strikes", statsmodels_table("strikes"), "duration", "regression", []
    yield "heart", statsmodels_table("heart"), "survival", "regression", []
    yield "grunfeld", statsmodels_table("grunfeld"), "invest", "regression", []
    yield "fair2000", statsmodels_table("fair").sample(n=2000, random_state=0).sort_index(), "affairs", "regression", []
    yield "cancer", statsmodels_table("cancer"), "cancer", "regression", []


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    panel = []
    for name, frame, target, task, drop in tables():
        frame.to_csv(os.path.join(out, name + ".csv"), index=False)
        panel.append([name, target, task, drop])
        print(f"{name}: {len(frame)} rows, target {target} ({task})")
    with open(os.path.join(out, "panel.json"), "w") as f:
        json.dump(panel, f, indent=0)


if __name__ == "__main__":
    main()
