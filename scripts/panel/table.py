#!/usr/bin/env python3
"""table.py REFS.json OURS.json PANEL.json [PANEL.json...]: one Markdown table per panel of our mean
score against the best reference's, our rank of 9 (of fewer where refs.py left references out), the gap with its paired standard error, and
whether the table is lost (gap beyond two paired standard errors, the training mean included as a
reference), as rank.py counts them; then each panel's summary line."""
import json, math, os, sys


def mean(v):
    return sum(v) / len(v)


def row(name, ours, refs):
    """The table's line and its (rank, lost) for our scores against the references' per split."""
    sc = ours["scores"]
    k = len(sc)
    models = [m for m in refs if not m.startswith("_")]
    mo = mean(sc)
    rank = 1 + sum(1 for m in models if m != "Mean" and mean(refs[m][:k]) > mo)
    best = max(models, key=lambda m: mean(refs[m][:k]))
    d = [a - b for a, b in zip(sc, refs[best][:k])]
    md = mean(d)
    se = math.sqrt(sum((x - md) ** 2 for x in d) / (k - 1) / k) if k > 1 else 0.0
    lost = md < 0 and md < -2 * se
    cpu = ours.get("cpu_s")
    cpu = f"{sorted(cpu)[len(cpu) // 2]:.2f} s" if cpu else ""
    line = (f"| {name} | {ours['rows']:,} | {mo:.3f} | {best} {mean(refs[best][:k]):.3f} | {rank} "
            f"| {md:+.3f} ± {se:.3f} | {'lost' if lost else ''} | {cpu} |")
    return line, rank, lost


def main(argv):
    refs, ours = json.load(open(argv[1])), json.load(open(argv[2]))
    for pf in argv[3:]:
        names = [t[0] for t in json.load(open(pf))]
        # Ours and the references but the training mean (fewer with refs.py --skip).
        of = 1 + max((sum(1 for m in refs[n] if not m.startswith("_") and m != "Mean") for n in names if n in refs), default=8)
        print(f"### {os.path.basename(os.path.dirname(os.path.abspath(pf)))}\n")
        print(f"| table | rows | ours | best reference | rank of {of} | gap ± SE | | fit CPU |")
        print("|---|---:|---:|---|---:|---:|---|---:|")
        ranks, lost, missing = [], 0, []
        for name in names:
            o, r = ours.get(name), refs.get(name)
            if o is None or r is None or None in o["scores"] or any(
                    len(v) < len(o["scores"]) for m, v in r.items() if not m.startswith("_")):
                missing.append(name)
                continue
            line, rank, l = row(name, o, r)
            print(line)
            ranks.append(rank)
            lost += l
        first = sum(r == 1 for r in ranks)
        print(f"\n{len(ranks)} tables: mean rank {mean(ranks):.2f} of {of}, first on {first} "
              f"({100 * first / len(ranks):.0f}%), lost {lost}"
              + (f"; not scored: {', '.join(missing)}" if missing else "") + "\n")


if __name__ == "__main__":
    main(sys.argv)
