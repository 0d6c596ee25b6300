#!/usr/bin/env python3
"""python3 Tests/crash/cells/cells-bomb.py REPO OUT.cairn N

A CRC-valid log of N one-point records (about 20 bytes each) whose points zigzag 5.4 degrees of
longitude a second, one geohash row further north each time: each step crosses ~3,950 new
precision-7 cells, just under the per-step cap (issue 27 finding 10: 230 points, 4.6 KB)."""
import struct, sys
sys.path.insert(0, sys.argv[1] + "/Tests/crash")
import cairnlog

def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F; v >>= 7
        if v: out.append(b | 0x80)
        else: out.append(b); return bytes(out)
def zz(v): return ((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF
def mask(c): return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
SEQ = [0]
def frame(salt, t, body):
    SEQ[0] += 1
    payload = varint(SEQ[0]) + body
    covered = struct.pack("<HB", len(payload), t) + payload
    c = cairnlog.crc32c(covered, cairnlog.crc32c(struct.pack("<I", salt))) ^ 0xFFFFFFFF
    return struct.pack("<I", mask(c)) + covered
def header(salt, trip):
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, 0)
    return h + struct.pack("<I", cairnlog.crc32c(h) ^ 0xFFFFFFFF)

T0 = 1748764800000
ROW = 180.0 / 2 ** 17  # a precision-7 row, degrees
salt = 0x5EED0001
out = header(salt, 1)
out += frame(salt, 1, varint(4) + b"ride" + varint(5) + b"craft")
out += frame(salt, 2, bytes([0, 0]))
for i in range(int(sys.argv[3])):
    lat = 10.0 + i * ROW
    lon = 8.5 + (5.4 if i % 2 else 0.0)
    b = varint(1) + b"\0" + varint(0b1111) + varint(0)
    for v in (T0 + i * 1000, round(lat * 1e7), round(lon * 1e7), 3): b += varint(zz(v))
    out += frame(salt, 7, b)
open(sys.argv[2], "wb").write(out)
