"""Crafted cairn logs for the export/prune attacks: closed or open trips, several parts,
any start time. Built on zone-centre-fit.py's writer (framing, header, compact points)."""
import importlib.util, math, os, random, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location("zcf", os.path.join(os.path.dirname(HERE), "zone-centre-fit.py"))
zcf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(zcf)


def fixes(t0_ms, n, lat=47.40, lon=8.60, step=6.0, seed=1):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        out.append((t0_ms + i * 1000, lat + i * step / zcf.M_PER_DEG, lon + rnd.gauss(0, 1) / 1e5))
    return out


def log_bytes(trip, salt, fx, closed=True, part=0):
    """One log file: header, start, points, and the trip end when closed."""
    h = b"CAIRNLOG" + struct.pack("<HHIQI", 2, 32, salt, trip, part)
    data = h + struct.pack("<I", zcf.cairnlog.crc32c(h) ^ 0xFFFFFFFF)
    seq = 0
    out = bytearray(data)

    def add(t, body):
        nonlocal seq
        seq += 1
        out.extend(zcf.frame(salt, t, zcf.varint(seq) + body))

    add(1, zcf.varint(4) + b"ride" + zcf.varint(10) + b"attack 1.0")
    add(2, bytes([0, 0]))
    for t, la, lo in fx:
        b = zcf.varint(1) + b"\0" + zcf.varint(0b1111) + zcf.varint(0)
        for v in (t, round(la * 1e7), round(lo * 1e7), 3):
            b += zcf.varint(zcf.zz(v))
        add(7, b)
    if closed:
        dist = sum(zcf.metres(fx[i - 1][1:], fx[i][1:]) for i in range(1, len(fx)))
        body = bytes([0]) + zcf.varint(len(fx)) + zcf.varint(int(dist * 100)) + zcf.varint(fx[-1][0] - fx[0][0]) + bytes([3])
        body += zcf.varint(zcf.zz(fx[0][0])) + zcf.varint(zcf.zz(fx[-1][0]))
        add(6, body)
    return bytes(out)


def write(path, trip, fx, closed=True, salt=None, part=0):
    salt = salt if salt is not None else (trip * 2654435761 + part) & 0xFFFFFFFF
    with open(path, "wb") as f:
        f.write(log_bytes(trip, salt, fx, closed, part))
    return path
