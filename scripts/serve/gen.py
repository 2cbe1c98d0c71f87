#!/usr/bin/env python3
"""gen.py: write the requests of these scripts into the current directory:
big.json, 100,000 rows for a model of fit on columns x1 and x2 (3.97 MB,
its answer 5.8 MB), and one.json, one row."""
import json
n = 100000
x = [i % 37 / 37.0 for i in range(n)]
for name, cols in (('big', (x, x)), ('one', ([0.1], [0.2]))):
    body = {"inputs": [{"name": c, "datatype": "FP64", "shape": [len(rows), 1], "data": rows} for c, rows in zip(("x1", "x2"), cols)]}
    open(name + '.json', 'w').write(json.dumps(body))
