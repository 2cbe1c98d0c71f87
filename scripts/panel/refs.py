#!/usr/bin/env python3
"""Per-split reference scores (panel.py's models, splits and preparation) plus the training mean
(regression: predict the training mean; classification: the majority class), cached:
refs.py OUT.json PANEL.json [PANEL.json...] [--splits N] [--first K] [--tables a,b,...] [--skip SVR-rbf,...]
(run with /usr/bin/python3). Runs splits K to K+N-1 (K = 0 by default), as mpanel.py does; an OUT.json
holds one such range. --skip leaves references out (the kernel SVMs and the MLP take hours on big/).
Prints each table's references' mean scores and their mean fit seconds."""
import sys, json, os, collections, time
from tables import panel, score, tables
out = sys.argv[1]
splits, first, only, skip, files, a = 20, 0, None, set(), [], sys.argv[2:]
while a:
    x = a.pop(0)
    if x == "--splits": splits = int(a.pop(0))
    elif x == "--first": first = int(a.pop(0))
    elif x == "--tables": only = set(a.pop(0).split(","))
    elif x == "--skip": skip = set(a.pop(0).split(","))
    else: files.append(x)
res = json.load(open(out)) if os.path.exists(out) else {}
for name, target, task, header, rows, ti in tables(files):
    if only is not None and name not in only or name in res and len(res[name]["Mean"]) >= splits: continue
    sc, secs = collections.defaultdict(list), collections.defaultdict(list)
    for s in range(first, first + splits):
        train, test = panel.split(rows, ti, task, s)
        Xtr, ytr, Xte, yte = panel.prepare(header, train, test, target, task)
        for k, mk in panel.sk_models(task).items():
            if k in skip: continue
            t = time.time(); m = mk().fit(Xtr, ytr); secs[k].append(time.time() - t)
            sc[k].append(score(task, list(yte), list(m.predict(Xte))))
        if task == "regression":
            mu = sum(ytr) / len(ytr); p = [mu] * len(yte)
        else:
            p = [collections.Counter(ytr).most_common(1)[0][0]] * len(yte)
        sc["Mean"].append(score(task, list(yte), p))
    res[name] = dict(sc); res[name]["_rows"] = len(rows); res[name]["_task"] = task
    json.dump(res, open(out + ".tmp", "w")); os.replace(out + ".tmp", out)
    print(name, {k: round(sum(x for x in v if x is not None) / max(1, sum(x is not None for x in v)), 3) for k, v in sc.items()},
          "fit s", {k: round(sum(v) / len(v), 1) for k, v in secs.items()}, flush=True)
