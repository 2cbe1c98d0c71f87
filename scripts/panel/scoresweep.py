#!/usr/bin/env python3
"""Score the test rows of each table of an onnxsweep.py run with machines score, and compare its
figures with those computed here from predict's answers and the test targets: R², MSE and the 90%
intervals' coverage and mean width of a regression; accuracy, log-loss and the Brier score of a
classifier.

usage: scoresweep.py BIN SWEEPDIR"""
import csv, json, math, os, subprocess, sys

binary, sweep = os.path.abspath(sys.argv[1]), sys.argv[2]


def computed(task, target, header, test, pred):
    """The figures of the predictions pred (predict's CSV rows, header first) on the test rows."""
    ti = header.index(target)
    ph, pr = pred[0], pred[1:]
    if task == "regression":
        y = [float(r[ti]) for r in test]
        p, lo, hi = ([float(x[j]) for x in pr] for j in range(3))
        mean = sum(y) / len(y)
        sse = sum((a - b) ** 2 for a, b in zip(y, p))
        return {"r2": 1 - sse / sum((a - mean) ** 2 for a in y), "mse": sse / len(y),
                "coverage": sum(l <= a <= h for a, l, h in zip(y, lo, hi)) / len(y),
                "mean_width": sum(h - l for l, h in zip(lo, hi)) / len(y)}
    classes = [c[2:] for c in ph[1:]]
    labels = [r[ti].strip() for r in test]
    probs = [[float(v) for v in x[1:]] for x in pr]
    idx = [classes.index(l) for l in labels]
    return {"accuracy": sum(x[0] == l for x, l in zip(pr, labels)) / len(labels),
            "log_loss": -sum(math.log(max(p[i], 1e-15)) for p, i in zip(probs, idx)) / len(idx),
            "brier": sum(sum((q - (j == i)) ** 2 for j, q in enumerate(p)) for p, i in zip(probs, idx)) / len(idx)}


report = []
for n in sorted(os.listdir(sweep)):
    d = os.path.join(sweep, n)
    if not os.path.exists(os.path.join(d, "pred.csv")):
        continue
    model = json.load(open(os.path.join(d, "m.json")))
    task, target = model["task"], model["target"]
    rows = list(csv.reader(open(os.path.join(d, "test.csv"))))
    pred = list(csv.reader(open(os.path.join(d, "pred.csv"))))
    want = computed(task, target, rows[0], rows[1:], pred)
    out = os.path.join(d, "score.json")
    interval = ["-interval", "0.9"] if task == "regression" else []
    r = subprocess.run([binary, "score", "-model", os.path.join(d, "m.json"), "-data", os.path.join(d, "test.csv"), "-json", out, *interval],
                       capture_output=True, text=True)
    res = {"table": n}
    if r.returncode != 0:
        res["error"] = r.stderr.strip().splitlines()[-1]
    else:
        got = json.load(open(out))
        res["rows"] = got["rows"] == len(rows) - 1
        res["max_rel"] = max(abs(got[k] - v) / max(1, abs(v)) for k, v in want.items())
    report.append(res)
    print(n, res, flush=True)
bad = [r for r in report if "error" in r or not r.get("rows") or r["max_rel"] > 1e-9]
print(f"{len(report)} tables, {len(bad)} whose score differs from the figures of predict's answers")
