#!/usr/bin/env python3
"""error-vs-truth.py TRUTH.json DIR [DIR_OFF] [extra]: mean/p95/max error vs truth of plain, smooth (raw), smooth (off)."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import subprocess, sys, csv, io, json, math, datetime, bisect
C = _REPO + "/.build/debug/cairn"
truth = json.load(open(sys.argv[1])); tms = [t[0] for t in truth]
dirs = sys.argv[2:4] if len(sys.argv) > 3 and not sys.argv[3].startswith("-") else sys.argv[2:3]
extra = sys.argv[2 + len(dirs):]
def ms(x):
    x = x.rstrip("Z"); frac = 0
    if "." in x: x, fr = x.split("."); frac = int((fr + "000")[:3])
    return int(datetime.datetime.strptime(x, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()) * 1000 + frac
def err(d, args):
    p = subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"] + args, capture_output=True, text=True)
    rows = list(csv.reader(io.StringIO(p.stdout)))[1:]
    es = []
    for r in rows:
        t = ms(r[0]); i = bisect.bisect_left(tms, t)
        if i >= len(tms) or tms[i] != t: continue
        _, la, lo = truth[i]
        x = math.radians(float(r[2]) - lo) * math.cos(math.radians(la)); y = math.radians(float(r[1]) - la)
        es.append(6371000 * math.hypot(x, y))
    es.sort()
    return "n=%d mean %.2f p95 %.2f max %.2f  %s" % (len(es), sum(es) / max(1, len(es)), es[int(0.95 * len(es))] if es else 0, es[-1] if es else 0, p.stderr.strip()[:200])
print("plain      ", err(dirs[0], extra[:0]))
print("smooth raw ", err(dirs[0], ["--smooth"] + extra))
if len(dirs) > 1: print("smooth off ", err(dirs[1], ["--smooth"] + extra))
