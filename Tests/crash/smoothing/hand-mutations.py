import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys, os, shutil, subprocess, csv, io, math, itertools
sys.path.insert(0, _HERE)
from ride_scenarios import *
C = _REPO + "/.build/debug/cairn"
fx = ride(593, seed=78, keep_every=4)
MUTS = {
 "v0": (0, {"verdict": 75}), "c5": (5, {"track": 23925}), "c13": (13, {"track": 20574}), "s14": (14, {"lat": 473202310}),
 "e15": (15, {"lon": 85444738}), "sp18": (18, {"speed": 862141}), "sp21": (21, {"speed": 906012}), "v22": (22, {"verdict": 207}),
 "s23": (23, {"lat": 473468435}), "v24": (24, {"verdict": 86}), "v19": (19, {"verdict": 13})}
def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (float(a[1]), float(a[2]), float(b[1]), float(b[2])))
    return 6371000 * math.hypot((lo2 - lo1) * math.cos((la1 + la2) / 2), la2 - la1)
def trial(names):
    def mut(i, items):
        out = []
        for j, (f, v, e, l) in enumerate(items):
            f = dict(f)
            for n in names:
                idx, ch = MUTS[n]
                if i + j == idx:
                    for kk, vv in ch.items():
                        if kk == "verdict": v = vv
                        else: f[kk] = vv
            out.append((f, v, e, l))
        return out
    d = "hd"; shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    write(d + "/00000001.cairn", fx, raw_mut=mut, sync=30)
    a = list(csv.reader(io.StringIO(subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"], capture_output=True, text=True).stdout)))[1:]
    b = list(csv.reader(io.StringIO(subprocess.run([C, "convert", d, "--to", "csv", "--smooth", "-o", "-"], capture_output=True, text=True).stdout)))[1:]
    ds = [dist(x, y) for x, y in zip(a, b)]
    return max(ds), [round(x) for x in ds[:8]]
names = set(MUTS)
print("all", trial(names))
changed = True
while changed:
    changed = False
    for n in sorted(names):
        if trial(names - {n})[0] > 50: names -= {n}; changed = True
print(sorted(names), trial(names))
