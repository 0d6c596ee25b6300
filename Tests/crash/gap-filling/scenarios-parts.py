from gapfill_check import *
os.makedirs(f"{OUT}/l", exist_ok=True)
only = sys.argv[1:]
def want(n): return not only or n in only
def gaps_of(items): return usable_gaps([(f, v) for f, _, v in items])
# two parts, raw only in one
for nm, r0, r1 in [("p_raw0", True, False), ("p_raw1", False, True)]:
    if not want(nm): continue
    d = f"{OUT}/l/{nm}"; os.makedirs(d, exist_ok=True)
    it = base(n=600, drop=((100, 30), (400, 30)), thin=((200, 40), (500, 40)))
    a = [x for x in it if x[0]["time"] < T0 + 300000]; b = [x for x in it if x[0]["time"] >= T0 + 300000]
    write(d + "/00000001.cairn", a, raw=r0, end=False, salt=1)
    write(d + "/00000002.cairn", b, raw=r1, part=1, start=False, seg=False, salt=2)
    # expected: where raw is missing, thinned steps are filled (no info): gaps from raw side + all steps on other side
    g = gaps_of(a if r0 else b)
    other = b if r0 else a
    pts = sorted(f["time"] for f, _, v in other if v == KEPT)
    g += [(x, y) for x, y in zip(pts, pts[1:]) if y - x > 10000]
    run(nm, d, g, None)
# raw lagging far: all points first, raw at end (5000 points)
if want("lag"):
    it = base(n=6000, drop=((100, 30), (5500, 30)), thin=((200, 40), (5700, 40)))
    L = Log(f"{OUT}/l/lag.cairn", salt=5); L.start(); L.segment(0)
    L.points([f for f, _, v in it if v == KEPT])
    L.raw([(f, v, 0, 230) for f, _, v in it]); L.end(); L.close()
    run("lag", f"{OUT}/l/lag.cairn", gaps_of(it), None)
# segment start inside a dropout, and in the middle of thinned step
if want("seg"):
    it = base(drop=((100, 30),), thin=((200, 40),))
    L = Log(f"{OUT}/l/seg.cairn", salt=6); L.start(); L.segment(0)
    for chunk_start in range(0, 400, 5):
        ch = [x for x in it if T0 + chunk_start*1000 <= x[0]["time"] < T0 + (chunk_start+5)*1000]
        if chunk_start in (115, 220): L.segment(1)
        pts = [f for f, _, v in ch if v == KEPT]
        if pts: L.points(pts)
        if ch: L.raw([(f, v, 0, 230) for f, _, v in ch])
    L.end(); L.close()
    run("seg", f"{OUT}/l/seg.cairn", gaps_of(it), None)
# a point out of range latitude in the middle, before a dropout
if want("badlat"):
    it = base(drop=((100, 30),), thin=((200, 40),))
    for k, (f, t, v) in enumerate(it):
        if f["time"] in (T0 + 99000, T0 + 199000, T0 + 300000): f["lat"] = 950000000
    write(f"{OUT}/l/badlat.cairn", it)
    run("badlat", f"{OUT}/l/badlat.cairn", gaps_of(it) + [(T0+99000-1, T0+131000)], None)
# crafted thinned fixes inside a dropout, 1 km off
if want("craft"):
    it = base(drop=((100, 30),))
    extra = []
    for s in (110, 120):
        f = dict(it[0][0]); f["time"] = T0 + s * 1000; f["lat"] += 90000
        extra.append((f, None, TOO_CLOSE))
    allit = sorted(it + extra, key=lambda x: x[0]["time"])
    write(f"{OUT}/l/craft.cairn", allit)
    run("craft", f"{OUT}/l/craft.cairn", gaps_of(allit), None)
# laps
if want("laps"):
    it = base(n=1200, drop=((100, 30), (700, 30)), thin=((200, 40),))
    write(f"{OUT}/l/laps.cairn", it)
    run("laps", f"{OUT}/l/laps.cairn", gaps_of(it), True, extra=("--laps", "1km"))
