"""Synthetic ride fixes (grid ints) with truth; helpers to write logs."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import math, random, json, sys
sys.path.insert(0, _HERE)
from craft import *
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
