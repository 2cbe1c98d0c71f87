#!/usr/bin/env python3
"""Serve the models of an onnxsweep.py run and compare serve's answers on each table's test rows
with predict's, which serve must give to the last digit.

usage: servesweep.py BIN SWEEPDIR   (SWEEPDIR: onnxsweep.py's OUTDIR, one folder per table)"""
import csv, json, math, os, shutil, subprocess, sys, tempfile, time, urllib.request
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnxsweep import MISSING, number

binary, sweep = os.path.abspath(sys.argv[1]), sys.argv[2]
models = tempfile.mkdtemp()
names = sorted(n for n in os.listdir(sweep) if os.path.exists(os.path.join(sweep, n, "pred.csv")))
for n in names:
    shutil.copy(os.path.join(sweep, n, "m.json"), os.path.join(models, n + ".json"))
port = 18123
srv = subprocess.Popen([binary, "serve", "-models", models, "-addr", f"127.0.0.1:{port}", "-max-body", "64MiB"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
srv.stdout.readline()  # "serve: listening on", once every model is loaded
base = f"http://127.0.0.1:{port}/v2/models/"


def call(url, body=None):
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return {"error": f"{e.code} {e.read().decode()[:300]}"}


def tensor(spec, cells):
    if spec["datatype"] == "BYTES":
        return {"name": spec["name"], "datatype": "BYTES", "shape": [len(cells), 1], "data": cells}
    data = []
    for c in cells:
        try:
            v = None if c in MISSING else number(c)
        except ValueError:
            v = None  # a stray, which predict reads as missing
        data.append(v if v is None or math.isfinite(v) else None)
    return {"name": spec["name"], "datatype": "FP64", "shape": [len(cells), 1], "data": data}


report = []
try:
    for n in names:
        d = os.path.join(sweep, n)
        rows = list(csv.reader(open(os.path.join(d, "test.csv"))))
        header, rows = rows[0], rows[1:]
        meta = call(base + n)
        inputs = [tensor(s, [r[header.index(s["name"])].strip() for r in rows]) for s in meta["inputs"]]
        out = call(base + n + "/infer", {"inputs": inputs})
        res = {"table": n}
        if "error" in out:
            res["error"] = out["error"]
        else:
            got = {o["name"]: o["data"] for o in out["outputs"]}
            pred = list(csv.reader(open(os.path.join(d, "pred.csv"))))
            ph, pr = pred[0], pred[1:]
            if "label" in got:
                k = len(ph) - 1
                res["labels_differ"] = sum(a != b[0] for a, b in zip(got["label"], pr))
                res["values_differ"] = sum(float(got["probabilities"][i * k + j]) != float(pr[i][1 + j]) for i in range(len(pr)) for j in range(k))
            else:  # the predictions and their intervals, 90% in both
                res["values_differ"] = sum(float(a) != float(b[j]) for j, out in enumerate(("prediction", "lower", "upper"))
                                           for a, b in zip(got[out], pr))
        report.append(res)
        print(n, res, flush=True)
finally:
    srv.terminate()
    srv.wait()
    shutil.rmtree(models)
bad = [r for r in report if "error" in r or r.get("values_differ") or r.get("labels_differ")]
print(f"{len(report)} tables, {len(bad)} with errors or answers other than predict's")
