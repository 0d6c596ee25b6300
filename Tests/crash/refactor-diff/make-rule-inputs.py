#!/usr/bin/env python3
"""make-rule-inputs.py DIR: TPV streams for fake-gpsd.py --lines that walk every fix rule:
accuracy swinging from 1 m to 500 m and back, 2-D fixes, missing error estimates and heights,
spikes out and back, a standstill with jitter long enough to close a trip (--close-after 5),
a dropout, time repeats and a cold start that converges. Deterministic."""
import importlib.util, json, math, os, random, sys
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fg", os.path.join(HERE, "../../tools/fake-gpsd.py"))
fg = importlib.util.module_from_spec(spec); spec.loader.exec_module(fg)
D = sys.argv[1]
os.makedirs(D, exist_ok=True)


def tpv(i, **over):
    d = json.loads(fg.ride_tpv(i))
    d.update(over)
    for k in [k for k, v in d.items() if v is None]:
        del d[k]
    return json.dumps(d, separators=(",", ":"))


r = random.Random(11)
lines = []
t = 0
for i in range(60):  # cold start: error estimates falling from 300 m, position converging
    k = 300 * math.exp(-i / 8.0) + 3
    lines.append(tpv(i, eph=round(k, 1), epx=round(k * .7, 1), epy=round(k * .7, 1), lat=fg.ride_fields(i)["lat"] / 1e7 + r.gauss(0, k / 1e5)))
for i in range(60, 400):
    over = {}
    if i % 37 == 0:
        over = {"lat": fg.ride_fields(i)["lat"] / 1e7 + 0.002}  # a spike, out and back
    elif 120 <= i < 140:
        over = {"eph": 60 + (i - 120) * 20.0, "epx": None, "epy": None}  # accuracy worsening
    elif 140 <= i < 150:
        over = {"mode": 2, "altHAE": None, "altMSL": None, "epv": None}
    elif 150 <= i < 160:
        over = {"eph": None, "epx": None, "epy": None, "speed": None, "track": None}
    elif i in (200, 201, 202):
        over = {"time": fg.iso(fg.ride_fields(199)["time"])}  # the same time thrice
    elif 250 <= i < 262:
        continue  # a dropout while moving
    elif 300 <= i < 310:
        over = {"altHAE": 9000.0, "altMSL": 8990.0}  # a height spike
    lines.append(tpv(i, **over))
# a standstill with jitter for 7 minutes at 1 Hz: closes the trip with --close-after 5
last = fg.ride_fields(399)
for j in range(420):
    i = 400 + j
    lines.append(json.dumps({"class": "TPV", "device": "/dev/fake", "mode": 3, "time": fg.iso(fg.T0 * 1000 + i * 1000),
                             "lat": last["lat"] / 1e7 + r.gauss(0, 2e-6), "lon": last["lon"] / 1e7 + r.gauss(0, 2e-6),
                             "altHAE": 470.0, "altMSL": 420.0, "eph": 4.0, "epx": 3.0, "epy": 3.5, "epv": 8.0,
                             "speed": abs(r.gauss(0, 0.15)), "track": r.uniform(0, 360), "climb": 0.0}, separators=(",", ":")))
for i in range(820, 1000):  # riding again: a second trip
    lines.append(tpv(i - 420))
with open(os.path.join(D, "rules"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "lines")

# 400 s standing before the ride starts: more fixes than the 256 the recorder keeps before a
# trip opens (the first raw fixes record's left_out), then a ride, a stop of 6 min, a ride.
lines = []
first = fg.ride_fields(0)
for j in range(400):
    lines.append(json.dumps({"class": "TPV", "device": "/dev/fake", "mode": 3, "time": fg.iso(fg.T0 * 1000 - (400 - j) * 1000),
                             "lat": first["lat"] / 1e7 + r.gauss(0, 2e-6), "lon": first["lon"] / 1e7 + r.gauss(0, 2e-6),
                             "altHAE": 470.0, "altMSL": 420.0, "eph": 5.0, "epx": 3.0, "epy": 3.5, "epv": 8.0,
                             "speed": abs(r.gauss(0, 0.1)), "track": 0.0, "climb": 0.0}, separators=(",", ":")))
lines += [tpv(i) for i in range(0, 300)]
lines += [tpv(299, time=fg.iso(fg.ride_fields(299)["time"] + k * 1000), speed=0.0) for k in range(1, 361)]
lines += [tpv(i, time=fg.iso(fg.ride_fields(i)["time"] + 361000)) for i in range(300, 500)]
with open(os.path.join(D, "prestand"), "w") as f:
    f.write("\n".join(lines) + "\n")
print(len(lines), "lines")
