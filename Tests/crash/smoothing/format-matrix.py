import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import subprocess, sys, os, json, hashlib, glob, math, tempfile
C = _REPO + "/.build/debug/cairn"
d = sys.argv[1]
files = sorted(glob.glob(d + "/*.cairn"))
h0 = {f: hashlib.sha256(open(f, "rb").read()).hexdigest() for f in files}
opts = [[], ["--fill-gaps"], ["--laps", "1km"], ["--laps", "pause"], ["--refilter"], ["--refilter", "--activity", "walk"],
        ["--refilter", "--activity", "drive", "--fill-gaps"], ["--privacy-zone", "PZ"], ["--fill-gaps", "--laps", "5km", "--privacy-zone", "PZ"]]
# privacy zone at the first point
p = subprocess.run([C, "convert", d, "--to", "csv", "-o", "-"], capture_output=True, text=True)
rows = p.stdout.splitlines()[1:]
pz = "%s,%s,300" % tuple(rows[0].split(",")[1:3]) if rows else "0,0,1"
def hav(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[1], a[0], b[1], b[0]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371008.8 * math.asin(math.sqrt(h))
out = tempfile.mkdtemp(prefix="a9m-")
for o in opts:
    o = [pz if x == "PZ" else x for x in o]
    csvp = subprocess.run([C, "convert", d, "--to", "csv", "--smooth", "-o", "-"] + o, capture_output=True, text=True, timeout=900)
    n_csv = len(csvp.stdout.splitlines()) - 1
    res = ["csv:%d rc%d" % (n_csv, csvp.returncode)]
    for fmt in ["gpx", "geojson", "kml", "fit"]:
        target = out + "/x." + fmt if fmt != "fit" else out + "/fit-" + "-".join(x.replace(",", "_") for x in o)
        q = subprocess.run([C, "convert", d, "--to", fmt, "--smooth", "--force", "-o", target] + o, capture_output=True, text=True, timeout=900)
        info = "%s rc%d" % (fmt, q.returncode)
        if q.returncode < 0 or q.returncode > 3: info += " SIGNAL/BAD"
        if fmt == "gpx" and q.returncode == 0:
            info += ":%d" % open(target).read().count("<trkpt")
        if fmt == "geojson" and q.returncode == 0:
            j = json.load(open(target))
            tot = 0; npts = 0; dm = 0
            for ft in j["features"]:
                g = ft["geometry"]; lines = g["coordinates"] if g["type"] == "MultiLineString" else [g["coordinates"]] if g["type"] == "LineString" else [[g["coordinates"]]] if g["type"] == "Point" else g["coordinates"]
                if g["type"] not in ("MultiLineString", "LineString"): info += " geom=" + g["type"]
                for ln in lines:
                    npts += len(ln); tot += sum(hav(a, b) for a, b in zip(ln, ln[1:]))
                dm += ft["properties"].get("distance_m", 0)
            info += ":%d d=%.0f/%.0f" % (npts, dm, tot)
        res.append(info)
        if q.stderr.strip() and ("rc0" not in info): res.append("ERR " + q.stderr.strip()[:200])
    print(" ".join(o) or "(smooth only)", "|", " ".join(res))
for f in files:
    if hashlib.sha256(open(f, "rb").read()).hexdigest() != h0[f]: print("LOG MODIFIED", f)
subprocess.run(["rm", "-rf", out])
