#!/usr/bin/env python3
"""Reference times for the tabular suite of `machines bench`.

Draws Friedman's first regression problem with scikit-learn's
make_friedman1 (10 features, noise 1.0), at the sizes of the workloads
F1-2000 and F1-20000 (see WORKLOADS.md), and times the fit of a default
RandomForestRegressor() on each: n_jobs=None, so one thread, as
`machines bench` runs. Prints one line per size with the seconds of the
fit and the R^2 on a held-out set of 5000 rows drawn the same way; with
--json FILE, also writes them as JSON.

The random numbers are not Go's: the data are the same problem, not the
same rows.

usage: /usr/bin/python3 bench/friedman_rf.py [--sizes 2000,20000] [--runs N] [--json FILE]
"""

import argparse
import json
import os
import statistics
import time

# One thread for the libraries underneath, as `machines bench` runs.
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import sklearn  # noqa: E402
from sklearn.datasets import make_friedman1  # noqa: E402
from sklearn.ensemble import RandomForestRegressor  # noqa: E402
from sklearn.metrics import r2_score  # noqa: E402

HELD_OUT = 5000


def measure(n, runs, seed):
    x, y = make_friedman1(n_samples=n, n_features=10, noise=1.0, random_state=seed)
    xt, yt = make_friedman1(n_samples=HELD_OUT, n_features=10, noise=1.0, random_state=seed + 1)
    times = []
    for _ in range(runs):
        model = RandomForestRegressor(random_state=0)
        start = time.perf_counter()
        model.fit(x, y)
        times.append(time.perf_counter() - start)
    return {
        "name": "F1-%d" % n,
        "rows": n,
        "seconds": statistics.median(times),
        "runs": runs,
        "r2": r2_score(yt, model.predict(xt)),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="2000,20000", help="training rows, comma-separated")
    p.add_argument("--runs", type=int, default=1, help="timed fits per size; the median is printed")
    p.add_argument("--seed", type=int, default=1, help="random_state of the training set (held-out: seed+1)")
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args()
    if args.runs < 1:
        p.error("--runs must be at least 1")
    results = []
    for n in (int(s) for s in args.sizes.split(",")):
        r = measure(n, args.runs, args.seed)
        results.append(r)
        print("%-10s RandomForestRegressor() fit %9.3f s  held-out R2 %.4f" % (r["name"], r["seconds"], r["r2"]),
              flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sklearn": sklearn.__version__, "model": "RandomForestRegressor()", "held_out": HELD_OUT,
                       "results": results}, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
