import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys, os, shutil, subprocess, random, csv, io, math
sys.path.insert(0, _HERE)
from ride_scenarios import *
C = _REPO + "/.build/debug/cairn"
seed = int(sys.argv[1])
# replicate fuzz-raw.py's generation exactly, recording the mutated raw lists per chunk
r = random.Random(seed)
ke = r.choice([2, 4, 6, 10, 20])
fx = ride(r.randint(200, 2500), seed=seed, keep_every=ke, stand=((r.randint(0, 1500), r.randint(0, 900)),) if r.random() < .5 else ())
chunks = {}
mut = fuzz_mutator(r, chunks)
lead = r.random() < 0.3; sync = r.choice([1, 5, 30])
write("mn0.cairn", fx, raw_mut=mut, lead=lead, sync=sync)
print("ke", ke, "lead", lead, "sync", sync, "n", len(fx))
def dist(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (float(a[1]), float(a[2]), float(b[1]), float(b[2])))
    return 6371000 * math.hypot((lo2 - lo1) * math.cos((la1 + la2) / 2), la2 - la1)
def trial(keep_chunks):
    d = "mn"; shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    write(d + "/00000001.cairn", fx, raw_mut=lambda i, items: chunks[i][1] if i in keep_chunks else chunks[i][0], lead=lead, sync=sync)
    a = list(csv.reader(io.StringIO(subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"], capture_output=True, text=True).stdout)))[1:]
    b = list(csv.reader(io.StringIO(subprocess.run([C, "convert", d, "--to", "csv", "--smooth", "-o", "-"], capture_output=True, text=True).stdout)))[1:]
    return max(dist(x, y) for x, y in zip(a, b))
keys = sorted(chunks)
print("all", trial(set(keys)))
cur = set(keys)
changed = True
while changed:
    changed = False
    for k in sorted(cur):
        t = cur - {k}
        if trial(t) > 50: cur = t; changed = True
print("minimal chunks", sorted(cur), trial(cur))
for k in sorted(cur):
    print("chunk", k)
    for (f0, v0, _, _), in zip(chunks[k][0]): pass
    for f, v, e, l in chunks[k][1]: print("  ", f, v)
    print("  orig:")
    for f, v, e, l in chunks[k][0]: print("  ", f, v)
# item-level
k = sorted(cur)[0]
orig, mutd = chunks[k]
if len(orig) == len(mutd):
    idx = set(i for i in range(len(orig)) if orig[i] != mutd[i])
    def trial2(s):
        items = [mutd[i] if i in s else orig[i] for i in range(len(orig))]
        chunks[k] = (orig, items)
        v = trial({k})
        chunks[k] = (orig, mutd)
        return v
    changed = True
    while changed:
        changed = False
        for i in sorted(idx):
            if trial2(idx - {i}) > 50: idx = idx - {i}; changed = True
    print("minimal items", sorted(idx), trial2(idx))
    for i in sorted(idx): print("  ", mutd[i][0], mutd[i][1], " orig verdict", orig[i][1])
