#!/usr/bin/env python3
"""Alternate two binaries' default fits on the panel tables under 1,000 rows (split 0), R rounds; median wall and CPU each.

usage: ftime.py A B ROUNDS [PANEL.json...]  (both panels beside the repository by default)"""
import sys, os, tempfile, time, csv, subprocess
from tables import PANEL, children_cpu, panel, tables
a, b, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
panels = sys.argv[4:] or [os.path.join(PANEL, d, "panel.json") for d in ("data", "dev")]
jobs = []
for name, target, task, header, rows, ti in tables(panels):
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
            c0 = children_cpu()
            t0 = time.time()
            subprocess.run([binary, "fit", "-data", p, "-target", target, "-task", task, "-model", p + ".json"], capture_output=True)
            res[binary].append(time.time() - t0)
            cpu[binary].append(children_cpu() - c0)
med = lambda v: sorted(v)[len(v)//2]
print(len(jobs), "tables x", rounds, "rounds")
for k in (a, b):
    print(f"{k}: median wall {med(res[k]):.3f} s, median CPU {med(cpu[k]):.3f} s, total wall {sum(res[k]):.1f} s")
