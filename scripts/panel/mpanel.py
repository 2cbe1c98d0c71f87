#!/usr/bin/env python3
"""Our scores only (no references): mpanel.py BINARY OUT.json PANEL.json [PANEL.json...] [--splits N] [--tables a,b,...]"""
import sys, json, os, tempfile, resource
HERE = os.path.dirname(os.path.abspath(__file__))
# The panel: ../shared/panel beside the repository, or $MACHINES_PANEL.
PANEL = os.environ.get("MACHINES_PANEL", os.path.join(HERE, "..", "..", "..", "shared", "panel"))
sys.path.insert(0, PANEL)
import panel
binary, out = sys.argv[1], sys.argv[2]


def children_cpu():
    """The CPU time (user + system) of the finished child processes: fit and predict."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


splits = 5
files, only = [], None
a = sys.argv[3:]
while a:
    x = a.pop(0)
    if x == "--splits": splits = int(a.pop(0))
    elif x == "--tables": only = set(a.pop(0).split(","))
    else: files.append(x)
res = {}
for pf in files:
    panel.RAW = os.path.dirname(os.path.abspath(pf))
    for name, target, task, drop in json.load(open(pf)):
        if only is not None and name not in only: continue
        header, rows = panel.read(name)
        keep = [i for i, h in enumerate(header) if h not in drop]
        header = [header[i] for i in keep]
        rows = [[r[i] for i in keep] for r in rows]
        ti = header.index(target)
        rows = [r for r in rows if r[ti] != ""]
        sc, ts, cpu, errs = [], [], [], []
        for s in range(splits):
            train, test = panel.split(rows, ti, task, s)
            with tempfile.TemporaryDirectory() as tmp:
                c0 = children_cpu()
                pred, fit_s, err = panel.run_machines(binary, header, train, test, target, task, tmp)
                cpu.append(children_cpu() - c0)
            ts.append(fit_s)
            if err:
                errs.append(err); sc.append(None)
            else:
                sc.append(panel.score(task, [r[ti] if task != "regression" else float(r[ti]) for r in test], pred))
        res[name] = {"scores": sc, "fit_s": ts, "cpu_s": cpu, "errors": errs, "rows": len(rows)}
        print(name, sc, errs[:1], flush=True)
json.dump(res, open(out, "w"), indent=1)
