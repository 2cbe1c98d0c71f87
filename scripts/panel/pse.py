#!/usr/bin/env python3
"""pse.py A.json B.json [--skip a,b,...]: per table of two mpanel.py runs on the same splits, the mean
paired difference B - A with its standard error over the splits, the splits up and down, and a flag
where it is beyond two standard errors; then the mean over the tables (those of --skip left out of it)
with its standard error over the tables."""
import json, math, sys


def mean_se(v):
    m = sum(v) / len(v)
    se = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1) / len(v)) if len(v) > 1 else 0.0
    return m, se


a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
skip = set(sys.argv[4].split(",")) if len(sys.argv) > 4 and sys.argv[3] == "--skip" else set()
means = []
for t in b:
    if t not in a:
        continue
    d = [y - x for x, y in zip(a[t]["scores"], b[t]["scores"]) if x is not None and y is not None]
    if not d:
        continue
    m, se = mean_se(d)
    flag = "  <-- beyond 2 SE" if se > 0 and abs(m) > 2 * se else ""
    up, down = sum(v > 1e-12 for v in d), sum(v < -1e-12 for v in d)
    print(f"{t:14s} {m:+.4f} ± {se:.4f}  splits up {up:2d} down {down:2d}{flag}")
    if t not in skip:
        means.append(m)
if len(means) > 1:
    m, se = mean_se(means)
    print(f"mean over {len(means)} tables: {m:+.4f} ± {se:.4f}  up {sum(v > 1e-9 for v in means)} down {sum(v < -1e-9 for v in means)}")
