#!/usr/bin/env python3
"""Every command and option that writes or shows positions, on rides that stop at home mid-ride,
rides with a jittery start (the smoother), rides that pass through the zone without starting
there, and two overlapping zones: any written position inside the asked disc of any zone is a leak.

    python3 every-output.py CAIRN_BIN [--r 300]

Positions are found in each output's text as adjacent lat-like/lon-like numbers (both orders:
GPX attributes, GeoJSON/KML lon,lat, CSV, bounds, bboxes), in FIT by fitdecode (every *_lat /
*_long field), and in cells' GeoJSON as cell boxes touching the disc. The nearest to home is
printed per output."""
import glob, json, math, os, random, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridegen as rg  # noqa: E402

HOME = rg.HOME
HOME2 = rg.to_ll(900.0, 300.0)  # a second zone overlapping the first (work next door)
NUM = re.compile(r"-?\d+\.\d+")


def nearest_in_text(text, zones, lon_first=None):
    """lon_first: True for GeoJSON/KML ([lon, lat]), False for GPX/CSV, None: both orders."""
    nums = [float(x) for x in NUM.findall(text)]
    best = float("inf")
    hits = 0
    for a, b in zip(nums, nums[1:]):
        orders = {None: ((a, b), (b, a)), True: ((b, a),), False: ((a, b),)}[lon_first]
        for la, lo in orders:
            if 47.0 < la < 47.8 and 8.2 < lo < 8.9:
                for z, r in zones:
                    d = rg.metres((la, lo), z)
                    best = min(best, d)
                    if d <= r:
                        hits += 1
    return best, hits


def nearest_in_fit(path, zones):
    import fitdecode
    best, hits = float("inf"), 0
    k = 180 / 2 ** 31
    with fitdecode.FitReader(path) as fr:
        for m in fr:
            if not isinstance(m, fitdecode.FitDataMessage):
                continue
            f = {x.name: x.value for x in m.fields}
            for name in f:
                if name.endswith("_lat") and f[name] is not None:
                    lo = f.get(name[:-4] + "_long")
                    if lo is None:
                        continue
                    p = (f[name] * k, lo * k)
                    for z, r in zones:
                        d = rg.metres(p, z)
                        best = min(best, d)
                        hits += d <= r
    return best, hits


def make(d, r, seed=3):
    rnd = random.Random(seed)
    rides = []
    for k in range(3):  # home, stand 20 min, out again
        rides.append(rg.zcf.ride(rnd, 3 * r + 500, rg.T0 + k * 86_400_000, stop_at_home=1200))
    for k in range(3, 5):  # jittery fixes: the smoother pulls them
        rides.append(rg.zcf.ride(rnd, 3 * r + 500, rg.T0 + k * 86_400_000, jitter=25.0))
    # a ride that starts 5 km away and passes through home without stopping
    t0 = rg.T0 + 5 * 86_400_000
    pts = [(t0 + i * 1000, *rg.to_ll(-5000 + 7 * i, 3.0 * math.sin(i / 30))) for i in range(1500)]
    rides.append(pts)
    # a slow start: 10 min creeping at 0.3 m/s from home, then away
    t0 = rg.T0 + 6 * 86_400_000
    pts = [(t0 + i * 1000, *rg.to_ll(0.3 * i, 0.2 * i)) for i in range(600)]
    pts += [(t0 + (600 + i) * 1000, *rg.to_ll(180 + 6 * i, 120 + 1 * i)) for i in range(800)]
    rides.append(pts)
    rg.write_rides(d, rides, seed)
    return rg.key_file(d, seed)


def main():
    binary = sys.argv[1]
    r = float(sys.argv[sys.argv.index("--r") + 1]) if "--r" in sys.argv else 300.0
    d = tempfile.mkdtemp(prefix="cairn-every-")
    logs = os.path.join(d, "logs")
    key = make(logs, r)
    zones = [(HOME, r), (HOME2, 200.0)]
    zargs = ["--privacy-zone", "%f,%f,%g" % (HOME[0], HOME[1], r), "--privacy-zone", "%f,%f,200" % HOME2]
    results = []

    def check(label, path=None, text=None, fit=False):
        if fit:
            best, hits = nearest_in_fit(path, zones)
        else:
            if text is None:
                text = open(path, encoding="utf-8", errors="replace").read()
            ext = (path or "").rsplit(".", 1)[-1]
            best, hits = nearest_in_text(text, zones, {"geojson": True, "kml": True, "gpx": False, "csv": False}.get(ext))
        results.append((label, best, hits))
        print("%-48s nearest %8.1f m  inside %d" % (label, best, hits), flush=True)

    for fmt in ("gpx", "geojson", "kml", "csv", "fit"):
        for opts in ([], ["--smooth"], ["--fill-gaps"], ["--smooth", "--fill-gaps"], ["--laps", "1km"], ["--raw"], ["--refilter"]):
            out = os.path.join(d, "out-%s-%s.%s" % (fmt, "-".join(o.strip("-") for o in opts) or "plain", fmt))
            p = rg.cairn(binary, "convert", logs, "--to", fmt, "-o", out if fmt != "fit" else out[:-4] + "-dir", *zargs, "--privacy-key", key, *opts, check=False)
            label = "convert %s %s" % (fmt, " ".join(opts))
            if p.returncode != 0:
                print("%-48s exit %d: %s" % (label, p.returncode, p.stderr.strip().splitlines()[-1][:120]))
                continue
            outs = sorted(glob.glob(out[:-4] + "-dir/*.fit")) if fmt == "fit" else [out]
            for o in outs:
                check(label + (" " + os.path.basename(o)[-14:] if len(outs) > 1 else ""), o, fit=fmt == "fit")
    stick = os.path.join(d, "stick")
    rg.cairn(binary, "export", "--dir", logs, "--to", stick, "--format", "gpx,fit,geojson,kml,csv", *zargs, "--config", "none")
    for f in sorted(glob.glob(stick + "/**/*", recursive=True)):
        if os.path.isfile(f):
            check("export " + os.path.relpath(f, stick), f, fit=f.endswith(".fit"))
    names = " ".join(os.path.basename(f) for f in glob.glob(stick + "/gpx/*"))
    print("export file names:", names)
    for t in range(1, 8):
        svg = os.path.join(d, "r%d.svg" % t)
        p = rg.cairn(binary, "render", logs, "--trip", str(t), "-o", svg, *zargs, check=False)
        if p.returncode != 0:
            print("render %d: exit %d %s" % (t, p.returncode, p.stderr.strip()[:200]))
        for args in (["info", str(t), "--dir", logs, "--why"], ["info", str(t), "--dir", logs, "--json"]):
            p = rg.cairn(binary, *args, *zargs, check=False)
            check(" ".join(args[:1] + args[3:]) + " trip %d" % t, text=p.stdout)
    for prec in ("5", "6", "7"):
        p = rg.cairn(binary, "cells", logs, "--precision", prec, "--to", "geojson", *zargs)
        g = json.loads(p.stdout)
        touching = 0
        for f in g["features"]:
            ring = f["geometry"]["coordinates"][0]
            lons, lats = [c[0] for c in ring], [c[1] for c in ring]
            for z, rr in zones:
                la = min(max(z[0], min(lats)), max(lats))
                lo = min(max(z[1], min(lons)), max(lons))
                if rg.metres((la, lo), z) <= rr:
                    touching += 1
        print("cells precision %s: %d cells, %d touching an asked disc" % (prec, len(g["features"]), touching))
    p = rg.cairn(binary, "list", logs, "--json")
    check("list --json (no zones option)", text=p.stdout)
    print("index files left:", sorted(os.path.basename(x) for x in glob.glob(logs + "/.cairn-cells*")))
    print("work dir:", d)


if __name__ == "__main__":
    main()
