#!/usr/bin/env python3
"""bykind.py REFS.json:OURS.json:PANEL.json[:PANEL.json...] ...: rank.py's mean rank, first and
lost, over the tables of one or more panels pooled, and by kind of table: task, training rows,
inputs, the share of categorical inputs (text, or numbers of at most two values), a classifier's
classes; then the references that beat ours most often. Each argument names one panel's
references, our run (mpanel.py) and its panel.json files."""
import json, math, sys, collections
from tables import tables


def kinds(header, rows, ti):
    """The number of numeric and of categorical inputs of a table."""
    num = cat = 0
    for j in range(len(header)):
        if j == ti:
            continue
        vals = [r[j] for r in rows if r[j] not in ("", "NA")]
        parsed = 0
        for v in vals:
            try:
                float(v)
                parsed += 1
            except ValueError:
                pass
        if vals and parsed > 0.9 * len(vals) and len(set(vals)) > 2:
            num += 1
        else:
            cat += 1
    return num, cat


def standing(refs, ours):
    """Per table of ours: our rank of 9, the best reference, the gap to the best reference or the
    training mean and its paired standard error, as rank.py measures them."""
    out = {}
    for name, o in ours.items():
        sc = o["scores"]
        k = len(sc)
        if name not in refs or any(v is None for v in sc):
            continue
        r = refs[name]
        models = [m for m in r if not m.startswith("_")]
        if k < 2 or any(len(r[m]) < k for m in models):
            continue
        mean = lambda v: sum(v[:k]) / k
        mo = mean(sc)
        rank = 1 + sum(1 for m in models if m != "Mean" and mean(r[m]) > mo)
        best = max(models, key=lambda m: mean(r[m]))
        d = [a - b for a, b in zip(sc, r[best][:k])]
        md = sum(d) / k
        se = math.sqrt(sum((x - md) ** 2 for x in d) / (k - 1) / k)
        beaten = max((m for m in models if m != "Mean"), key=lambda m: mean(r[m]))
        out[name] = dict(rank=rank, best=beaten, lost=md < 0 and md < -2 * se)
    return out


def summary(label, rows):
    if rows:
        n = len(rows)
        print(f"{label:36s} {n:4d}   {sum(x['rank'] for x in rows) / n:5.2f}   {100 * sum(x['rank'] == 1 for x in rows) / n:4.0f}%   {sum(x['lost'] for x in rows):3d}")


def main(args):
    rows = []
    for arg in args:
        refs, ours, *panels = arg.split(":")
        st = standing(json.load(open(refs)), json.load(open(ours)))
        for name, target, task, header, data, ti in tables(panels, set(st)):
            num, cat = kinds(header, data, ti)
            rows.append(dict(st[name], name=name, task=task, n=len(data), num=num, cat=cat,
                             classes=len({r[ti] for r in data})))
    print(f"{'tables':36s} {'n':>4s}   {'rank':>5s}   {'first':>5s}   lost")
    summary("all", rows)
    for task in ("regression", "classification"):
        of = [x for x in rows if x["task"] == task]
        print()
        summary(task, of)
        for lo, hi in ((0, 100), (100, 200), (200, 400), (400, 10**9)):
            summary(f"  rows {lo}-{hi if hi < 10**9 else ''}", [x for x in of if lo <= x["n"] < hi])
        for lo, hi in ((0, 6), (6, 16), (16, 10**9)):
            summary(f"  inputs {lo}-{hi - 1 if hi < 10**9 else ''}", [x for x in of if lo <= x["num"] + x["cat"] < hi])
        summary("  no categorical input", [x for x in of if x["cat"] == 0])
        summary("  categorical inputs, a minority", [x for x in of if 0 < x["cat"] <= x["num"]])
        summary("  categorical inputs, a majority", [x for x in of if x["cat"] > x["num"]])
        if task == "classification":
            summary("  2 classes", [x for x in of if x["classes"] == 2])
            summary("  3 classes or more", [x for x in of if x["classes"] > 2])
    print("\nthe best reference where ours is not first:",
          ", ".join(f"{m} {c}" for m, c in collections.Counter(x["best"] for x in rows if x["rank"] > 1).most_common()))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
