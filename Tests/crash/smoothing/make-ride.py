#!/usr/bin/env python3
"""make-ride.py OUT --hz H --seconds S [--stand AT:SECS]... [--seed N] [--noise M] : TPV lines of a ride with
receiver noise (slow drift + white), doppler speed/course. Prints nothing."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import argparse, json, math, random, time
ap = argparse.ArgumentParser()
ap.add_argument("out"); ap.add_argument("--hz", type=float, default=1); ap.add_argument("--seconds", type=float, default=600)
ap.add_argument("--stand", action="append", default=[]); ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--noise", type=float, default=3.0); ap.add_argument("--truth")
a = ap.parse_args()
r = random.Random(a.seed)
stands = [tuple(float(x) for x in s.split(":")) for s in a.stand]
T0 = 1748764800.0
lat, lon, hd, sp = 47.3769, 8.5417, 90.0, 6.0
de = dn = 0.0
dt = 1.0 / a.hz
M = 111195.0
truth = []
with open(a.out, "w") as f:
    n = int(a.seconds * a.hz)
    for i in range(n):
        t = i * dt
        standing = any(at <= t < at + d for at, d in stands)
        if standing: v = 0.0
        else:
            hd = (hd + r.gauss(0, 4 * math.sqrt(dt))) % 360
            sp = min(9, max(4, sp + r.gauss(0, 0.3 * math.sqrt(dt))))
            v = sp
            lat += v * dt * math.cos(math.radians(hd)) / M
            lon += v * dt * math.sin(math.radians(hd)) / (M * math.cos(math.radians(lat)))
        k = math.exp(-dt / 60)
        de = k * de + r.gauss(0, a.noise * math.sqrt(1 - k * k)); dn = k * dn + r.gauss(0, a.noise * math.sqrt(1 - k * k))
        me = de + r.gauss(0, 0.5); mn = dn + r.gauss(0, 0.5)
        mlat = lat + mn / M; mlon = lon + me / (M * math.cos(math.radians(lat)))
        ms = int(round((T0 + t) * 1000))
        s, fr = divmod(ms, 1000)
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % fr
        spd = max(0.0, v + r.gauss(0, 0.1)) if v > 0 else abs(r.gauss(0, 0.05))
        tpv = {"class": "TPV", "device": "/dev/fake", "mode": 3, "time": iso, "lat": round(mlat, 8), "lon": round(mlon, 8),
               "altHAE": 450.0, "altMSL": 400.0, "eph": 4.0, "epx": 3.0, "epy": 3.0, "epv": 6.0,
               "speed": round(spd, 3), "track": round((hd + r.gauss(0, 2)) % 360, 2), "climb": 0.0}
        f.write(json.dumps(tpv, separators=(",", ":")) + "\n")
        truth.append((ms, lat, lon))
if a.truth: json.dump(truth, open(a.truth, "w"))
