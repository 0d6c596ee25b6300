#!/usr/bin/env python3
"""python3 Tests/crash/hostile-raw.py REPO CAIRN_BIN N

Random CRC-valid hostile raw fixes records (type 8, LOG_FORMAT.md section 7c) against the
read-side commands: each file is a trip with good points and good raw fixes around records
with random structure-valid fields (counts up to 65535 and beyond, huge varints, every
verdict code 0-255, random event bits and indexes, arrival lags of any size, fix times out of
order, back in 1970 or far ahead, positions and values out of range, unknown fields after
the points body) and truncated or garbled bodies; raw fixes records before the trip start
and in a second part file of the trip. `info --why` (text and JSON), `convert --refilter`
(with --activity, --close-after, --smooth, --laps), `convert --raw` to gpx and csv, `verify`
and `list` must exit normally (0, 1, 2 or 3, never a signal), JSON must parse, and the files
must be byte-identical afterwards (nothing read-side writes)."""
import hashlib, json, os, random, struct, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1] + "/Tests/crash")
sys.dont_write_bytecode = True
import cairnlog  # noqa: E402
T0 = 1748764800000
REPO, BIN, N = sys.argv[1], sys.argv[2], int(sys.argv[3])

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(v): return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
def crc32c_std(data): return cairnlog.crc32c(data) ^ 0xFFFFFFFF
def mask(c): return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
def frame(salt, t, payload):
    covered = struct.pack("<HB", len(payload), t) + payload
    c = cairnlog.crc32c(covered, cairnlog.crc32c(struct.pack("<I", salt))) ^ 0xFFFFFFFF
    return struct.pack("<I", mask(c)) + covered
def header(salt, trip, part=0):
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, part)
    return h + struct.pack("<I", crc32c_std(h))
def good(i):  # one plausible point (a type-7 record of one point: bases only)
    b = varint(1) + b"\0" + varint(0b1111) + varint(0)
    for v in (T0 + i * 1000, 470000000 + i * 300, 85000000 + i * 300, 3): b += varint(zz(v))
    return b

def points_body(r, n, plausible, i0):
    b = varint(n)
    last = [0] * 15; before = [0] * 15; seen = [0] * 15
    prev_mask = None
    for j in range(n):
        mask = 0b1111 | (r.getrandbits(11) << 4 if r.random() < 0.5 else 0)
        b += varint(0) if mask == prev_mask else varint(mask + 1)
        prev_mask = mask
        for f in range(15):
            if not mask >> f & 1: continue
            if plausible:
                v = (T0 + (i0 + j) * 1000 + (r.choice([0, 0, 0, -5000, 3600000, -T0]) if r.random() < 0.2 else 0),
                     470000000 + (i0 + j) * 300, 85000000 + (i0 + j) * 300, 3)[f] if f < 4 else r.randint(-10**6, 10**7)
            else:
                v = r.choice([r.randint(-2**63, 2**63 - 1), r.randint(-10**6, 10**6), T0 + r.randint(-10**13, 10**13)])
            p = 0 if seen[f] == 0 else (last[f] if seen[f] == 1 else 2 * last[f] - before[f])
            b += varint(zz(((v - p + 2**63) % 2**64) - 2**63))
            before[f], last[f] = last[f], v
            seen[f] = min(2, seen[f] + 1)
    return b

def raw_record(r, i0, n=None, plausible=True):
    n = r.randint(0, 40) if n is None else n
    b = varint(n) + bytes([r.choice([0, 1, r.getrandbits(8)])])
    act = r.choice([b"ride", b"walk", b"run", b"drive", b"", b"\xff\xfe", b"x" * 300])
    b += varint(len(act)) + act
    b += varint(r.choice([0, 1800000, 60000, 1, 2**63 - 1, 2**64 - 1]))
    b += varint(r.choice([0, 0, 3, 2**64 - 1]))
    b += bytes(r.choice([0, 0, 0, 2, 5, 13, 200, 254, 255, r.getrandbits(8)]) for _ in range(n))
    k = r.randint(0, n)
    b += varint(k)
    idx = sorted(r.sample(range(n), k)) if n else []
    if r.random() < 0.1: idx = idx[::-1]
    for i in idx: b += varint(i) + bytes([r.getrandbits(8) if r.random() < 0.3 else r.choice([1, 2, 4])])
    for j in range(n):
        lag = r.choice([230, 0, -1, r.randint(-10**9, 10**9)] * 10 + [2**62, -2**62]) if j == 0 or r.random() < 0.05 else 0
        b += varint(zz(lag) & (2**64 - 1))
    body = points_body(r, n, plausible, i0)
    if r.random() < 0.1: body += bytes(r.getrandbits(8) for _ in range(r.randint(1, 30)))
    b += varint(len(body) if r.random() > 0.05 else r.choice([2**64 - 1, len(body) + 7])) + body
    if r.random() < 0.2: b += bytes(r.getrandbits(8) for _ in range(r.randint(1, 20)))  # later fields
    if r.random() < 0.15: b = b[:r.randint(0, len(b))]  # truncated
    if r.random() < 0.05: b = varint(r.choice([65535, 65536, 2**40, 2**64 - 1])) + b[1:]  # absurd count
    return b

def good_raw(i0, first):  # five plausible fixes, kept, 230 ms late: what a recorder writes
    b = varint(5) + b"\0" + varint(4) + b"ride" + varint(1800000) + varint(0) + bytes(5)
    b += (varint(1) + varint(0) + bytes([1])) if first else varint(0)
    b += varint(zz(230)) + bytes(4)
    body = varint(5)
    for j in range(5):
        body += varint(0b1111 + 1) if j == 0 else varint(0)
        for f, (v0, step) in enumerate(((T0 + i0 * 1000, 1000), (470000000 + i0 * 300, 300), (85000000 + i0 * 300, 300), (3, 0))):
            body += varint(zz(v0 if j == 0 else (step if j == 1 else 0)))
    return b + varint(len(body)) + body

def run(args, files):
    before = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
    p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if p.returncode < 0 or p.returncode not in (0, 1, 2, 3):
        raise SystemExit("FAIL %r: exit %d\n%s" % (args, p.returncode, p.stderr[:2500]))
    for f in files:
        if hashlib.sha256(open(f, "rb").read()).hexdigest() != before[f]:
            raise SystemExit("FAIL %r changed %s" % (args, f))
    return p

stats = {"files": 0, "exits": {}}
for seed in range(N):
    r = random.Random(seed)
    d = tempfile.mkdtemp(prefix="cairn-rawattack-")
    files = []
    for part in range(1 + (r.random() < 0.4)):
        salt = r.getrandbits(32)
        data = bytearray(header(salt, 1, part))
        seq = 0
        def add(t, body):
            global seq
            seq += 1
            data.extend(frame(salt, t, varint(seq) + body))
        if part == 0:
            if r.random() < 0.3: add(8, raw_record(r, 0))  # before the trip start
            add(1, varint(4) + b"ride" + varint(6) + b"attack")
            add(2, bytes([0, 0]))
        base = part * 100
        for i in range(5): add(7, good(base + i))
        add(8, good_raw(base, part == 0))
        for k in range(r.randint(1, 5)): add(8, raw_record(r, base + 5 + k * 40, plausible=r.random() < 0.7))
        for i in range(5, 10): add(7, good(base + i))
        path = d + "/%08d.cairn" % (part + 1)
        open(path, "wb").write(bytes(data))
        files.append(path)
    stats["files"] += 1
    cmds = [["verify", d], ["list", d, "--json"], ["info", "1", "--dir", d], ["info", "1", "--dir", d, "--why"],
            ["info", "1", "--dir", d, "--why", "--json"],
            ["convert", d, "--refilter", "--to", "csv", "-o", "-"],
            ["convert", d, "--refilter", "--activity", "walk", "--close-after", "5", "--to", "gpx", "-o", "-"],
            ["convert", d, "--refilter", "--smooth", "--laps", "pause", "--to", "fit", "-o", d + "/fit"],
            ["convert", d, "--raw", "--to", "csv", "-o", "-"], ["convert", d, "--raw", "--to", "gpx", "-o", "-"]]
    for c in cmds:
        p = run(c, files)
        stats["exits"].setdefault(c[0] + ("-why" if "--why" in c else "") + ("-refilter" if "--refilter" in c else "")
                                  + ("-raw" if "--raw" in c else ""), {}).setdefault(str(p.returncode), 0)
        key = c[0] + ("-why" if "--why" in c else "") + ("-refilter" if "--refilter" in c else "") + ("-raw" if "--raw" in c else "")
        stats["exits"][key][str(p.returncode)] += 1
        if "--json" in c and p.returncode == 0: json.loads(p.stdout)
    if os.environ.get("KEEP"): print("kept", d)
    else: subprocess.run(["rm", "-rf", d])
print(json.dumps(stats))
