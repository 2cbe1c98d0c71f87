#!/usr/bin/env python3
"""Fit each panel table (split 0's training rows), export it to ONNX, and compare ONNX Runtime's
answers on the test rows with machines predict's: a classifier's labels and probabilities, a
regression's predictions and their 90% intervals.

usage: onnxsweep.py BIN OUTDIR PANEL.json...   (tables of at most 1,000 rows)"""
import csv, datetime, json, math, os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__))))
from tables import panel, tables
import onnx

RUNJS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "onnx", "runtime")
MISSING = {"", "NA", "N/A", "NaN", "nan", "null", "NULL", "?", "-", "."}


def run(*args):
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stderr


def number(c):
    """The number a cell of a numeric or date input writes, as the ONNX graph takes it: a
    number; an ISO 8601 date (and time) as days since 1970; a clock time as hours."""
    try:
        return float(c)
    except ValueError:
        pass
    for fmt in ("%Y-%m-%d", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            t = datetime.datetime.strptime(c, fmt).replace(tzinfo=datetime.timezone.utc)
            return t.timestamp() / 86400
        except ValueError:
            pass
    for fmt in ("%I:%M %p", "%I:%M:%S %p", "%H:%M", "%H:%M:%S"):
        try:
            t = datetime.datetime.strptime(c, fmt)
            return t.hour + t.minute / 60 + t.second / 3600
        except ValueError:
            pass
    raise ValueError(c)


def inputs_for(model, header, rows):
    """The test rows as ONNX Runtime's inputs and the cells of numeric inputs that are no
    number, given as null; or None and the reason they cannot be given."""
    feeds, strays = {}, []
    for i in onnx.load(model).graph.input:
        col = header.index(i.name)
        cells = [r[col].strip() for r in rows]
        t = i.type.tensor_type.elem_type
        if t == onnx.TensorProto.STRING:
            feeds[i.name] = {"type": "string", "dims": [len(rows), 1], "data": cells}
        elif t == onnx.TensorProto.DOUBLE:
            data = []
            for c in cells:
                if c in MISSING:
                    data.append(None)
                    continue
                try:
                    v = number(c)
                except ValueError:
                    # A stray, which predict reads as missing with a warning; a
                    # number written otherwise ("12%", "1,234") cannot be told
                    # from one here, and shows as a disagreement.
                    strays.append(c)
                    v = math.nan
                data.append(v if math.isfinite(v) else None)
            feeds[i.name] = {"type": "double", "dims": [len(rows), 1], "data": data}
        else:
            return None, f"input {i.name} of ONNX type {t}"
    return feeds, strays


def rel(a, b):
    return abs(a - b) / max(1.0, abs(a), abs(b))


def main():
    binary, out, panels = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    report = []
    for name, target, task, header, rows, ti in tables(panels):
        if len(rows) > 1000:
            continue
        train, test = panel.split(rows, ti, task, 0)
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        for fn, rs in (("train.csv", train), ("test.csv", test)):
            with open(os.path.join(d, fn), "w", newline="") as f:
                csv.writer(f).writerows([header] + rs)
        p = lambda f: os.path.join(d, f)
        res = {"table": name, "task": task}
        code, err = run(binary, "fit", "-data", p("train.csv"), "-target", target, "-task", task, "-model", p("m.json"))
        # A regression's graph and predictions with their 90% intervals.
        interval = ["-interval", "0.9"] if task == "regression" else []
        if code == 0:
            code, err = run(binary, "export", "-model", p("m.json"), "-onnx", p("m.onnx"), *interval)
        if code == 0:
            code, err = run(binary, "predict", "-model", p("m.json"), "-data", p("test.csv"), "-out", p("pred.csv"), *interval)
        if code != 0:
            res["error"] = err.strip().splitlines()[-1]
            report.append(res); print(name, res["error"]); continue
        feeds, strays = inputs_for(p("m.onnx"), header, test)
        if feeds is None:
            res["skipped"] = strays
            report.append(res); print(name, "skipped:", strays); continue
        if strays:
            res["strays_as_null"] = len(strays)
        r = subprocess.run(["node", "run.js", os.path.abspath(p("m.onnx"))], cwd=RUNJS, input=json.dumps(feeds), capture_output=True, text=True)
        if r.returncode != 0:
            res["error"] = "ONNX Runtime: " + r.stderr.strip()[-300:]
            report.append(res); print(name, res["error"]); continue
        outs = json.loads(r.stdout)
        pred = list(csv.reader(open(p("pred.csv"))))
        ph, pr = pred[0], pred[1:]
        if task == "regression":
            res["max_rel"] = max(rel(a, float(x[j])) for j, out in enumerate(("prediction", "lower", "upper"))
                                 for a, x in zip(outs[out]["data"], pr))
        else:
            labels = outs["label"]["data"]
            res["labels_differ"] = sum(a != b[0] for a, b in zip(labels, pr))
            probs = outs["probabilities"]["data"]
            k = len(ph) - 1
            res["max_rel"] = max(rel(probs[i * k + j], float(pr[i][1 + j])) for i in range(len(pr)) for j in range(k))
        report.append(res)
        print(name, {k: v for k, v in res.items() if k not in ("table",)}, flush=True)
    json.dump(report, open(os.path.join(out, "report.json"), "w"), indent=1)
    bad = [r for r in report if "error" in r or r.get("max_rel", 0) > 1e-6 or r.get("labels_differ", 0)]
    print(f"{len(report)} tables, {sum('skipped' in r for r in report)} skipped, {len(bad)} with errors or disagreements")


if __name__ == "__main__":
    main()
