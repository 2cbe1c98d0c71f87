#!/usr/bin/env python3
"""Our scores only (no references): mpanel.py BINARY OUT.json PANEL.json [PANEL.json...] [--splits N] [--first K] [--tables a,b,...]

Runs splits K to K+N-1 of panel.py (K = 0 by default): --first 20 --splits 20 gives twenty splits
that runs of --splits 20 never saw, to check a rule read off those."""
import sys, json, os, tempfile
from tables import children_cpu, panel, score, tables
binary, out = sys.argv[1], sys.argv[2]
splits, first = 5, 0
files, only = [], None
a = sys.argv[3:]
while a:
    x = a.pop(0)
    if x == "--splits": splits = int(a.pop(0))
    elif x == "--first": first = int(a.pop(0))
    elif x == "--tables": only = set(a.pop(0).split(","))
    else: files.append(x)
res = {}
for name, target, task, header, rows, ti in tables(files, only):
    sc, ts, cpu, errs = [], [], [], []
    for s in range(first, first + splits):
        train, test = panel.split(rows, ti, task, s)
        with tempfile.TemporaryDirectory() as tmp:
            c0 = children_cpu()
            pred, fit_s, err = panel.run_machines(binary, header, train, test, target, task, tmp)
            cpu.append(children_cpu() - c0)
        ts.append(fit_s)
        y = [r[ti] if task != "regression" else float(r[ti]) for r in test]
        v = None if err else score(task, y, pred)
        if v is None and not err:
            err = f"split {s}: the test rows' target is constant, so R² is undefined"
        if err:
            errs.append(err)
        sc.append(v)
    res[name] = {"scores": sc, "fit_s": ts, "cpu_s": cpu, "errors": errs, "rows": len(rows)}
    json.dump(res, open(out + ".tmp", "w"), indent=1); os.replace(out + ".tmp", out)
    print(name, sc, errs[:1], flush=True)
