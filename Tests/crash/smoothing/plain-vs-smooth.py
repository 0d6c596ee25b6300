#!/usr/bin/env python3
"""plain-vs-smooth.py DIR [extra args]: csv plain vs --smooth (+extra); counts, order, max move; logs untouched."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import subprocess, sys, hashlib, glob, math, csv, io, os
C = _REPO + "/.build/debug/cairn"
d, extra = sys.argv[1], sys.argv[2:]
files = sorted(glob.glob(d + "/**/*.cairn", recursive=True)) if os.path.isdir(d) else [d]
h0 = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
base_extra = [a for a in extra if a in ("--refilter",) or a.startswith("--activity")]
def conv(args):
    p = subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"] + args, capture_output=True, text=True, timeout=600)
    rows = list(csv.reader(io.StringIO(p.stdout)))
    return p.returncode, rows[1:] if rows else [], rows[0] if rows else [], p.stderr
ba = []
i = 0
while i < len(extra):
    if extra[i] == "--refilter": ba.append("--refilter")
    if extra[i] == "--activity": ba += ["--activity", extra[i+1]]
    i += 1
rc0, plain, hp, e0 = conv(ba)
rc1, sm, hs, e1 = conv(["--smooth"] + extra)
for f in files:
    if hashlib.sha256(open(f, "rb").read()).hexdigest() != h0[f]: print("LOG MODIFIED", f)
print("exit plain", rc0, "smooth", rc1)
print("stderr smooth:", e1.strip()[:800])
orig = [r[-1] for r in sm] if hs and hs[-1] == "origin" else []
pts = [r for r in sm if not orig or r[-1] != "interpolated"]
print("rows plain", len(plain), "smoothed non-interp", len(pts), "interp", len(sm) - len(pts))
if "--fill-gaps" not in extra and len(plain) != len(pts): print("COUNT MISMATCH")
tp = [r[0] for r in plain]; ts = [r[0] for r in pts]
if "--fill-gaps" not in extra and tp != ts: print("TIME SEQUENCE DIFFERS")
import datetime
def ms(x):
    x = x.rstrip("Z"); frac = 0
    if "." in x: x, fr = x.split("."); frac = int((fr + "000")[:3])
    return int(datetime.datetime.strptime(x, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()) * 1000 + frac
tt = [ms(r[0]) for r in sm]
bad = sum(1 for a, b in zip(tt, tt[1:]) if a >= b)
if bad: print("OUT OF ORDER (or repeated time)", bad)
def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (float(a[1]), float(a[2]), float(b[1]), float(b[2])))
    x = (lo2 - lo1) * math.cos((la1 + la2) / 2); y = la2 - la1
    return 6371000 * math.hypot(x, y)
if len(plain) == len(pts) and tp == ts:
    ds = [dist(a, b) for a, b in zip(plain, pts)]
    if ds:
        big = sorted(ds)[-1]
        print("max move %.1f m, mean %.2f m, >50m: %d" % (big, sum(ds) / len(ds), sum(1 for x in ds if x > 50)))
