#!/usr/bin/env python3
"""An independent reader of the cairn log format, written from Sources/CairnLog/LOG_FORMAT.md
alone (no code shared with the Swift reader), for the crash campaign's checks.

    python3 cairnlog.py FILE...     prints one line per file: records, seqs, damage, torn tail

Slow (pure Python) but simple: the resync after damage tries every offset naively."""
import struct, sys

MAGIC = b"CAIRNLOG"
POLY = 0x82F63B78
_T = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ POLY if _c & 1 else _c >> 1
    _T.append(_c)


def crc32c(data, reg=0xFFFFFFFF):
    """Raw register update (no final inversion)."""
    t = _T
    for b in data:
        reg = (reg >> 8) ^ t[(reg ^ b) & 0xFF]
    return reg


def unmask(m):
    r = (m - 0xA282EAD8) & 0xFFFFFFFF
    return ((r >> 17) | (r << 15)) & 0xFFFFFFFF


class Bad(Exception):
    pass


def varint(b, i):
    v, shift = 0, 0
    for k in range(10):
        if i >= len(b):
            raise Bad("varint past end")
        c = b[i]
        i += 1
        if k == 9 and c > 1:
            raise Bad("varint too long")
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i
    raise Bad("varint too long")


def zigzag(b, i):
    u, i = varint(b, i)
    return (u >> 1) ^ -(u & 1), i


def wrap64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


FIELDS = ["time", "lat", "lon", "mode", "altHAE", "altMSL", "eph", "epx", "epy", "epv", "speed", "track", "climb",
          "pressure", "temperature"]


def decode_points(b, i):
    """Points as dicts of integer grid values (the format's units)."""
    n, i = varint(b, i)
    out, mask, have = [], 0, False
    last, before, seen = {}, {}, {}
    for _ in range(n):
        head, i = varint(b, i)
        if head == 0:
            if not have:
                raise Bad("head 0 first")
        else:
            mask, have = head - 1, True
        if mask & 7 != 7:
            raise Bad("mask without time/lat/lon")
        p, bit, bits = {}, 0, mask
        while bits:
            if bits & 1:
                r, i = zigzag(b, i)
                s = seen.get(bit, 0)
                pred = 0 if s == 0 else last[bit] if s == 1 else wrap64(2 * last[bit] - before[bit])
                v = wrap64(pred + r)
                before[bit], last[bit] = last.get(bit, 0), v
                seen[bit] = min(2, s + 1)
                if bit < len(FIELDS):
                    p[FIELDS[bit]] = v
            bits >>= 1
            bit += 1
        out.append(p)
    return out, i


def decode_raw_fixes(b, i):
    """Raw fixes (type 8, LOG_FORMAT.md 7c): each a point dict (as decode_points) with its
    "verdict" (0 kept, 255 undecided, else the dropping rule's number), "events" and "arrival" (ms)."""
    n, i = varint(b, i)
    i += 1  # flags
    alen, i = varint(b, i)
    i += alen  # activity
    _, i = varint(b, i)  # close-after
    _, i = varint(b, i)  # left out before
    if i + n > len(b):
        raise Bad("verdicts past end")
    verdicts = list(b[i:i + n])
    i += n
    k, i = varint(b, i)
    events = [0] * n
    for _ in range(k):
        j, i = varint(b, i)
        if j >= n or i >= len(b):
            raise Bad("event index")
        events[j] = b[i]
        i += 1
    lags, lag = [], 0
    for _ in range(n):
        d, i = zigzag(b, i)
        lag += d
        lags.append(lag)
    blen, i = varint(b, i)
    pts, j = decode_points(b[:i + blen], i)
    if len(pts) != n or j != i + blen:
        raise Bad("raw fixes body")
    for p, v, e, lg in zip(pts, verdicts, events, lags):
        p["verdict"], p["events"], p["arrival"] = v, e, p["time"] + lg
    return pts, i + blen


class Bits:
    """LSB-first bit reader over bytes b[i:]."""

    def __init__(self, b, i):
        self.b, self.pos = b, i * 8
        self.cost = 0

    def read(self, n):
        v = 0
        for k in range(n):
            byte = self.pos >> 3
            if byte >= len(self.b):
                raise Bad("bit stream ends early")
            v |= ((self.b[byte] >> (self.pos & 7)) & 1) << k
            self.pos += 1
        return v

    def rice(self, k):
        q = 0
        while q < 24 and self.read(1):
            q += 1
        if q == 24:
            return self.read(64)
        return (q << k) | self.read(k)


def time_scaled(a, b, t1, t2):
    d = wrap64(a - b)
    if t1 <= 0 or t2 < 0:
        return wrap64(a + d)
    n = d * t2
    if n >= 1 << 63 or n < -(1 << 63):
        return wrap64(a + d)
    q = (abs(n) + t1 // 2) // t1
    return wrap64(a - q if n < 0 else a + q)


def decode_compact_points(b, i, costs=None):
    """Points of a compact points record (type 7, LOG_FORMAT.md 7b), written independently of
    the Swift reader from the spec. `costs`, if given, collects bits spent per field."""
    n, i = varint(b, i)
    if n > 4096:
        raise Bad("point count")
    if n == 0:
        return [], i
    flags = b[i]
    i += 1
    fields, i = varint(b, i)
    partial, i = varint(b, i)
    if fields & 7 != 7 or partial & ~fields or partial & 7:
        raise Bad("field masks")
    runs = {}
    for f in range(64):
        if partial >> f & 1:
            head, i = varint(b, i)
            ends, end = [], 0
            for _ in range((head >> 1) - 1):
                ln, i = varint(b, i)
                end += ln
                ends.append(end)
            runs[f] = (head & 1, ends)
    base, step, k = {}, {}, {}
    for f in range(64):
        if fields >> f & 1:
            base[f], i = zigzag(b, i)
            step[f] = 0
            if n == 1:
                continue
            step[f], i = varint(b, i)
            if step[f]:
                k[f] = b[i]
                i += 1
    bits = Bits(b, i)
    last, before, seen = {}, {}, {}
    t_last = t_before = 0
    out = []
    for p in range(n):
        here = []
        for f in range(64):
            if not fields >> f & 1:
                continue
            if f in runs:
                first, ends = runs[f]
                r = sum(1 for e in ends if e <= p)
                if (r % 2 == 1) == bool(first):
                    continue
            here.append(f)
        point, t = {}, 0
        for f in here:
            w = 0
            s = seen.get(f, 0)
            if s and step[f]:
                if s == 1:
                    pred = last[f]
                elif f == 0:
                    pred = wrap64(2 * last[f] - before[f])
                elif f in (1, 2):
                    pred = time_scaled(last[f], before[f], wrap64(t_last - t_before), wrap64(t - t_last))
                else:
                    pred = last[f]
                start = bits.pos
                u = bits.rice(k[f])
                if costs is not None:
                    costs[f] = costs.get(f, 0) + bits.pos - start
                w = wrap64(pred + ((u >> 1) ^ -(u & 1)))
            before[f], last[f] = last.get(f, 0), w
            seen[f] = min(2, s + 1)
            v = wrap64(base[f] + w * step[f])
            if f == 0:
                t = w
            if f < len(FIELDS):
                point[FIELDS[f]] = v
        if flags & 1 and "altMSL" in point:
            point["altMSL"] = wrap64(point["altMSL"] + point["altHAE"])
        t_before, t_last = t_last, t
        out.append(point)
    return out, (bits.pos + 7) // 8


class LogFile:
    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            self.data = data = f.read()
        if len(data) < 32 or data[:8] != MAGIC:
            raise Bad("not a complete cairn header")
        if crc32c(data[:28]) ^ 0xFFFFFFFF != struct.unpack_from("<I", data, 28)[0]:
            raise Bad("header CRC")
        self.version, self.header_len, self.salt, self.trip, self.part = struct.unpack_from("<HHIQI", data, 8)
        self.salt_reg = crc32c(struct.pack("<I", self.salt))
        self.frames, self.damaged, self.torn, self.unused = [], [], 0, 0
        p, n = self.header_len, len(data)
        while p < n:
            if self.verifies(p):
                length = struct.unpack_from("<H", data, p + 4)[0]
                self.frames.append((p, data[p + 6], data[p + 7:p + 7 + length]))
                p += 7 + length
                continue
            if not data[p:].strip(b"\0"):  # zeros to the end: preallocated, unused (LOG_FORMAT.md 9)
                self.unused = n - p
                break
            q = p + 1
            while q + 7 <= n and not self.verifies(q):
                q += 1
            if q + 7 > n:
                self.torn = n - p
                break
            self.damaged.append((p, q))
            p = q

    def verifies(self, p):
        d = self.data
        if len(d) - p < 7:
            return False
        length = struct.unpack_from("<H", d, p + 4)[0]
        if d[p + 6] == 0 or p + 7 + length > len(d):
            return False
        crc = crc32c(d[p + 4:p + 7 + length], self.salt_reg) ^ 0xFFFFFFFF
        return crc == unmask(struct.unpack_from("<I", d, p)[0])

    def records(self):
        """(seq, type, points or None) for each intact frame."""
        out = []
        for off, typ, payload in self.frames:
            seq, i = varint(payload, 0)
            pts = (decode_points(payload, i)[0] if typ == 3 else
                   decode_compact_points(payload, i)[0] if typ == 7 else None)
            out.append((seq, typ, pts))
        return out

    def raw_fixes(self):
        """(seq, raw fixes) for each intact raw fixes record (type 8)."""
        out = []
        for off, typ, payload in self.frames:
            if typ == 8:
                seq, i = varint(payload, 0)
                out.append((seq, decode_raw_fixes(payload, i)[0]))
        return out


def main():
    rc = 0
    for p in sys.argv[1:]:
        try:
            f = LogFile(p)
            recs = f.records()
            seqs = [r[0] for r in recs]
            pts = sum(len(r[2]) for r in recs if r[2] is not None)
            print("%s: trip %d part %d, %d records (seq %s..%s), %d points, damaged %s, torn %d, unused %d" % (
                p, f.trip, f.part, len(recs), seqs[0] if seqs else "-", seqs[-1] if seqs else "-", pts,
                f.damaged, f.torn, f.unused))
        except (Bad, OSError) as e:
            print("%s: %s" % (p, e))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
