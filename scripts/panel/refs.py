#!/usr/bin/env python3
"""Per-split reference scores (panel.py's models, splits and preparation) plus the training mean
(regression: predict the training mean; classification: the majority class), cached:
refs.py OUT.json PANEL.json [PANEL.json...] [--splits N] [--first K] [--tables a,b,...]   (run with /usr/bin/python3)
Runs splits K to K+N-1 (K = 0 by default), as mpanel.py does; an OUT.json holds one such range."""
import sys, json, os, collections
from tables import panel, tables
out = sys.argv[1]
splits, first, only, files, a = 20, 0, None, [], sys.argv[2:]
while a:
    x = a.pop(0)
    if x == "--splits": splits = int(a.pop(0))
    elif x == "--first": first = int(a.pop(0))
    elif x == "--tables": only = set(a.pop(0).split(","))
    else: files.append(x)
res = json.load(open(out)) if os.path.exists(out) else {}
for name, target, task, header, rows, ti in tables(files):
    if only is not None and name not in only or name in res and len(res[name]["Mean"]) >= splits: continue
    sc = collections.defaultdict(list)
    for s in range(first, first + splits):
        train, test = panel.split(rows, ti, task, s)
        Xtr, ytr, Xte, yte = panel.prepare(header, train, test, target, task)
        for k, mk in panel.sk_models(task).items():
            m = mk().fit(Xtr, ytr)
            sc[k].append(panel.score(task, list(yte), list(m.predict(Xte))))
        if task == "regression":
            mu = sum(ytr) / len(ytr); p = [mu] * len(yte)
        else:
            p = [collections.Counter(ytr).most_common(1)[0][0]] * len(yte)
        sc["Mean"].append(panel.score(task, list(yte), p))
    res[name] = dict(sc); res[name]["_rows"] = len(rows); res[name]["_task"] = task
    json.dump(res, open(out + ".tmp", "w")); os.replace(out + ".tmp", out)
    print(name, {k: round(sum(v) / len(v), 3) for k, v in sc.items()}, flush=True)
