#!/usr/bin/env python3
"""cmp.py A.json B.json: the tables whose mean score moved between two mpanel.py runs, the mean over
tables of the paired differences with its standard error, and the median fit time under 1,000 rows."""
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
def mean(v):
    v = [x for x in v if x is not None]
    return sum(v)/len(v) if v else float('nan')
def med(v):
    v = sorted(v); return v[len(v)//2]
moved = 0
for k in a:
    if k not in b: print("missing", k); continue
    ma, mb = mean(a[k]["scores"]), mean(b[k]["scores"])
    if abs(ma-mb) > 1e-9 or a[k]["errors"] != b[k]["errors"]:
        moved += 1
        print(f"{k:22s} {ma:.4f} -> {mb:.4f}  ({mb-ma:+.4f}) {b[k]['errors'][:1]}")
small = [k for k in a if a[k]["rows"] < 1000 and k in b]
print("tables", len(a), "moved", moved)
print("median fit <1000 rows, wall: %.3f -> %.3f" % (med([x for k in small for x in a[k]["fit_s"]]), med([x for k in small for x in b[k]["fit_s"]])))
if all("cpu_s" in x[k] for x in (a, b) for k in small):
    print("median fit and predict <1000 rows, CPU: %.3f -> %.3f" % (med([x for k in small for x in a[k]["cpu_s"]]), med([x for k in small for x in b[k]["cpu_s"]])))
diffs = []
for k in a:
    if k in b and None not in a[k]["scores"] and None not in b[k]["scores"]:
        d = [y - x for x, y in zip(a[k]["scores"], b[k]["scores"])]
        diffs.append(sum(d) / len(d))
if len(diffs) > 1:
    m = sum(diffs) / len(diffs)
    se = (sum((d - m) ** 2 for d in diffs) / (len(diffs) - 1) / len(diffs)) ** 0.5
    up, down = sum(d > 1e-9 for d in diffs), sum(d < -1e-9 for d in diffs)
    print(f"mean paired difference over {len(diffs)} tables: {m:+.4f} ± {se:.4f} (up {up}, down {down})")
