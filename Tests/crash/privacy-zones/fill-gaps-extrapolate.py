#!/usr/bin/env python3
"""--fill-gaps across a zone's edge: a dropout that starts near home (a garage, a tunnel by the
door) and ends outside the cut. The points cairn invents for the gap lie on a line (or a Hermite
curve) from the last fix before the dropout, at a constant pace: the written part of it can be
extrapolated back, in space and time, to that hidden fix.

    python3 fill-gaps-extrapolate.py CAIRN_BIN [--r 300] [--seeds 5]
Prints, per ride, the distance from the true hidden fix (and from home) to the extrapolated one."""
import math, os, random, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridegen as rg  # noqa: E402
from datetime import datetime, timezone


def ts(s):
    return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp() if "." not in s else \
        datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def main():
    binary = sys.argv[1]
    r = float(sys.argv[sys.argv.index("--r") + 1]) if "--r" in sys.argv else 300.0
    seeds = int(sys.argv[sys.argv.index("--seeds") + 1]) if "--seeds" in sys.argv else 5
    for s in range(1, seeds + 1):
        rnd = random.Random(s)
        b = rnd.uniform(0, 2 * math.pi)
        ux, uy = math.sin(b), math.cos(b)
        t0 = rg.T0 + s * 86_400_000
        fixes = []
        # 20 s from the door at 5 m/s (the last fix 100 m out), then 400 s of nothing, then 3 km on
        for i in range(21):
            fixes.append((t0 + i * 1000, *rg.to_ll(ux * 5 * i, uy * 5 * i)))
        hidden = (ux * 100, uy * 100, t0 / 1000 + 20)
        for i in range(600):
            dd = 100 + 5 * 400 + 5 * i
            fixes.append((t0 + (420 + i) * 1000, *rg.to_ll(ux * dd, uy * dd)))
        d = tempfile.mkdtemp(prefix="cairn-fg-")
        rg.write_rides(d, [fixes], s)
        key = rg.key_file(d, s)
        p = rg.cairn(binary, "convert", d, "--to", "csv", "--fill-gaps", "--privacy-zone",
                     "%f,%f,%g" % (rg.HOME[0], rg.HOME[1], r), "--privacy-key", key)
        tr = rg.csv_tracks(p.stdout)[1]
        pts = [(ts(c["time"]), *rg.to_en(float(c["lat"]), float(c["lon"]))) for c in tr]
        # the first two written points: invented ones if the fill crossed the cut
        (ta, xa, ya), (tb, xb, yb) = pts[0], pts[5]
        vx, vy = (xb - xa) / (tb - ta), (yb - ya) / (tb - ta)
        ex, ey = xa + vx * (hidden[2] - ta), ya + vy * (hidden[2] - ta)
        print("seed %d: first written point %.0f m from home at +%.0f s; extrapolated to the dropout's start time: "
              "%.1f m from the hidden fix, %.1f m from home; stderr: %s" % (
                  s, math.hypot(xa, ya), ta - t0 / 1000, math.hypot(ex - hidden[0], ey - hidden[1]), math.hypot(ex, ey),
                  p.stderr.strip().replace("\n", " | ")[:160]))


if __name__ == "__main__":
    main()
