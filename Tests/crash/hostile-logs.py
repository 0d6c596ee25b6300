#!/usr/bin/env python3
"""python3 Tests/crash/hostile-logs.py REPO CAIRN_BIN N

Random CRC-valid hostile logs against the readers: each file is a trip whose good records
surround type-7 records with random structure-valid headers (random bases, steps, Rice
parameters and bit streams: arbitrary 64-bit values in every field). Every command must exit
normally, every output must pass the independent readers."""
import json, os, random, struct, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1] + "/Tests/crash")
import cairnlog
REPO, BIN, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
CHECK = REPO + "/Tests/tools/check-export.py"
SCHEMA = REPO + "/Tests/Fixtures/schemas/gpx.xsd"

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(v): return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
def crc32c_std(data):
    return cairnlog.crc32c(data) ^ 0xFFFFFFFF
def mask(c):
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
def frame(salt, t, payload):
    n = len(payload)
    covered = struct.pack("<HB", n, t) + payload
    reg = cairnlog.crc32c(struct.pack("<I", salt))
    c = cairnlog.crc32c(covered, reg) ^ 0xFFFFFFFF
    return struct.pack("<I", mask(c)) + covered
def header(salt, trip):
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, 0)
    return h + struct.pack("<I", crc32c_std(h))

T0 = 1748764800000
def good(i):  # one plausible point, n = 1: bases only
    fields = 0b1111
    b = varint(1) + b"\0" + varint(fields) + varint(0)
    for v in (T0 + i * 1000, 470000000 + i * 300, 85000000 + i * 300, 3): b += varint(zz(v))
    return b
def hostile(r):
    n = r.randint(1, 40)
    plausible = r.random() < 0.5  # a possible time and position, random everything else
    fields = 0b111 | (r.getrandbits(11) << 3)
    b = varint(n) + bytes([r.randint(0, 1)]) + varint(fields) + varint(0)
    for f in range(14):
        if not fields >> f & 1: continue
        pick = r.random()
        if plausible and f < 3:
            base = (T0 + 4500, 470000000 + 1350, 85000000 + 1350)[f]
            b += varint(zz(base))
            if n >= 2: b += varint(0)
            continue
        if pick < 0.4: base = r.randint(-2**63, 2**63 - 1)
        elif f == 0: base = T0 + r.randint(-10**12, 10**13)
        elif f in (1, 2): base = r.randint(-2 * 10**9, 2 * 10**9)
        else: base = r.randint(-10**7, 10**7)
        b += varint(zz(base))
        if n >= 2:
            step = r.choice([0, 1, r.randint(1, 1000), r.randint(1, 2**62)])
            b += varint(step)
            if step: b += bytes([r.randint(0, 62)])
    b += bytes(r.getrandbits(8) for _ in range(r.randint(0, n * 20)))
    return b

def run(args):
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if p.returncode < 0 or p.returncode not in (0, 1, 2, 3):
        raise SystemExit("FAIL %r: exit %d\n%s" % (args, p.returncode, p.stderr[-2000:]))
    return p

stats = {"files": 0, "verify": {}, "outputs_checked": 0, "points": 0}
for seed in range(N):
    r = random.Random(seed)
    d = tempfile.mkdtemp(prefix="cairn-attack-")
    salt = r.getrandbits(32)
    data = header(salt, 1)
    seq = 0
    def add(t, body):
        global data, seq
        seq += 1
        data += frame(salt, t, varint(seq) + body)
    add(1, varint(4) + b"ride" + varint(6) + b"attack")
    add(2, bytes([0, 0]))
    for i in range(5): add(7, good(i))
    for k in range(r.randint(1, 6)): add(7, hostile(r))
    for i in range(5, 10): add(7, good(i))
    open(d + "/00000001.cairn", "wb").write(data)
    stats["files"] += 1
    v = run(["verify", d]).returncode
    stats["verify"][v] = stats["verify"].get(v, 0) + 1
    l = run(["list", d, "--json"])
    trips = json.loads(l.stdout)
    assert l.returncode == 0, l.stderr
    pts = trips[0]["points"] if trips else 0
    stats["points"] += pts
    if pts < 10:  # a crafted record with a possible but later time (2057) hides what follows
        stats.setdefault("good_points_hidden_by_a_later_dated_record", []).append((seed, 10 - pts))
    stats.setdefault("trips_with_hostile_point", 0)
    stats["trips_with_hostile_point"] += pts > 10  # the good points always survive
    for fmt in ("gpx", "fit", "geojson", "kml", "csv"):
        out = d + ("/fit" if fmt == "fit" else "/o." + fmt)
        c = run(["convert", d, "--to", fmt, "-o", out])
        assert c.returncode == 0, (seed, fmt, c.stderr)
        files = [out + "/" + f for f in os.listdir(out)] if fmt == "fit" else [out]
        for f in files:
            args = ["python3", CHECK, fmt, f] + (["--gpx-schema", SCHEMA] if fmt == "gpx" else [])
            p = subprocess.run(args, capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit("FAIL seed %d %s rejected: %s" % (seed, fmt, p.stderr[-1500:]))
            stats["outputs_checked"] += 1
    subprocess.run(["rm", "-rf", d])
print(json.dumps(stats))
