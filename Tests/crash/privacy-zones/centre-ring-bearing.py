#!/usr/bin/env python3
"""Beyond the circle fit: what the keyed cut still gives away (round 10, attack-zones).

    python3 centre-ring-bearing.py CAIRN_BIN [--radii 200,500,1000] [--rides 5,10,20] [--seeds 3]
                                   [--kind radial|realistic]

1. Fit a circle through every ride's first and last written point (as zone-centre-fit.py): the
   cut's centre C.
2. The ring: each ride's cut radius is (roughly) the distance from C to its first/last written
   point. They are spread uniformly over [r+|o|+1, r+|o|+1+r/2], so over many rides
   r ~ 2 (max - min) and |o| ~ min - r - 1: home lies on a circle of known radius around C
   (Sources/CairnExport/Stages/PRIVACY.md says the ring's radius stays secret).
3. The bearings: each ride's first written points head away from home (its last ones towards
   it); the lines back through them meet near home. Least squares of the line distances, then
   the same restricted to the ring.
Prints the error of each estimate in metres."""
import argparse, math, os, random, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ridegen as rg  # noqa: E402


def lines_point(lines):
    """Least-squares point nearest to lines given as (px, py, ux, uy) (u unit)."""
    a11 = a12 = a22 = b1 = b2 = 0.0
    for px, py, ux, uy in lines:
        # projector onto the normal: I - u u^T
        m11, m12, m22 = 1 - ux * ux, -ux * uy, 1 - uy * uy
        a11 += m11; a12 += m12; a22 += m22
        b1 += m11 * px + m12 * py; b2 += m12 * px + m22 * py
    det = a11 * a22 - a12 * a12
    if abs(det) < 1e-9:
        return None
    return ((a22 * b1 - a12 * b2) / det, (a11 * b2 - a12 * b1) / det)


def line_cost(x, y, lines):
    s = 0.0
    for px, py, ux, uy in lines:
        dx, dy = x - px, y - py
        s += (dx * uy - dy * ux) ** 2
    return s


def ring_point(cx, cy, rr, lines):
    best = None
    for k in range(3600):
        a = 2 * math.pi * k / 3600
        x, y = cx + rr * math.cos(a), cy + rr * math.sin(a)
        c = line_cost(x, y, lines)
        if best is None or c < best[0]:
            best = (c, x, y)
    return best[1], best[2]


def one(binary, kind, r, n, seed):
    rnd = random.Random(seed)
    d = tempfile.mkdtemp(prefix="cairn-crb-")
    rides = []
    for k in range(n):
        t0 = rg.T0 + k * 86_400_000
        if kind == "radial":
            rides.append(rg.zcf.ride(rnd, 3 * r + 500, t0))
        else:
            rides.append(rg.realistic(rnd, t0))
    rg.write_rides(d, rides, seed)
    key = rg.key_file(d, seed)
    p = rg.cairn(binary, "convert", d, "--to", "csv", "--privacy-zone", "%f,%f,%g" % (rg.HOME[0], rg.HOME[1], r),
                 "--privacy-key", key)
    tr = rg.csv_tracks(p.stdout)
    ends, lines = [], []
    for t in sorted(tr):
        en = [rg.to_en(float(c["lat"]), float(c["lon"])) for c in tr[t]]
        if len(en) < 12:
            continue
        ends += [en[0], en[-1]]
        for a, b in ((en[0], en[10]), (en[-1], en[-11])):
            dx, dy = a[0] - b[0], a[1] - b[1]
            l = math.hypot(dx, dy)
            if l > 1:
                lines.append((a[0], a[1], dx / l, dy / l))
    cx, cy, _ = rg.fit(ends)
    radii = [math.hypot(x - cx, y - cy) for x, y in ends]
    rmin, rmax = min(radii), max(radii)
    r_est = 2 * (rmax - rmin)
    off_est = rmin - r_est - 1
    hl = lines_point(lines)
    hr = ring_point(cx, cy, off_est, lines)
    return {
        "centre_err": math.hypot(cx, cy),
        "r_est": r_est, "off_est": off_est, "off_true": math.hypot(cx, cy),
        "lines_err": math.hypot(*hl) if hl else float("nan"),
        "ring_lines_err": math.hypot(*hr),
        "nearest": min(math.hypot(x, y) for x, y in ends),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--radii", default="200,500,1000")
    ap.add_argument("--rides", default="5,10,20")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--kind", default="radial")
    a = ap.parse_args()
    print("kind=%s" % a.kind)
    print("   r  rides seed | fit-centre err | r est  |o| est / true | lines err | ring+lines err | nearest written")
    for r in (float(x) for x in a.radii.split(",")):
        for n in (int(x) for x in a.rides.split(",")):
            for s in range(1, a.seeds + 1):
                x = one(a.binary, a.kind, r, n, s)
                print("%5g %5d %4d | %9.0f m    | %5.0f  %5.0f / %5.0f | %7.0f m | %9.0f m     | %6.0f m" % (
                    r, n, s, x["centre_err"], x["r_est"], x["off_est"], x["off_true"], x["lines_err"],
                    x["ring_lines_err"], x["nearest"]), flush=True)


if __name__ == "__main__":
    main()
