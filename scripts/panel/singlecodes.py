"""singlecodes.py FIRST N PANEL.json...: the tables of at most 1,000 rows where, on some split of
FIRST to FIRST+N-1, a numeric column that the fit tries by its codes (main's rule, reproduced in Python
on the split's training rows) has a value of one training row: the tables whose fits a rule on such
values can change (docs/learner-panel.md, "A value of one training row without a code of its own").

    python3 scripts/panel/singlecodes.py 20 20 ../shared/panel/data/panel.json ../shared/panel/dev/panel.json
"""
import sys
from collections import Counter
import tables
import panel

MISSING = ('', 'NA', 'NaN', 'nan', 'N/A', 'na', '.', '?')


def qualifying(train, header, ti):
    """The columns tried by their codes on these training rows: 10 values or more, 3 rows to a value
    on average below 1,000 rows (15 from 1,000, whole numbers only), at most 3 of each kind."""
    n, out = len(train), {}
    for j, c in enumerate(header):
        if j == ti:
            continue
        try:
            nums = [float(v) for v in (r[j].strip() for r in train) if v not in MISSING]
        except ValueError:
            continue
        k, whole, small = len(set(nums)), all(x == int(x) for x in nums), n < 1000
        if k >= 10 and whole and len(nums) >= (3 if small else 15) * k:
            out[c] = 'whole'
        elif k >= 10 and not whole and small and len(nums) >= 3 * k:
            out[c] = 'fraction'
    kinds = Counter(out.values())
    return [c for c, kind in out.items() if kinds[kind] <= 3]


first, n = int(sys.argv[1]), int(sys.argv[2])
found = []
for name, target, task, header, rows, ti in tables.tables(sys.argv[3:]):
    if len(rows) > 1000:
        continue
    singles, splits = {}, []
    for s in range(first, first + n):
        train, _ = panel.split(rows, ti, task, s)
        for c in qualifying(train, header, ti):
            j = header.index(c)
            ones = sum(1 for v in Counter(float(r[j].strip()) for r in train if r[j].strip() not in MISSING).values() if v == 1)
            if ones:
                singles[c] = max(singles.get(c, 0), ones)
                if s not in splits:
                    splits.append(s)
    if splits:
        print(f"{name} ({len(rows)} rows, {task}): {len(splits)} splits; " + ", ".join(f"{c}: at most {k} values of one row" for c, k in singles.items()), flush=True)
        found.append(name)
print("CANDIDATES", len(found), ",".join(found))
