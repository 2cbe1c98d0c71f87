#!/usr/bin/env python3
"""rank.py REFS.json OURS.json [OURS2.json]: mean rank of ours among ours + 8 references (by the mean over
the splits both have; the training mean is a reference only for 'lost'), first count, and lost tables:
gap to the best reference (incl. training mean) beyond two paired standard errors."""
import sys, json, math
refs = json.load(open(sys.argv[1]))
for f in sys.argv[2:]:
    ours = json.load(open(f))
    ranks, first, lost, n = [], 0, [], 0
    for name, o in ours.items():
        if name not in refs: continue
        sc = o["scores"]; k = len(sc)
        if any(v is None for v in sc): print("error", name, o["errors"][:1]); continue
        r = refs[name]; models = [m for m in r if not m.startswith("_")]
        if any(len(r[m]) < k for m in models): print("short refs", name); continue
        mean = lambda v: sum(v[:k]) / k
        mo = mean(sc)
        rk = 1 + sum(1 for m in models if m != "Mean" and mean(r[m]) > mo)
        ranks.append(rk); first += rk == 1; n += 1
        best = max(models, key=lambda m: mean(r[m]))
        d = [a - b for a, b in zip(sc, r[best][:k])]
        md = sum(d) / k; se = math.sqrt(sum((x - md) ** 2 for x in d) / (k - 1) / k) if k > 1 else 0
        if md < -2 * se and md < 0: lost.append((name, best, round(md, 4), round(se, 4)))
    if n == 0: print(f"{f}: no table to rank"); continue
    print(f"{f}: tables {n}, mean rank {sum(ranks)/n:.2f}, first {first} ({100*first/n:.0f}%), lost {len(lost)}")
    for x in sorted(lost, key=lambda x: x[2]): print("   lost", *x)
