from gapfill_check import *
only = sys.argv[1:]
def want(n): return not only or n in only
if want("dmg"):
    it = base(drop=((100, 30),), thin=((200, 40),))
    class DL(Log):
        def rec(self, t, payload):
            if t == 8 and getattr(self, "corrupt", False):
                payload = payload[:-3] + bytes([payload[-3] ^ 0x55]) + payload[-2:]
                self.seq += 1
                p = varint(self.seq) + payload
                covered = struct.pack("<HB", len(p), t) + p
                self.f.write(struct.pack("<I", 0x12345678) + covered); return
            Log.rec(self, t, payload)
    L = DL(f"{OUT}/l/dmg.cairn", salt=9); L.start(); L.segment(0)
    for s0 in range(0, 400, 5):
        ch = [x for x in it if T0 + s0*1000 <= x[0]["time"] < T0 + (s0+5)*1000]
        pts = [f for f, _, v in ch if v == KEPT]
        if pts: L.points(pts)
        L.corrupt = 195 <= s0 < 245
        if ch: L.raw([(f, v, 0, 230) for f, _, v in ch])
        L.corrupt = False
    L.end(); L.close()
    run("dmg", f"{OUT}/l/dmg.cairn", usable_gaps([(f, v) for f, _, v in it]), None)
if want("alldmg"):
    it = base(drop=((100, 30),), thin=((200, 40),))
    write(f"{OUT}/l/alldmg0.cairn", it)
    b = bytearray(open(f"{OUT}/l/alldmg0.cairn","rb").read())
    # corrupt every type-8 frame: walk frames
    off = 32
    while off + 7 <= len(b):
        n = struct.unpack_from("<H", b, off+4)[0]; t = b[off+6]
        if t == 8: b[off+7+n-1] ^= 0xFF
        off += 7 + n
    open(f"{OUT}/l/alldmg.cairn","wb").write(b)
    run("alldmg", f"{OUT}/l/alldmg.cairn", usable_gaps([(f, v) for f, _, v in it]), None)
