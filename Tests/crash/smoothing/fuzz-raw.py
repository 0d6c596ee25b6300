import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys, os, shutil, subprocess, random, csv, io, math, hashlib
sys.path.insert(0, _HERE)
from ride_scenarios import *
C = _REPO + "/.build/debug/cairn"
N = int(sys.argv[1]); worst = 0
def rows(d, args):
    p = subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"] + args, capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1, 2, 3): print("RC", p.returncode, d, args, p.stderr[-300:])
    return list(csv.reader(io.StringIO(p.stdout)))[1:]
def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (float(a[1]), float(a[2]), float(b[1]), float(b[2])))
    return 6371000 * math.hypot((lo2 - lo1) * math.cos((la1 + la2) / 2), la2 - la1)
for seed in (range(N) if len(sys.argv) < 3 else map(int, sys.argv[2:])):
    r = random.Random(seed)
    ke = r.choice([2, 4, 6, 10, 20])
    fx = ride(r.randint(200, 2500), seed=seed, keep_every=ke, stand=((r.randint(0, 1500), r.randint(0, 900)),) if r.random() < .5 else ())
    mut = fuzz_mutator(r)
    d = "fz"; shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    write(d + "/00000001.cairn", fx, raw_mut=mut, lead=r.random() < 0.3, sync=r.choice([1, 5, 30]))
    h = hashlib.sha256(open(d + "/00000001.cairn", "rb").read()).hexdigest()
    plain = rows(d, []); sm = rows(d, ["--smooth"])
    extra = r.choice([["--fill-gaps"], ["--refilter"], ["--laps", "1km"], []])
    sm2 = rows(d, ["--smooth"] + extra)
    if hashlib.sha256(open(d + "/00000001.cairn", "rb").read()).hexdigest() != h: print("MODIFIED", seed)
    if [x[0] for x in plain] != [x[0] for x in sm]: print("SEQ", seed, len(plain), len(sm)); continue
    m = max([dist(a, b) for a, b in zip(plain, sm)] or [0])
    worst = max(worst, m)
    if m > 50:
        shutil.rmtree("fzo", ignore_errors=True); os.makedirs("fzo"); write("fzo/00000001.cairn", fx, raw=False)
        so = rows("fzo", ["--smooth"])
        mo = max([dist(a, b) for a, b in zip(plain, so)] or [0])
        print("FAR seed %d ke %d: %.0f m (points alone %.0f m)" % (seed, ke, m, mo))
        if os.environ.get("SHOW"):
            ds = [dist(a, b) for a, b in zip(plain, sm)]
            j = max(range(len(ds)), key=lambda k: ds[k])
            print("worst at", plain[j][0], "%.0f m" % ds[j], "plain", plain[j][1:3], "smooth", sm[j][1:3])
            shutil.copytree("fz", "fz_%d" % seed, dirs_exist_ok=True)
print("seeds", N, "worst move %.1f m" % worst)
