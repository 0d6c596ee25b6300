#!/usr/bin/env python3
"""The centre-fitting attack on privacy zones (issue 27, finding 2), against the cairn binary.

    python3 Tests/crash/zone-centre-fit.py CAIRN_BIN [--radii 200,500,1000] [--rides 5,10,20]
                                           [--seeds 3] [--json]
    python3 Tests/crash/zone-centre-fit.py CAIRN_BIN --make DIR --rides 1 [--stop-at-home S]
                                           [--jitter M] [--radius R]

Writes rides that leave home and come back, each in its own directions (one log file per
trip, its own trip id and salt), converts them with `--privacy-zone HOME,R` and a fixed key,
and fits a circle (algebraic least squares, Kasa) through the first and the last written point
of 5, 10 and 20 rides: the fitted centre is the attacker's estimate of home. Prints the error in
metres and as a share of R (the worst and the median over the seeds). Before the keyed offset,
the cut was a circle around home and the estimate fell within a few metres.

--make only writes the logs (for the end-to-end tests): with --stop-at-home S a ride comes
home half way, stands S seconds and leaves again; with --jitter M every other fix is M metres
ahead of where the rider is (the smoother pulls it back)."""
import argparse, json, math, os, random, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cairnlog  # noqa: E402

HOME = (47.3769, 8.5417)
T0 = 1748764800000
M_PER_DEG = 6371008.8 * math.pi / 180


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zz(v):
    return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF


def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(salt, t, payload):
    covered = struct.pack("<HB", len(payload), t) + payload
    c = cairnlog.crc32c(covered, cairnlog.crc32c(struct.pack("<I", salt))) ^ 0xFFFFFFFF
    return struct.pack("<I", mask(c)) + covered


def header(salt, trip):
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, 0)
    return h + struct.pack("<I", cairnlog.crc32c(h) ^ 0xFFFFFFFF)


def write_log(path, trip, salt, fixes):
    """fixes: [(t_ms, lat, lon)]: one trip, one segment, closed by a trip end."""
    data = header(salt, trip)
    seq = 0

    def add(t, body):
        nonlocal data, seq
        seq += 1
        data += frame(salt, t, varint(seq) + body)

    add(1, varint(4) + b"ride" + varint(10) + b"zone-fit 1")
    add(2, bytes([0, 0]))
    for t, lat, lon in fixes:  # compact points, one a record: bases only (time, lat, lon, mode)
        b = varint(1) + b"\0" + varint(0b1111) + varint(0)
        for v in (t, round(lat * 1e7), round(lon * 1e7), 3):
            b += varint(zz(v))
        add(7, b)
    dist = sum(metres(fixes[i - 1][1:], fixes[i][1:]) for i in range(1, len(fixes)))
    body = bytes([0]) + varint(len(fixes)) + varint(int(dist * 100)) + varint(fixes[-1][0] - fixes[0][0]) + bytes([3])
    body += varint(zz(fixes[0][0])) + varint(zz(fixes[-1][0]))
    add(6, body)
    with open(path, "wb") as f:
        f.write(data)


def metres(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(min(1, math.sqrt(h)))


def to_ll(e, n):
    return HOME[0] + n / M_PER_DEG, HOME[1] + e / (M_PER_DEG * math.cos(math.radians(HOME[0])))


def to_en(lat, lon):
    return (lon - HOME[1]) * M_PER_DEG * math.cos(math.radians(HOME[0])), (lat - HOME[0]) * M_PER_DEG


def ride(rnd, reach, t0, stop_at_home=0, jitter=0.0):
    """Out from home on one bearing to `reach` metres, across, and back on another: 6 m/s, 1 Hz,
    a little wander. With stop_at_home: home half way, standing that long, then out again."""
    out_b, back_b = rnd.uniform(0, 2 * math.pi), rnd.uniform(0, 2 * math.pi)
    pts = []

    def leg(b_from, r_from, b_to, r_to):
        (x0, y0), (x1, y1) = polar(b_from, r_from), polar(b_to, r_to)
        n = max(1, int(math.hypot(x1 - x0, y1 - y0) / 6))
        for i in range(n):
            s = i / n
            pts.append((x0 + (x1 - x0) * s + rnd.gauss(0, 1.5), y0 + (y1 - y0) * s + rnd.gauss(0, 1.5), (x1 - x0) / n, (y1 - y0) / n))

    def polar(b, r):
        return r * math.sin(b), r * math.cos(b)

    def arc(b_from, r, b_to):
        """Round at `r` metres from home, the short way: never through the zone."""
        span = (b_to - b_from + math.pi) % (2 * math.pi) - math.pi
        n = max(1, int(abs(span) * r / 6))
        for i in range(n):
            b = b_from + span * i / n
            x, y = polar(b, r)
            (nx, ny) = polar(b + span / n, r)
            pts.append((x + rnd.gauss(0, 1.5), y + rnd.gauss(0, 1.5), nx - x, ny - y))

    leg(out_b, 0, out_b, reach)
    arc(out_b, reach, back_b)
    leg(back_b, reach, back_b, 0)
    if stop_at_home:
        for _ in range(stop_at_home):  # standing at the door, the position wandering a little
            pts.append((rnd.gauss(0, 2), rnd.gauss(0, 2), 0, 0))
        mid = rnd.uniform(0, 2 * math.pi)
        leg(mid, 0, mid, reach)
        arc(mid, reach, out_b)
        leg(out_b, reach, out_b, 0)
    fixes = []
    for i, (x, y, dx, dy) in enumerate(pts):
        if jitter and i % 2 == 0 and (dx or dy):
            k = jitter / math.hypot(dx, dy)
            x, y = x + dx * k, y + dy * k
        lat, lon = to_ll(x, y)
        fixes.append((t0 + i * 1000, lat, lon))
    return fixes


def make(d, rides, radius, seed, stop_at_home=0, jitter=0.0):
    rnd = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    for k in range(rides):
        # Far enough to leave the cut: a disc up to about 12 r around a square's centre up to
        # 8.5 r from home, and the reach (about 30 r in all; twice that for the one zone in ten cut
        # a class up).
        fixes = ride(rnd, 40 * radius + 1500, T0 + k * 86_400_000, stop_at_home, jitter)
        write_log(os.path.join(d, "%08d.cairn" % (k + 1)), k + 1, rnd.getrandbits(32), fixes)


def fit(points):
    """Kasa: x² + y² + D x + E y + F = 0 by least squares; returns (cx, cy, r)."""
    s = [[0.0] * 4 for _ in range(3)]
    for x, y in points:
        row, z = (x, y, 1.0), -(x * x + y * y)
        for i in range(3):
            for j in range(3):
                s[i][j] += row[i] * row[j]
            s[i][3] += row[i] * z
    for c in range(3):  # Gauss-Jordan with partial pivoting
        p = max(range(c, 3), key=lambda r: abs(s[r][c]))
        s[c], s[p] = s[p], s[c]
        for r in range(3):
            if r != c:
                f = s[r][c] / s[c][c]
                s[r] = [a - f * b for a, b in zip(s[r], s[c])]
    D, E, F = (s[i][3] / s[i][i] for i in range(3))
    cx, cy = -D / 2, -E / 2
    return cx, cy, math.sqrt(max(cx * cx + cy * cy - F, 0))


def ends(binary, d, zone, key):
    p = subprocess.run([binary, "convert", d, "--to", "csv", "--privacy-zone", zone] + (["--privacy-key", key] if key else []),
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit("convert failed: %s" % p.stderr)
    first, last = {}, {}
    head = p.stdout.split("\n")[0].split(",")
    ti, la, lo = head.index("trip"), head.index("lat"), head.index("lon")
    for line in p.stdout.split("\n")[1:]:
        if not line:
            continue
        c = line.split(",")
        t = c[ti]
        first.setdefault(t, (float(c[la]), float(c[lo])))
        last[t] = (float(c[la]), float(c[lo]))
    return [first[t] for t in sorted(first, key=int)], [last[t] for t in sorted(last, key=int)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--radii", default="200,500,1000")
    ap.add_argument("--rides", default="5,10,20")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--no-key", action="store_true", help="for cairn before 0.4, which had no --privacy-key")
    ap.add_argument("--make")
    ap.add_argument("--radius", type=float, default=500)
    ap.add_argument("--stop-at-home", type=int, default=0)
    ap.add_argument("--jitter", type=float, default=0.0)
    a = ap.parse_args()
    if a.make:
        make(a.make, int(a.rides.split(",")[0]), a.radius, a.seed, a.stop_at_home, a.jitter)
        return
    counts = [int(x) for x in a.rides.split(",")]
    results = []
    for r in (float(x) for x in a.radii.split(",")):
        per = {n: [] for n in counts}
        for seed in range(a.seed, a.seed + a.seeds):
            d = tempfile.mkdtemp(prefix="cairn-zonefit-")
            make(d, max(counts), r, seed)
            key = os.path.join(d, "key")
            with open(key, "wb") as f:
                f.write(random.Random(1000 + seed).getrandbits(128).to_bytes(16, "little"))
            os.chmod(key, 0o600)
            firsts, lasts = ends(a.binary, d, "%f,%f,%g" % (HOME[0], HOME[1], r), None if a.no_key else key)
            for n in counts:
                pts = [to_en(*p) for p in firsts[:n] + lasts[:n]]
                cx, cy, fr = fit(pts)
                nearest = min(math.hypot(x, y) for x, y in pts)
                per[n].append({"error_m": math.hypot(cx, cy), "fitted_radius_m": fr, "nearest_written_m": nearest})
        for n in counts:
            errs = sorted(x["error_m"] for x in per[n])
            results.append({
                "radius_m": r, "rides": n, "seeds": a.seeds,
                "error_min_m": errs[0], "error_median_m": errs[len(errs) // 2], "error_max_m": errs[-1],
                "error_min_share": errs[0] / r,
                "nearest_written_m": min(x["nearest_written_m"] for x in per[n]),
            })
    if a.json:
        print(json.dumps(results))
        return
    print("radius  rides  home estimate error: min / median / max (m)   min/r  nearest written point (m)")
    for x in results:
        print("%6g  %5d  %10.0f / %6.0f / %6.0f %14.2f  %10.0f" % (
            x["radius_m"], x["rides"], x["error_min_m"], x["error_median_m"], x["error_max_m"],
            x["error_min_share"], x["nearest_written_m"]))


if __name__ == "__main__":
    main()
