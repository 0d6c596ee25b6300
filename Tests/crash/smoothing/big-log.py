import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import sys; sys.path.insert(0, _HERE)
from ride_scenarios import *
import os, shutil
n = int(sys.argv[1]); d = sys.argv[2]
shutil.rmtree(d, ignore_errors=True); os.makedirs(d)
# stream in chunks to keep python memory low
import ride_scenarios as scen
fx = ride(n, hz=1, seed=9, keep_every=2)
write(d + '/00000001.cairn', fx)
