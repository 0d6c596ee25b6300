#!/usr/bin/env python3
"""Edits of a zone never make a second cut beside the first (issue 38, attack-zones REPRO C).

    python3 Tests/crash/privacy-zones/nest-check.py BIN [--homes 0-5] [--rides 10] [--keys 4]
    python3 Tests/crash/privacy-zones/nest-check.py BIN --against OLD_BIN ...   (an upgrade: BIN's
        cut of each zone must hold OLD_BIN's, so rides published before show nothing new)

For each home of street-attack.py's world (its own street grid and rides), each of a few keys
and each zone radius, the zone is edited by metres or a few per cent (radius +-1 m, +-3 %,
+-10 %, x2; centre moved 3, 8 and 20 m, and r / 10, in several directions; both at once) and
both versions are cut by the binary (`convert --to csv`). The two cuts must nest: one of them
publishes every point the other does (per trip, the same way for every trip). Prints a line per
radius and the edits that did not nest; exit 1 when any did not.
"""
import argparse, math, os, random, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ridegen  # noqa: E402

spec = __import__("importlib.util").util.spec_from_file_location("street_attack", os.path.join(HERE, "street-attack.py"))
sa = __import__("importlib.util").util.module_from_spec(spec)
spec.loader.exec_module(sa)


def published(binary, d, key, zone):
    lat, lon, r = zone
    p = subprocess.run([binary, "convert", d, "--to", "csv", "--config", "none", "--privacy-zone", "%.7f,%.7f,%g" % (lat, lon, r),
                        "--privacy-key", key], capture_output=True, text=True, timeout=600)
    if p.returncode != 0 and "no trip with points" not in p.stderr:
        raise SystemExit("convert failed: %s" % p.stderr)
    lines = p.stdout.split("\n") if p.returncode == 0 else ["trip,time,lat,lon"]
    head = lines[0].split(",")
    ti, tm = head.index("trip"), head.index("time")
    out = {}
    for line in lines[1:]:
        if line:
            c = line.split(",")
            out.setdefault(c[ti], set()).add(c[tm])
    return out


def relation(a, b):
    """'=' when the same, '<' when a publishes a subset of b's (a cuts more), '>' the other way,
    'x' when each publishes a point the other hides."""
    more_a = more_b = False
    for t in set(a) | set(b):
        pa, pb = a.get(t, set()), b.get(t, set())
        more_a |= bool(pa - pb)
        more_b |= bool(pb - pa)
    return "x" if more_a and more_b else ">" if more_a else "<" if more_b else "="


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--homes", default="0-5")
    ap.add_argument("--rides", type=int, default=10)
    ap.add_argument("--keys", type=int, default=4)
    ap.add_argument("--radii", default="100,180,200,360,500,510")
    ap.add_argument("--against", metavar="OLD_BIN",
                    help="instead of edits: the same zone cut by an older cairn; BIN's cut must hold it (publish no point it hid)")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.homes.split("-"))
    M = 6_371_008.8 * math.pi / 180
    bad = 0
    for home in range(lo, hi + 1):
        w = sa.world(home)
        rides_ = sa.rides(w, a.rides, home)
        d = tempfile.mkdtemp(prefix="cairn-nest-")
        rnd = random.Random(home)
        for k, P in enumerate(rides_):
            t0 = ridegen.T0 + k * 86_400_000
            fixes = [(t0 + i * 1000,) + ridegen.to_ll(x, y) for i, (x, y) in enumerate(P)]
            ridegen.write_log(os.path.join(d, "%08d.cairn" % (k + 1)), k + 1, rnd.getrandbits(32), fixes)
        hlat, hlon = ridegen.HOME
        for keyseed in range(a.keys):
            key = os.path.join(d, "key%d" % keyseed)
            with open(key, "wb") as f:
                f.write(random.Random(7000 + 31 * home + keyseed).getrandbits(128).to_bytes(16, "little"))
            os.chmod(key, 0o600)
            for r in [float(x) for x in a.radii.split(",")]:
                def moved(east, north, radius):
                    return (hlat + north / M, hlon + east / (M * math.cos(math.radians(hlat))), radius)
                edits = [moved(0, 0, r + 1), moved(0, 0, r - 1), moved(0, 0, r * 1.03), moved(0, 0, r * 0.97), moved(0, 0, r * 1.1),
                         moved(0, 0, r * 0.9), moved(0, 0, 2 * r)]
                for dist in (3, 8, 20, 0.099 * r):
                    for ang in (0, 1.3, 2.6, 3.9, 5.2):
                        edits.append(moved(dist * math.sin(ang), dist * math.cos(ang), r))
                edits += [moved(5, -5, r + 1), moved(-0.05 * r, 0.05 * r, r * 1.05), moved(0.07 * r, 0, r * 0.95)]
                base = published(a.bin, d, key, (hlat, hlon, r))
                if a.against:
                    rel = relation(base, published(a.against, d, key, (hlat, hlon, r)))
                    bad += rel in "x>"
                    print("home %d key %d r %4g: against the older cut: %s" % (home, keyseed, r, {
                        "=": "the same", "<": "cuts more (holds it)", ">": "cuts less", "x": "beside it (not nested)"}[rel]), flush=True)
                    continue
                counts = {"=": 0, "<": 0, ">": 0, "x": 0}
                for z in edits:
                    rel = relation(base, published(a.bin, d, key, z))
                    counts[rel] += 1
                    if rel == "x":
                        bad += 1
                        print("  home %d key %d r %g: edit %.7f,%.7f,%g is a second cut beside the first" % (home, keyseed, r, *z), flush=True)
                print("home %d key %d r %4g: %d edits: %d the same cut, %d cut more, %d cut less, %d beside (not nested)"
                      % (home, keyseed, r, len(edits), counts["="], counts[">"], counts["<"], counts["x"]), flush=True)
        subprocess.run(["rm", "-rf", d])
    print("not nested: %d" % bad)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
