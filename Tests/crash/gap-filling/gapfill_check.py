"""Round 9b attack on gap filling with raw fixes: crafted scenarios through every format (OUT=dir python3 scenarios.py [names])."""
import os as _os
REPO = _os.path.abspath(_os.path.dirname(_os.path.abspath(__file__)) + "/../../..")
OUT = _os.environ.get("OUT", "/tmp/round9b")
import sys, os, re, json, subprocess, hashlib, random, csv, io, shutil
sys.path.insert(0, f"{REPO}/Tests/crash/smoothing")
from ride_scenarios import *
C = f"{REPO}/.build/debug/cairn"
def base(n=400, hz=1.0, keep_every=1, seed=3, drop=(), thin=(), bad=()):
    fx = ride(n, hz=hz, keep_every=keep_every, seed=seed)
    out = []
    for i, (f, t, v) in enumerate(fx):
        s = i / hz
        if any(a <= s < a + d for a, d in drop): continue
        if any(a <= s < a + d for a, d in thin): v = TOO_CLOSE if i % int(3000*hz) else KEPT
        if any(a <= s < a + d for a, d in bad): v = 11  # spike: dropped as bad
        out.append((f, t, v))
    return out
def usable_gaps(items):
    ts = sorted(f["time"] for f, v in items if v in (KEPT, TOO_CLOSE, STANDING, NO_SPEED_NEAR))
    return [(a, b) for a, b in zip(ts, ts[1:]) if b - a > 10000]
def run(name, path, gaps, expect_fill=None, extra=()):
    h = hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.isfile(path) else None
    res = {}
    for mode in ([], ["--refilter"]):
        for sm in ([], ["--smooth"]):
            key = " ".join(mode + sm + list(extra))
            counts = {}
            for fmt in ["gpx", "csv", "geojson", "kml", "fit"]:
                out = f"{OUT}/o/{name}.{fmt}" if fmt != "fit" else f"{OUT}/o/{name}_fit"
                os.makedirs(f"{OUT}/o", exist_ok=True)
                if os.path.isdir(out): shutil.rmtree(out)
                elif os.path.exists(out): os.remove(out)
                try:
                    p = subprocess.run([C, "convert", path, "--to", fmt, "-o", out, "--force", "--fill-gaps"] + mode + sm + list(extra), capture_output=True, text=True, timeout=120)
                except subprocess.TimeoutExpired:
                    print(name, key, fmt, "TIMEOUT"); continue
                if p.returncode not in (0, 1) or "Fatal" in p.stderr: print(name, key, fmt, "RC", p.returncode, p.stderr[-300:])
                m = re.findall(r"filled (\d+) gaps? with (\d+) interpolated", p.stderr)
                counts[fmt] = [tuple(map(int, x)) for x in m]
                if fmt == "csv" and os.path.exists(out):
                    rows = list(csv.DictReader(open(out)))
                    made = [r for r in rows if r.get("origin") == "interpolated"]
                    def ms(r):
                        import datetime
                        t = r["time"]; dt = datetime.datetime.fromisoformat(t.replace("Z", "+00:00"))
                        return int(dt.timestamp() * 1000)
                    last = None
                    for r in rows:
                        t = ms(r)
                        if last is not None and t <= last and r["trip"] == lastrip: print(name, key, "CSV TIME ORDER", r["time"])
                        last, lastrip = t, r["trip"]
                    bad = [r["time"] for r in made if not any(a < ms(r) < b for a, b in gaps)]
                    if bad: print(name, key, "MADE-UP OUTSIDE DROPOUT", len(bad), bad[:3])
                    tot = sum(x[1] for x in counts[fmt])
                    if tot != len(made): print(name, key, "CSV COUNT", tot, "file", len(made))
                    res[key] = (len(made), counts[fmt])
                    if expect_fill is not None and (len(made) > 0) != expect_fill: print(name, key, "EXPECT fill", expect_fill, "got", len(made))
                if fmt == "gpx":
                    s = open(out).read() if os.path.exists(out) else ""
                    n = s.count("<src>cairn interpolated</src>")
                    tot = sum(x[1] for x in counts[fmt])
                    if tot != n: print(name, key, "GPX COUNT", tot, "file", n)
                if fmt == "geojson" and os.path.exists(out):
                    d = json.load(open(out))
                    ip = sum(f["properties"].get("interpolated_points", 0) for f in d["features"] if f["properties"].get("interpolated_points") is not None)
                    tot = sum(x[1] for x in counts[fmt])
                    if ip != tot: print(name, key, "GEOJSON props", ip, "stderr", tot)
            vals = set(json.dumps(v) for v in counts.values())
            if len(vals) > 1: print(name, key, "FORMATS DISAGREE", counts)
    if h and hashlib.sha256(open(path, "rb").read()).hexdigest() != h: print(name, "LOG CHANGED")
    print(name, res)
