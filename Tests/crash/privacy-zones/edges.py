#!/usr/bin/env python3
"""Zones at the antimeridian and the poles: rides out of and back into home there, converted to
csv with the zone; any written point inside the asked disc (or the nearest one) is printed.

    python3 edges.py CAIRN_BIN"""
import math, os, random, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridegen as rg  # noqa: E402

R = 6371008.8


def hav(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * R * math.asin(min(1, math.sqrt(h)))


def dest(home, e, n):
    """A point e, n metres from home, on the sphere (azimuthal: bearing and distance)."""
    d = math.hypot(e, n) / R
    b = math.atan2(e, n)
    la1, lo1 = math.radians(home[0]), math.radians(home[1])
    la2 = math.asin(math.sin(la1) * math.cos(d) + math.cos(la1) * math.sin(d) * math.cos(b))
    lo2 = lo1 + math.atan2(math.sin(b) * math.sin(d) * math.cos(la1), math.cos(d) - math.sin(la1) * math.sin(la2))
    lo = (math.degrees(lo2) + 540) % 360 - 180
    return math.degrees(la2), lo


def main():
    binary = sys.argv[1]
    cases = [("antimeridian E", (10.0, 179.9995), 500), ("antimeridian W", (-33.0, -179.9999), 1000),
             ("north pole", (89.9995, 20.0), 500), ("south pole", (-89.999, -120.0), 1000), ("on the pole", (90.0, 0.0), 300)]
    for name, home, r in cases:
        rnd = random.Random(7)
        rides = []
        for k in range(6):
            en = rg.zcf.ride(rnd, 3 * r + 500, rg.T0 + k * 86_400_000)
            # ride() gives lat/lon around Zurich; take back its metres and place them around `home`.
            rides.append([(t, *dest(home, *rg.to_en(la, lo))) for t, la, lo in en])
        d = tempfile.mkdtemp(prefix="cairn-edge-")
        rg.write_rides(d, rides, 7)
        key = rg.key_file(d, 7)
        zone = "%.7f,%.7f,%g" % (home[0], home[1], r)
        worst = None
        for extra in ([], ["--smooth"], ["--fill-gaps"], ["--raw"]):
            p = rg.cairn(binary, "convert", d, "--to", "csv", "--privacy-zone", zone, "--privacy-key", key, *extra, check=False)
            if p.returncode != 0:
                print("%s %s: exit %d %s" % (name, extra, p.returncode, p.stderr.strip()[:200]))
                continue
            tr = rg.csv_tracks(p.stdout)
            pts = [(float(c["lat"]), float(c["lon"])) for t in tr for c in tr[t]]
            n_in = sum(1 for q in pts if hav(q, home) <= r)
            near = min((hav(q, home) for q in pts), default=float("nan"))
            print("%-15s r=%5g %-14s written %6d, inside the asked disc %d, nearest %.0f m (%.2f r)" % (
                name, r, " ".join(extra) or "plain", len(pts), n_in, near, near / r))
            # every longitude in range
            bad = [q for q in pts if not (-180 <= q[1] <= 180 and -90 <= q[0] <= 90)]
            if bad:
                print("   out-of-range coordinates:", bad[:3])


if __name__ == "__main__":
    main()
