"""What the panel scripts share: the panel (../shared/panel beside the repository, or
$MACHINES_PANEL), its module panel.py, and its tables as panel.py prepares them."""
import json, os, resource, sys

HERE = os.path.dirname(os.path.abspath(__file__))
PANEL = os.environ.get("MACHINES_PANEL", os.path.join(HERE, "..", "..", "..", "shared", "panel"))
sys.path.insert(0, PANEL)
import panel  # noqa: E402


def tables(files, only=None):
    """Yields (name, target, task, header, rows, target index) for each table of the
    panel.json files (only those named in only, if given): the dropped columns removed,
    and the rows without a target."""
    for pf in files:
        panel.RAW = os.path.dirname(os.path.abspath(pf))
        for name, target, task, drop in json.load(open(pf)):
            if only is not None and name not in only:
                continue
            if not os.path.exists(os.path.join(panel.RAW, name + ".csv")):
                sys.exit(f"{pf}: {name}.csv is missing; the panel's README says how to build it (build.sh)")
            header, rows = panel.read(name)
            keep = [i for i, h in enumerate(header) if h not in drop]
            header = [header[i] for i in keep]
            rows = [[r[i] for i in keep] for r in rows]
            ti = header.index(target)
            yield name, target, task, header, [r for r in rows if r[ti] != ""], ti


def score(task, y, p):
    """panel.py's score of predictions p of the test targets y, or None where it is undefined: the R²
    of a regression whose test targets are all equal."""
    if task == "regression" and min(y) == max(y):
        return None
    return panel.score(task, y, p)


def children_cpu():
    """The CPU time (user + system) of this process's finished child processes."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
