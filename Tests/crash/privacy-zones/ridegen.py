#!/usr/bin/env python3
"""Shared helpers for the round-10 zone attacks: rides around one home, written as cairn logs.

    realistic(rnd, t0)  the Garmin Edge 810's real 78-minute road loop (Tests/Fixtures/real),
                        moved so it starts at HOME, turned by a random angle (and mirrored at
                        random): a real road start, not a straight line out of home.
    radial(...)         zone-centre-fit.py's synthetic ride (straight out and back).
Logs are written by zone-centre-fit.py's write_log (one trip a file, its own salt)."""
import importlib.util, math, os, random, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CRASH = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(CRASH))
sys.path.insert(0, CRASH)
spec = importlib.util.spec_from_file_location("zcf", os.path.join(CRASH, "zone-centre-fit.py"))
zcf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(zcf)

HOME = zcf.HOME
T0 = zcf.T0
write_log = zcf.write_log
to_ll, to_en, fit, metres = zcf.to_ll, zcf.to_en, zcf.fit, zcf.metres


def _nmea_deg(v, h):
    d = int(float(v) / 100)
    x = d + (float(v) - d * 100) / 60
    return -x if h in "SW" else x


_EDGE = None


def edge810_en():
    """The Edge 810 ride as (east, north) metres from its first fix, 1 Hz."""
    global _EDGE
    if _EDGE is None:
        pts = []
        for line in open(os.path.join(ROOT, "Tests/Fixtures/real/edge810.nmea")):
            if line.startswith("$GPRMC"):
                f = line.split(",")
                if f[2] == "A":
                    pts.append((_nmea_deg(f[3], f[4]), _nmea_deg(f[5], f[6])))
        la0, lo0 = pts[0]
        k = zcf.M_PER_DEG
        _EDGE = [((lo - lo0) * k * math.cos(math.radians(la0)), (la - la0) * k) for la, lo in pts]
    return _EDGE


def realistic(rnd, t0, home_en=(0.0, 0.0)):
    a = rnd.uniform(0, 2 * math.pi)
    m = rnd.choice((1, -1))
    ca, sa = math.cos(a), math.sin(a)
    out = []
    for i, (x, y) in enumerate(edge810_en()):
        x *= m
        e, n = x * ca - y * sa + home_en[0], x * sa + y * ca + home_en[1]
        lat, lon = to_ll(e, n)
        out.append((t0 + i * 1000, lat, lon))
    return out


def write_rides(d, fixes_list, seed=1):
    rnd = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    for k, fixes in enumerate(fixes_list):
        write_log(os.path.join(d, "%08d.cairn" % (k + 1)), k + 1, rnd.getrandbits(32), fixes)


def key_file(d, seed=1):
    p = os.path.join(d, "privacy-key")
    with open(p, "wb") as f:
        f.write(random.Random(1000 + seed).getrandbits(128).to_bytes(16, "little"))
    os.chmod(p, 0o600)
    return p


def cairn(binary, *args, check=True):
    p = subprocess.run([binary] + list(args), capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        raise SystemExit("cairn %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr))
    return p


def csv_tracks(text):
    """{trip: [(t_iso, lat, lon, row dict)]} from convert --to csv."""
    lines = text.split("\n")
    head = lines[0].split(",")
    out = {}
    for line in lines[1:]:
        if not line:
            continue
        c = dict(zip(head, line.split(",")))
        out.setdefault(int(c["trip"]), []).append(c)
    return out
