"""Which numeric columns of the panels' tables qualify as codes of groups, under several rules,
on the training rows of split 0 (docs/learner-panel.md, "Numeric columns that are codes of groups" and
"Numbers that label groups on tables under 1,000 rows", "Numbers that label groups though they are not whole
numbers", "Numbers of a few values that label groups"). The fit's rule is G on tables of 1,000 training rows or
more and K on smaller ones (J until session 34, on tables of 100 to 999).

    python3 scripts/panel/codes.py ../shared/panel/data/panel.json ../shared/panel/dev/panel.json
"""
import sys
import tables
import panel

RULES = {  # name: (least values, least mean rows per value, least table rows, whole numbers only, most table rows)
    'A int,k>=10,r>=10': (10, 10, 0, True, None),
    'B int,k>=10,r>=20': (10, 20, 0, True, None),
    'C int,k>=20,r>=15': (20, 15, 0, True, None),
    'D int,k>=10,r>=15,n>=1000': (10, 15, 1000, True, None),
    'E any,k>=10,r>=10': (10, 10, 0, False, None),
    'F int,k>=10,r>=15 (first try)': (10, 15, 0, True, None),
    'G int,k>=10,r>=15,n>=1000,<=3 columns (kept)': (10, 15, 1000, True, None),
    'H int,k>=10,r>=3,100<=n<1000,<=3 columns (session 28)': (10, 3, 100, True, 999),
    'I int,k>=10,r>=5,100<=n<1000,<=3 columns': (10, 5, 100, True, 999),
    'J any,k>=10,r>=3,100<=n<1000,<=3 whole and <=3 fractions (session 30)': (10, 3, 100, False, 999),
    'K any,k>=10,r>=3,n<1000,<=3 whole and <=3 fractions (session 34)': (10, 3, 0, False, 999),
}
AT_MOST_3 = ['G int,k>=10,r>=15,n>=1000,<=3 columns (kept)',
             'H int,k>=10,r>=3,100<=n<1000,<=3 columns (session 28)',
             'I int,k>=10,r>=5,100<=n<1000,<=3 columns']
APART = ['J any,k>=10,r>=3,100<=n<1000,<=3 whole and <=3 fractions (session 30)',
         'K any,k>=10,r>=3,n<1000,<=3 whole and <=3 fractions (session 34)']  # capped by kind


def main(files):
    hits = {r: [] for r in RULES}
    for name, target, task, header, rows, ti in tables.tables(files):
        train, _ = panel.split(rows, ti, task, 0)
        for j, c in enumerate(header):
            if j == ti:
                continue
            vals = [r[j] for r in train if r[j].strip() not in ('', 'NA')]
            try:
                nums = [float(v) for v in vals]
            except ValueError:
                continue
            k = len(set(nums))
            if k == 0:
                continue
            integer = all(x == int(x) for x in nums)
            for rule, (least, per, tab, whole, most) in RULES.items():
                if k >= least and len(nums) / k >= per and len(train) >= tab and (integer or not whole) \
                        and (most is None or len(train) <= most):
                    kind = '' if integer else ', fractions'
                    hits[rule].append(f'{name}.{c}({k} values{kind}, {len(nums) / k:.0f} rows each)')
    for rule in AT_MOST_3:
        per_table = {}
        for h in hits[rule]:
            per_table.setdefault(h.split('.')[0], []).append(h)
        hits[rule] = [h for hs in per_table.values() if len(hs) <= 3 for h in hs]
    for rule in APART:
        per_kind = {}
        for h in hits[rule]:
            per_kind.setdefault((h.split('.')[0], 'fractions' in h), []).append(h)
        hits[rule] = [h for hs in per_kind.values() if len(hs) <= 3 for h in hs]
    for rule, h in hits.items():
        names = sorted({x.split('.')[0] for x in h})
        print(f'{rule}: {len(h)} columns in {len(names)} tables: {" ".join(names)}')
        print('   ', ' '.join(h))


if __name__ == '__main__':
    main(sys.argv[1:])
