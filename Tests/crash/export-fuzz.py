#!/usr/bin/env python3
"""python3 Tests/crash/export-fuzz.py REPO CAIRN_BIN N [SEED0]

Round 8 of the attacks (RESULTS.md): random hostile trips (0-3 points, equal and backward
times, one point per segment, runs of segment starts of every reason, far jumps, the
antimeridian, the pole) written by a log writer of its own (framing and CRCs from
LOG_FORMAT.md, one compact-points record a point), converted to every format with laps
(pause, none, 1km, 0.01km, 5mi) and privacy zones (none, 1 m to 5 km around a point, 50 km
around the start). Every output must pass check-export.py, FIT and GPX also check-strava.py,
and the logs must stay byte for byte. Prints each failure and a count."""
import json, os, random, subprocess, sys, tempfile, hashlib, shutil, struct, math
REPO, BIN, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
seed0 = int(sys.argv[4]) if len(sys.argv) > 4 else 0
sys.path.insert(0, REPO + "/Tests/crash")
import cairnlog
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(v): return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
def mask(c): return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
def frame(salt, t, payload):
    covered = struct.pack("<HB", len(payload), t) + payload
    c = cairnlog.crc32c(covered, cairnlog.crc32c(struct.pack("<I", salt))) ^ 0xFFFFFFFF
    return struct.pack("<I", mask(c)) + covered
def header(salt, trip, part):
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, part)
    return h + struct.pack("<I", cairnlog.crc32c(h) ^ 0xFFFFFFFF)
FIELDS = [("t",0,1),("lat",1,1e7),("lon",2,1e7),("mode",3,1),("alt",4,100),("eph",6,100),("epv",9,100),("speed",10,1000),("track",11,100),("climb",12,1000),("pres",13,10),("temp",14,100)]
def point(t, lat, lon, x):
    vals = {"t": t, "lat": lat, "lon": lon, "mode": x.get("mode", 3)}
    vals.update(x)
    fields = 0; body = b""
    for name, bit, scale in FIELDS:
        if name in vals and vals[name] is not None:
            fields |= 1 << bit
            body += varint(zz(int(round(vals[name] * scale))))
    return varint(1) + b"\0" + varint(fields) + varint(0) + body
def build(trip, spec):
    salt = spec.get("salt", 0x12345678)
    data = header(salt, trip, spec.get("part", 0))
    seq = spec.get("seq0", 0)
    def add(t, body):
        nonlocal data, seq
        seq += 1
        data += frame(salt, t, varint(seq) + body)
    if spec.get("start", True):
        act = spec.get("activity", "ride").encode()
        ts = varint(len(act)) + act + varint(6) + b"attack"
        if "offset" in spec: ts += b"\x01" + varint(zz(spec["offset"]))
        add(1, ts)
    for e in spec["events"]:
        if e[0] == "seg": add(2, bytes([e[1], 0]))
        elif e[0] == "pt": add(7, point(e[1], e[2], e[3], e[4] if len(e) > 4 else {}))
        elif e[0] == "end": add(6, bytes([0]) + varint(0) + varint(0) + varint(0) + b"\0")
    return data
CHECK = REPO + "/Tests/tools/check-export.py"; STRAVA = REPO + "/Tests/tools/check-strava.py"
SCHEMA = REPO + "/Tests/Fixtures/schemas/gpx.xsd"
T0 = 1748764800000
def trip(r):
    kind = r.choice(["normal", "tiny", "sametime", "onepointsegs", "far", "antimeridian", "pole", "manyseg", "zigzag"])
    ev = []; t = T0 + r.randint(0, 10**9); lat = r.uniform(-60, 60); lon = r.uniform(-179, 179)
    if kind == "antimeridian": lon = 179.99; 
    if kind == "pole": lat = 89.99
    n = {"tiny": r.randint(0, 3)}.get(kind, r.randint(1, 300))
    ev.append(["seg", 0])
    for i in range(n):
        if kind == "onepointsegs" or (kind == "manyseg" and r.random() < 0.2) or r.random() < 0.03:
            ev.append(["seg", r.choice([1, 2, 2, 3, 4, 5, 255])])
        dt = 1000
        if kind == "sametime" and r.random() < 0.5: dt = 0
        if r.random() < 0.05: dt = r.choice([-5000, 0, 2000, 60000, 3600000])
        t += dt
        step = r.uniform(0, 10) / 111195
        if kind == "far" and r.random() < 0.1: step = r.uniform(0.1, 20)
        if kind == "zigzag": step = r.choice([-1, 1]) * step
        lat = max(-90, min(90, lat + step * r.choice([0, 1, -1])))
        lon = lon + step * r.choice([1, 1, 0, -1]) / max(0.01, abs(math.cos(lat / 57.29578)))
        if lon > 180: lon -= 360
        if lon < -180: lon += 360
        x = {}
        if r.random() < 0.8: x["alt"] = r.uniform(-100, 3000) if r.random() < 0.05 else 400 + i * 0.1; x["epv"] = 3
        if r.random() < 0.8: x["speed"] = r.uniform(0, 20)
        if r.random() < 0.3: x["pres"] = 95000 + r.uniform(-100, 100); x["temp"] = 20
        ev.append(["pt", t, lat, lon, x])
    if r.random() < 0.7: ev.append(["end"])
    return kind, {"activity": r.choice(["ride", "run", "walk", "drive", "x"]), "events": ev}
def run(args, ok=(0, 1)):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if p.returncode not in ok: raise SystemExit("FAIL %r: exit %d\n%s" % (args, p.returncode, p.stderr[-2000:]))
    return p
def h(d): return {f: hashlib.sha256(open(d + "/" + f, "rb").read()).hexdigest() for f in os.listdir(d) if f.endswith(".cairn")}
fails = 0
for seed in range(seed0, seed0 + N):
    r = random.Random(seed)
    d = tempfile.mkdtemp(prefix="att-"); logs = d + "/logs"; os.mkdir(logs)
    # --privacy-key names an existing key (cairn never makes one there).
    with open(d + "/key", "wb") as kf: kf.write(random.Random(-seed).getrandbits(128).to_bytes(16, "little"))
    os.chmod(d + "/key", 0o600)
    kinds = []
    for k in range(r.randint(1, 3)):
        kind, s = trip(r); kinds.append(kind)
        open(logs + "/%08d.cairn" % (k + 1), "wb").write(build(k + 1, s))
    before = h(logs)
    pts = [e for e in s["events"] if e[0] == "pt"]
    zones = [None]
    if pts:
        p = r.choice(pts); zones.append("%.6f,%.6f,%d" % (p[2], p[3], r.choice([1, 50, 500, 5000])))
        zones.append("%.6f,%.6f,50000" % (pts[0][2], pts[0][3]))
    for laps in ["pause", "none", "1km", "0.01km", "5mi"]:
        for z in zones:
            for fmt in ["gpx", "fit", "geojson", "kml", "csv"]:
                out = d + ("/fit" if fmt == "fit" else "/o." + fmt)
                shutil.rmtree(d + "/fit", ignore_errors=True)
                if os.path.exists(out) and fmt != "fit": os.unlink(out)
                args = ["convert", logs, "--to", fmt, "-o", out, "--laps", laps] + (["--privacy-zone", z, "--privacy-key", d + "/key"] if z else [])
                c = run(args)
                if c.returncode != 0:
                    if "nothing written" in c.stderr or "no points" in c.stderr: continue
                    print("seed", seed, kinds, args, "rc", c.returncode, c.stderr[-500:]); fails += 1; continue
                files = [out + "/" + f for f in os.listdir(out)] if fmt == "fit" else [out]
                for f in files:
                    cargs = ["python3", CHECK, fmt, f] + (["--gpx-schema", SCHEMA] if fmt == "gpx" else [])
                    p = subprocess.run(cargs, capture_output=True, text=True)
                    if p.returncode != 0:
                        print("seed", seed, kinds, args, "check-export:", p.stderr[-600:]); fails += 1
                    if fmt in ("fit", "gpx"):
                        p = subprocess.run(["python3", STRAVA, fmt, f], capture_output=True, text=True)
                        if p.returncode != 0:
                            print("seed", seed, kinds, args, "check-strava:", (p.stdout + p.stderr)[-600:]); fails += 1
    if h(logs) != before: print("seed", seed, "LOGS CHANGED"); fails += 1
    shutil.rmtree(d)
print("done", N, "fails", fails)
