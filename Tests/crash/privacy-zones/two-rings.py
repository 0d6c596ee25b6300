#!/usr/bin/env python3
"""Two cuts of the same home: two keys (board vs laptop), or the same zone typed twice
(47.3769 vs 47.37691, or another radius). Each export gives its own cut centre C and ring
radius |o| (centre-ring-bearing.py's estimate); two rings meet in two points, one of them home.

    python3 two-rings.py CAIRN_BIN [--variant keys|zone-digits|zone-radius] [--rides 10] [--r 500]
                         [--seeds 5] [--kind radial|realistic]
Prints the error of the nearer of the two intersections (the attacker tries both)."""
import argparse, math, os, random, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridegen as rg  # noqa: E402


def centre_ring(binary, d, zone, key):
    p = rg.cairn(binary, "convert", d, "--to", "csv", "--privacy-zone", zone, "--privacy-key", key)
    tr = rg.csv_tracks(p.stdout)
    ends = []
    for t in sorted(tr):
        en = [rg.to_en(float(c["lat"]), float(c["lon"])) for c in tr[t]]
        ends += [en[0], en[-1]]
    cx, cy, _ = rg.fit(ends)
    radii = [math.hypot(x - cx, y - cy) for x, y in ends]
    r_est = 2 * (max(radii) - min(radii))
    return cx, cy, min(radii) - r_est - 1


def meet(c1, c2):
    (x1, y1, r1), (x2, y2, r2) = c1, c2
    d = math.hypot(x2 - x1, y2 - y1)
    if d == 0:
        return []
    a = (r1 * r1 - r2 * r2 + d * d) / (2 * d)
    h = math.sqrt(max(r1 * r1 - a * a, 0))  # rings that miss: the nearest point between them
    mx, my = x1 + a * (x2 - x1) / d, y1 + a * (y2 - y1) / d
    return [(mx + h * (y2 - y1) / d, my - h * (x2 - x1) / d), (mx - h * (y2 - y1) / d, my + h * (x2 - x1) / d)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--variant", default="keys")
    ap.add_argument("--rides", type=int, default=10)
    ap.add_argument("--r", type=float, default=500)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--kind", default="radial")
    a = ap.parse_args()
    r = a.r
    for s in range(1, a.seeds + 1):
        rnd = random.Random(s)
        d = tempfile.mkdtemp(prefix="cairn-2r-")
        rides = [rg.zcf.ride(rnd, 3 * r + 500, rg.T0 + k * 86_400_000) if a.kind == "radial" else rg.realistic(rnd, rg.T0 + k * 86_400_000)
                 for k in range(a.rides)]
        rg.write_rides(d, rides, s)
        k1 = rg.key_file(d, s)
        os.makedirs(d + "/k2", exist_ok=True)
        k2 = rg.key_file(d + "/k2", s + 100) if a.variant == "keys" else k1
        z1 = "%f,%f,%g" % (rg.HOME[0], rg.HOME[1], r)
        z2 = {"keys": z1, "zone-digits": "%.5f,%f,%g" % (rg.HOME[0] + 1e-5, rg.HOME[1], r),
              "zone-radius": "%f,%f,%g" % (rg.HOME[0], rg.HOME[1], r + 1)}[a.variant]
        c1 = centre_ring(a.binary, d, z1, k1)
        c2 = centre_ring(a.binary, d, z2, k2)
        cands = meet(c1, c2)
        err = min(math.hypot(x, y) for x, y in cands) if cands else float("nan")
        print("%s r=%g rides=%d seed=%d: centres %.0f m and %.0f m from home; nearer ring crossing %.0f m from home (%.2f r)" % (
            a.variant, r, a.rides, s, math.hypot(c1[0], c1[1]), math.hypot(c2[0], c2[1]), err, err / r), flush=True)


if __name__ == "__main__":
    main()
