"""Writes CRC-valid cairn logs with arbitrary records (independent of the Swift writer)."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import struct, random, sys
sys.path.insert(0, _REPO + "/Tests/crash")
sys.dont_write_bytecode = True
import cairnlog

def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(v): return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
def mask32(c): return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
FIELDS = ["time", "lat", "lon", "mode", "altHAE", "altMSL", "eph", "epx", "epy", "epv", "speed", "track", "climb", "pressure", "temperature"]

def points_body(fixes):
    """fixes: dicts of integer grid values (time ms, lat/lon 1e-7 deg, eph cm, speed mm/s, track 0.01 deg...)."""
    b = bytearray(varint(len(fixes)))
    last, before, seen = {}, {}, {}
    for f in fixes:
        m = 0
        for i, k in enumerate(FIELDS):
            if k in f and f[k] is not None: m |= 1 << i
        b += varint(m + 1)
        for i, k in enumerate(FIELDS):
            if not m >> i & 1: continue
            v = f[k]; s = seen.get(i, 0)
            p = 0 if s == 0 else (last[i] if s == 1 else 2 * last[i] - before[i])
            r = ((v - p + 2**63) % 2**64) - 2**63
            b += varint(zz(r))
            before[i], last[i] = last.get(i, 0), v
            seen[i] = min(2, s + 1)
    return bytes(b)

def raw_body(items, activity=b"ride", close_after=1800000, left_out=0, flags=1):
    """items: (fix dict, verdict byte, events byte, lag ms)."""
    n = len(items)
    b = bytearray(varint(n) + bytes([flags]) + varint(len(activity)) + activity + varint(close_after) + varint(left_out))
    b += bytes(v for _, v, _, _ in items)
    ev = [(i, e) for i, (_, _, e, _) in enumerate(items) if e]
    b += varint(len(ev))
    for i, e in ev: b += varint(i) + bytes([e])
    last = 0
    for _, _, _, lag in items:
        b += varint(zz(lag - last)); last = lag
    body = points_body([f for f, _, _, _ in items])
    return bytes(b + varint(len(body)) + body)

class Log:
    def __init__(self, path, trip=1, part=0, salt=None):
        self.path = path
        self.salt = salt if salt is not None else random.getrandbits(32)
        h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, self.salt, trip, part)
        self.f = open(path, "wb")
        self.f.write(h + struct.pack("<I", cairnlog.crc32c(h) ^ 0xFFFFFFFF))
        self.seq = 0
        self.salt_reg = cairnlog.crc32c(struct.pack("<I", self.salt))
    def rec(self, t, payload):
        self.seq += 1
        p = varint(self.seq) + payload
        assert len(p) <= 65535, len(p)
        covered = struct.pack("<HB", len(p), t) + p
        c = cairnlog.crc32c(covered, self.salt_reg) ^ 0xFFFFFFFF
        self.f.write(struct.pack("<I", mask32(c)) + covered)
    def start(self, activity=b"ride"): self.rec(1, varint(len(activity)) + activity + varint(5) + b"craft")
    def segment(self, reason=0): self.rec(2, bytes([reason, 0]))
    def points(self, fixes):
        for i in range(0, len(fixes), 200): self.rec(3, points_body(fixes[i:i + 200]))
    def raw(self, items, **kw):
        for i in range(0, len(items), 200): self.rec(8, raw_body(items[i:i + 200], **kw))
    def end(self, n=0): self.rec(6, bytes([0]) + varint(n) + varint(0) + varint(0) + bytes([0]))
    def close(self): self.f.close()

KEPT, UNDECIDED = 0, 255
TOO_CLOSE, STANDING, NO_SPEED_NEAR = 14, 12, 13
