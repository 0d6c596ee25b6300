import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys, os, copy, shutil, subprocess
sys.path.insert(0, _HERE)
from ride_scenarios import *
KE = int(os.environ.get("KE", "4")); fx = ride(3000, seed=7, keep_every=KE)
truth(fx, 'm.json')
os.makedirs('moff', exist_ok=True); write('moff/00000001.cairn', fx, raw=False)
def far(f, dm=10000):
    g = dict(f); g["lat"] += int(dm / M * 1e7); return g
def M_(name, fn):
    d = 'm_' + name; shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    write(d + '/00000001.cairn', fx, raw_mut=fn)
    print("=====", name)
    sys.stdout.flush()
    subprocess.run(["python3", _HERE + "/plain-vs-smooth.py", d])
    subprocess.run(["python3", _HERE + "/error-vs-truth.py", "m.json", d, "moff"])
def future(i, items):
    if i == 500: items = items[:2] + [(dict(items[2][0], time=items[2][0]["time"] + 20 * 365 * 86400000), 16, 0, 230)] + items[2:]
    return items
def future_thin(i, items):
    if i == 500: items = items[:2] + [(dict(items[2][0], time=items[2][0]["time"] + 20 * 365 * 86400000), TOO_CLOSE, 0, 230)] + items[2:]
    return items
def one_far(i, items):
    return [(far(f) if (i + j) == 1001 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def many_far(i, items):
    # every thinned fix between 1000 and 1100 10 km off
    return [(far(f) if 1000 <= i + j < 1100 and v != KEPT else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def near_far(i, items):
    return [(far(f, 300) if 1000 <= i + j < 1100 and v != KEPT else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def fast(i, items):
    return [(dict(f, speed=999000) if (i + j) % 4 == 1 and 1000 <= i + j < 1020 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def fast_one(i, items):
    return [(dict(f, speed=999000) if (i + j) == 1001 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def y1970(i, items):
    return [(dict(f, time=0) if (i + j) % 4 == 2 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def dup(i, items): return items + items
def rev(i, items): return items[::-1]
def sametime(i, items):
    return [(dict(far(f, 200), time=f["time"] - 1000) if (i + j) % 4 == 1 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def tinyeph(i, items):
    return [(dict(far(f, 100), eph=1, epx=1, epy=1) if (i + j) % 4 == 2 and 1000 <= i+j < 1400 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def fast_far(i, items):
    return [(dict(f, speed=900000) if (i + j) == 1001 else far(f, 3000) if (i + j) == 1003 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def fast_only(i, items):
    return [(dict(f, speed=900000) if (i + j) == 1001 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def fast_far_start(i, items):
    return [(dict(f, speed=900000) if (i + j) == 5 else far(f, 3000) if (i + j) == 7 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
def glitch_speed(i, items):
    # realistic: a doppler glitch (60 m/s) on one thinned fix in fifty
    return [(dict(f, speed=60000) if (i + j) % 50 == 1 else f, v, e, l) for j, (f, v, e, l) in enumerate(items)]
for n, fn in list(globals().items()):
    if callable(fn) and n not in ("M_", "far", "ride", "write", "truth") and fn.__module__ == "__main__" and (len(sys.argv) < 2 or n in sys.argv[1:]):
        M_(n, fn)
