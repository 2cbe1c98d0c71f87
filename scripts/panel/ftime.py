#!/usr/bin/env python3
"""Alternate two binaries' default fits on the panel tables under 1,000 rows (split 0), R rounds; median wall and CPU each."""
import sys, json, os, tempfile, time, csv, resource, subprocess
HERE = os.path.dirname(os.path.abspath(__file__))
# The panel: ../shared/panel beside the repository, or $MACHINES_PANEL.
PANEL = os.environ.get("MACHINES_PANEL", os.path.join(HERE, "..", "..", "..", "shared", "panel"))
sys.path.insert(0, PANEL)
import panel
a, b, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
jobs = []
for pf in [os.path.join(PANEL, "data", "panel.json"), os.path.join(PANEL, "dev", "panel.json")]:
    panel.RAW = os.path.dirname(pf)
    for name, target, task, drop in json.load(open(pf)):
        header, rows = panel.read(name)
        keep = [i for i, h in enumerate(header) if h not in drop]
        header = [header[i] for i in keep]; rows = [[r[i] for i in keep] for r in rows]
        ti = header.index(target); rows = [r for r in rows if r[ti] != ""]
        if len(rows) >= 1000: continue
        train, test = panel.split(rows, ti, task, 0)
        d = tempfile.mkdtemp(); p = os.path.join(d, "train.csv")
        with open(p, "w", newline="") as f: csv.writer(f).writerows([header] + train)
        jobs.append((name, p, target, task))
res = {a: [], b: []}
cpu = {a: [], b: []}
for r in range(rounds):
    for name, p, target, task in jobs:
        for binary in ((a, b) if r % 2 == 0 else (b, a)):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            subprocess.run([binary, "fit", "-data", p, "-target", target, "-task", task, "-model", p + ".json"], capture_output=True)
            res[binary].append(time.time() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[binary].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
med = lambda v: sorted(v)[len(v)//2]
print(len(jobs), "tables x", rounds, "rounds")
for k in (a, b):
    print(f"{k}: median wall {med(res[k]):.3f} s, median CPU {med(cpu[k]):.3f} s, total wall {sum(res[k]):.1f} s")
