import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys, os, shutil, subprocess
sys.path.insert(0, _HERE)
from ride_scenarios import *
fx = ride(4000, seed=11, keep_every=6)
truth(fx, 'p.json')
def mk(name, raw1, raw2, overlap=0, lead2=False, start2=False):
    d = 'p_' + name; shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
    a, b = fx[:2000], fx[2000 - overlap:]
    write(d + '/00000001.cairn', a, raw=raw1, end=False)
    write(d + '/00000002.cairn', b, raw=raw2, part=1, start=start2, seg=True, lead=lead2)
    return d
for name, args in [("both", (True, True)), ("raw1", (True, False)), ("raw2", (False, True)), ("none", (False, False)),
                   ("overlap", (True, True, 40)), ("overlap_lead", (True, True, 40, True))]:
    d = mk(name, *args)
    print("=====", name); sys.stdout.flush()
    subprocess.run(["python3", _HERE + "/plain-vs-smooth.py", d])
    subprocess.run(["python3", _HERE + "/error-vs-truth.py", "p.json", d])
