"""Synthetic ride fixes (grid ints) with truth; helpers to write logs."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import math, random, json, sys
sys.path.insert(0, _HERE)
from log_craft import *
T0 = 1748764800000
M = 111195.0
def ride(n, hz=1.0, seed=1, noise=3.0, stand=(), keep_every=4):
    """list of (fix, truth(lat,lon), verdict)."""
    r = random.Random(seed)
    lat, lon, hd, sp = 47.3769, 8.5417, 90.0, 6.0
    de = dn = 0.0; dt = 1 / hz; out = []
    k = math.exp(-dt / 60)
    last_kept = -10**9
    for i in range(n):
        t = i * dt
        st = any(a <= t < a + d for a, d in stand)
        v = 0.0
        if not st:
            hd = (hd + r.gauss(0, 4 * math.sqrt(dt))) % 360
            sp = min(9, max(4, sp + r.gauss(0, 0.3 * math.sqrt(dt)))); v = sp
            lat += v * dt * math.cos(math.radians(hd)) / M
            lon += v * dt * math.sin(math.radians(hd)) / (M * math.cos(math.radians(lat)))
        de = k * de + r.gauss(0, noise * math.sqrt(1 - k * k)); dn = k * dn + r.gauss(0, noise * math.sqrt(1 - k * k))
        mlat = lat + (dn + r.gauss(0, .5)) / M; mlon = lon + (de + r.gauss(0, .5)) / (M * math.cos(math.radians(lat)))
        spd = v + r.gauss(0, 0.1) if v else abs(r.gauss(0, 0.05))
        f = {"time": T0 + int(round(t * 1000)), "lat": int(round(mlat * 1e7)), "lon": int(round(mlon * 1e7)), "mode": 3,
             "eph": 400, "epx": 300, "epy": 300, "speed": int(round(max(spd, 0) * 1000)), "track": int(round(((hd + r.gauss(0, 2)) % 360) * 100))}
        if st: verdict = STANDING if i - last_kept > 1 else KEPT
        else: verdict = KEPT if i % keep_every == 0 else TOO_CLOSE
        if verdict == KEPT: last_kept = i
        out.append((f, (lat, lon), verdict))
    return out

def write(path, fixes, sync=5, raw=True, lead=False, raw_mut=None, trip=1, part=0, start=True, end=True, seg=True, hz=1.0, salt=None):
    """Writes per sync: points then raw (or raw then points with lead). raw_mut(list of items) -> items."""
    L = Log(path, trip=trip, part=part, salt=salt)
    if start: L.start()
    if seg: L.segment(0)
    per = max(1, int(sync * hz))
    npts = 0
    for i in range(0, len(fixes), per):
        chunk = fixes[i:i + per]
        pts = [f for f, _, v in chunk if v == KEPT]
        items = [(f, v, 0, 230) for f, _, v in chunk]
        if raw_mut: items = raw_mut(i, items)
        if lead and raw and items: L.raw(items)
        if pts: L.points(pts); npts += len(pts)
        if not lead and raw and items: L.raw(items)
    if end: L.end(npts)
    L.close()
    return npts

def truth(fixes, path):
    json.dump([(f["time"], la, lo) for f, (la, lo), _ in fixes], open(path, "w"))


def fuzz_mutator(r, chunks=None):
    """The raw-record mutation of fuzz-raw.py (and minimise.py, which replays a seed of it): 30 % of the
    thinned fixes moved, re-timed, sped up, given absurd accuracy or course; verdict bytes, copies,
    reversed and repeated records. `chunks`, when given, gets each record's (items, mutated)."""
    def mut(i, items):
        out = []
        for f, v, e, l in items:
            f = dict(f)
            x = r.random()
            if v != KEPT and x < 0.3:
                k = r.randrange(8)
                if k == 0: f["lat"] += r.randint(-10**6, 10**6)
                elif k == 1: f["lon"] += r.randint(-10**5, 10**5)
                elif k == 2: f["time"] += r.randint(-600000, 600000)
                elif k == 3: f["speed"] = r.randint(0, 999999)
                elif k == 4: f["eph"] = r.choice([0, 1, 10**8]); f["epx"] = f["eph"]; f["epy"] = f["eph"]
                elif k == 5: f["track"] = r.randint(0, 36000)
                elif k == 6: f.pop("speed", None); f.pop("track", None)
                else: f["time"] = T0 + r.randint(0, 4000000000000 - T0)
            if r.random() < 0.1: v = r.randrange(256)
            out.append((f, v, e, l))
            if r.random() < 0.05: out.append((f, v, e, l))
        if r.random() < 0.1: out.reverse()
        if r.random() < 0.05: out = out + items
        if chunks is not None: chunks[i] = (items, out)
        return out
    return mut
