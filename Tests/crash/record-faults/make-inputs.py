#!/usr/bin/env python3
import importlib.util, json, random, os, sys
spec = importlib.util.spec_from_file_location("fg", os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tools/fake-gpsd.py"))
fg = importlib.util.module_from_spec(spec); spec.loader.exec_module(fg)
D = sys.argv[1] if len(sys.argv) > 1 else "/tmp/round8-inputs"; os.makedirs(D, exist_ok=True)
def tpv_at(i, tms=None):
    d = json.loads(fg.ride_tpv(i))
    if tms is not None: d["time"] = fg.iso(tms)
    return json.dumps(d, separators=(",", ":"))
def w(name, lines):
    with open(os.path.join(D, name), "wb") as f:
        for l in lines:
            f.write(l if isinstance(l, bytes) else l.encode()); f.write(b"\n")
w("plain", [fg.ride_tpv(i) for i in range(900)])
r = random.Random(5)
g = []
for i in range(900):
    k = r.random()
    if k < 0.05: g.append(b"\xff\xfe garbage \x00\x01" * r.randint(1, 50))
    elif k < 0.07: g.append('{"class":"TPV","lat":' + "9" * 70000 + "}")   # huge line
    elif k < 0.10: g.append(fg.ride_tpv(i)[: r.randint(1, 60)])           # partial
    elif k < 0.12: g.append('{"class":"SKY","satellites":[' + ",".join(['{"PRN":1}'] * 200) + "]}")
    elif k < 0.14: g.append('{"class":"TPV","mode":3,"time":"2025-06-01T08:00:%02d.000Z","lat":NaN,"lon":1e400}' % (i % 60))
    elif k < 0.15: g.append("")
    g.append(fg.ride_tpv(i))
w("garbage", g)
T0 = fg.T0 * 1000
h = []
for i in range(900):
    t = T0 + i * 1000
    if i == 100: t = 0                      # 1970
    if i == 150: t = 4102444800000 + 1000   # 2100-01-01 + 1 s
    if i == 151: t = 7258118400000          # 2200
    if 200 <= i < 203: t = T0 + 199000      # duplicate time
    if i == 300: t = T0 + 250000            # one back 50 s
    if 400 <= i < 420: t = T0 + i * 1000 + 3600_000   # an hour ahead for 20
    if i >= 600: t = T0 + i * 1000 - 120_000          # step back 2 min for good
    h.append(tpv_at(i, t))
w("hostile-time", h)
w("burst", [fg.ride_tpv(i) for i in range(30000)])
