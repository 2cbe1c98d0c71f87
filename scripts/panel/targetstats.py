#!/usr/bin/env python3
"""A screen of issue 42 (session 33, docs/learner-panel.md, "A classifier's categorical columns by
out-of-fold target statistics"): a classifier's categorical columns (text of 3+ levels, not dates or times of day:
the columns the machine reads as categorical or ordinal) encoded by out-of-fold target statistics,
then main's `machines fit`/`predict` on the transformed split, scored as mpanel.py does.

targetstats.py BIN OUTDIR TABLES FIRST N VARIANT...   VARIANT: main | R<m> (replace, prior weight m) | B<m> (beside)
| Z (RAWBIN, a wrapper of BIN run with -standardize=false, on columns standardised here) | P<m>, Q<m> (R, B with RAWBIN,
the statistics' columns divided by one pooled scale)
Writes OUTDIR/<variant>.json in mpanel.py's format (one file per variant; per table, after each table).

The statistic of level l for class c (c not the reference class, the training rows' most frequent):
log(p(c|l) / p(ref|l)) - log(p(c) / p(ref)), where p(c|l) = (n_lc + m p(c)) / (n_l + m) (k-1 numbers).
Training rows: their level's statistics from the other four of five folds of the training rows
(random folds, seeded by the split); test rows: from all the training rows. A missing cell is a level."""
import sys, os, re, json, math, random, tempfile, collections
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import PANEL, children_cpu, panel, score, tables

FILES = [os.path.join(PANEL, 'data', 'panel.json'), os.path.join(PANEL, 'dev', 'panel.json')]
DATE = re.compile(r'^\d{1,4}[-/]\d{1,2}([-/]\d{1,4})?$|^\d{1,2}:\d{2}(:\d{2})?( ?[AaPp][Mm])?$')


def cat_columns(header, train, ti):
    out = []
    for c, h in enumerate(header):
        if c == ti: continue
        vals = [r[c] for r in train if r[c] != '']
        if not vals or all(panel.isnum(v) for v in vals): continue
        if sum(1 for v in vals if DATE.match(v)) > 0.9 * len(vals): continue
        if len(set(vals)) >= 3: out.append(c)
    return out


def stats(rows, c, y, classes, ref, prior, m):
    """level -> [statistic per class but ref] from the given rows."""
    n_l = collections.Counter(r[c] for r in rows)
    n_lc = collections.Counter((r[c], t) for r, t in zip(rows, y))
    base = {k: math.log(prior[k] / prior[ref]) for k in classes}
    st = {}
    for l in n_l:
        pr = (n_lc[(l, ref)] + m * prior[ref]) / (n_l[l] + m)
        st[l] = [math.log((n_lc[(l, k)] + m * prior[k]) / (n_l[l] + m) / pr) - base[k] for k in classes if k != ref]
    return st


def transform(header, train, test, ti, mode, m, seed):
    cols = cat_columns(header, train, ti)
    y = [r[ti] for r in train]
    cnt = collections.Counter(y)
    classes = sorted(cnt)
    ref = max(classes, key=lambda k: (cnt[k], k))
    prior = {k: cnt[k] / len(y) for k in classes}
    others = [k for k in classes if k != ref]
    rnd = random.Random(1000 + seed)
    perm = list(range(len(train))); rnd.shuffle(perm)
    fold = [0] * len(train)
    for i, j in enumerate(perm): fold[j] = i % 5
    zero = [0.0] * len(others)
    newtr = [[] for _ in train]; newte = [[] for _ in test]; hdr = []
    for c, h in enumerate(header):
        if c not in cols:
            hdr.append(h)
            for o, r in zip(newtr, train): o.append(r[c])
            for o, r in zip(newte, test): o.append(r[c])
            continue
        if mode == 'B':
            hdr.append(h)
            for o, r in zip(newtr, train): o.append(r[c])
            for o, r in zip(newte, test): o.append(r[c])
        hdr += [f'{h}.te.{k}' for k in others]
        full = stats(train, c, y, classes, ref, prior, m)
        for o, r in zip(newte, test): o += ['%.6g' % v for v in full.get(r[c], zero)]
        for f in range(5):
            idx = [i for i in range(len(train)) if fold[i] != f]
            st = stats([train[i] for i in idx], c, [y[i] for i in idx], classes, ref, prior, m)
            for i in range(len(train)):
                if fold[i] == f: newtr[i] += ['%.6g' % v for v in st.get(train[i][c], zero)]
    return hdr, newtr, newte, [header[c] for c in cols]


def rawify(header, train, test, ti, tecols):
    """The raw arm (post hoc): numeric columns standardised here (the fit runs with -standardize=false);
    the target-statistic columns tecols (indices) all divided by one pooled scale, the root mean
    variance over them, so that a column whose levels say little keeps a small spread."""
    train = [list(r) for r in train]; test = [list(r) for r in test]
    for c in range(len(header)):
        if c == ti: continue
        vals = [r[c] for r in train if r[c] != '']
        if not vals or not all(panel.isnum(v) for v in vals) or c in tecols: continue
        xs = [float(v) for v in vals]; mu = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mu) ** 2 for x in xs) / len(xs)) or 1.0
        for rows in (train, test):
            for r in rows:
                if r[c] != '' and panel.isnum(r[c]): r[c] = '%.6g' % ((float(r[c]) - mu) / sd)
    if tecols:
        mus, var = {}, 0.0
        for c in tecols:
            xs = [float(r[c]) for r in train]; mus[c] = sum(xs) / len(xs)
            var += sum((x - mus[c]) ** 2 for x in xs) / len(xs) / len(tecols)
        sd = math.sqrt(var) or 1.0
        for c in tecols:
            for rows in (train, test):
                for r in rows: r[c] = '%.6g' % ((float(r[c]) - mus[c]) / sd)
    return train, test


def main():
    binary, outdir, only, first, n = sys.argv[1], sys.argv[2], set(sys.argv[3].split(',')), int(sys.argv[4]), int(sys.argv[5])
    variants = sys.argv[6:]
    res = {v: (json.load(open(f'{outdir}/{v}.json')) if os.path.exists(f'{outdir}/{v}.json') else {}) for v in variants}
    for name, target, task, header, rows, ti in tables(FILES, only):
        acc = {v: {'scores': [], 'fit_s': [], 'cpu_s': [], 'errors': [], 'rows': len(rows)} for v in variants}
        enc = None
        for s in range(first, first + n):
            train, test = panel.split(rows, ti, task, s)
            y = [r[ti] for r in test]
            for v in variants:
                bin_ = binary
                if v == 'main':
                    h, tr, te = header, train, test
                elif v == 'Z':
                    bin_ = os.environ['RAWBIN']
                    h = header; tr, te = rawify(header, train, test, ti, [])
                elif v[0] in 'PQ':
                    bin_ = os.environ['RAWBIN']
                    h, tr, te, enc = transform(header, train, test, ti, 'R' if v[0] == 'P' else 'B', float(v[1:]), s)
                    tec = [i for i, x in enumerate(h) if '.te.' in x]
                    tr, te = rawify(h, tr, te, h.index(target), tec)
                else:
                    h, tr, te, enc = transform(header, train, test, ti, v[0], float(v[1:]), s)
                with tempfile.TemporaryDirectory() as tmp:
                    c0 = children_cpu()
                    pred, fit_s, err = panel.run_machines(bin_, h, tr, te, target, task, tmp)
                    cpu = children_cpu() - c0
                sc = None if err else score(task, y, pred)
                a = acc[v]; a['scores'].append(sc); a['fit_s'].append(fit_s); a['cpu_s'].append(cpu)
                if err: a['errors'].append(f'split {s}: {err}')
        for v in variants:
            res[v][name] = acc[v]
            json.dump(res[v], open(f'{outdir}/{v}.json.tmp', 'w'), indent=1); os.replace(f'{outdir}/{v}.json.tmp', f'{outdir}/{v}.json')
        print(name, 'encoded', enc, {v: round(sum(x for x in acc[v]['scores'] if x is not None) / n, 4) for v in variants}, flush=True)


if __name__ == '__main__':
    main()
