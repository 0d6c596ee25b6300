#!/usr/bin/env python3
"""Checks `cairn cells --to geojson` output with independent readers; prints what they saw as JSON.

Usage: check-cells.py CELLS.geojson [--precision N]

geojson-validator (structure, and every geometry criterion: RFC 7946 counter-clockwise exterior
rings, closed rings, no excessive precision), GDAL's ogrinfo (no warning), and each polygon
against its geohash decoded here on its own (python's own bisection, not cairn's code).
Exit 1 when a reader rejects the file."""
import json, subprocess, sys

ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz"


def decode(gh):
    lat, lon = [-90.0, 90.0], [-180.0, 180.0]
    even = True
    for ch in gh:
        v = ALPHABET.index(ch)
        for bit in (16, 8, 4, 2, 1):
            r = lon if even else lat
            mid = (r[0] + r[1]) / 2
            if v & bit:
                r[0] = mid
            else:
                r[1] = mid
            even = not even
    return lat[0], lon[0], lat[1], lon[1]


def signed_area(ring):
    return sum(ring[i][0] * ring[i + 1][1] - ring[i + 1][0] * ring[i][1] for i in range(len(ring) - 1)) / 2


def main():
    path = sys.argv[1]
    precision = int(sys.argv[sys.argv.index("--precision") + 1]) if "--precision" in sys.argv else None
    import geojson_validator as gv
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    problems = []
    s = gv.validate_structure(d, check_crs=True)
    if s:
        problems.append("structure: %r" % (s,))
    out = {"features": len(d["features"]), "trips": 0}
    if d["features"]:
        g = gv.validate_geometries(d)
        if g.get("invalid") or g.get("problematic"):
            problems.append("geometries: invalid %r problematic %r" % (g.get("invalid"), g.get("problematic")))
        out["geometry_types"] = g.get("count_geometry_types", {})
        r = subprocess.run(["ogrinfo", "-ro", "-al", "-so", path], capture_output=True, text=True)
        if r.returncode != 0 or "Warning" in r.stderr or "ERROR" in r.stderr:
            problems.append("ogrinfo: %s %s" % (r.returncode, r.stderr.strip()))
        out["ogr_features"] = int(next((l.split(":")[1] for l in r.stdout.splitlines() if l.startswith("Feature Count")), "0"))
    seen = set()
    for i, feat in enumerate(d["features"]):
        p = feat["properties"]
        gh = p["geohash"]
        if gh in seen:
            problems.append("feature %d: %s twice" % (i, gh))
        seen.add(gh)
        if precision and len(gh) != precision:
            problems.append("feature %d: %s is not of precision %d" % (i, gh, precision))
        ring = feat["geometry"]["coordinates"][0]
        if signed_area(ring) <= 0:
            problems.append("feature %d: exterior ring not counter-clockwise" % i)
        s_, w, n, e = decode(gh)
        xs, ys = [c[0] for c in ring], [c[1] for c in ring]
        if max(abs(min(xs) - w), abs(max(xs) - e), abs(min(ys) - s_), abs(max(ys) - n)) > 1e-6:
            problems.append("feature %d: polygon %r is not cell %s %r" % (i, ring, gh, (s_, w, n, e)))
        if not (isinstance(p["trips"], int) and p["trips"] >= 1) or p["first"] > p["last"]:
            problems.append("feature %d: properties %r" % (i, p))
        out["trips"] = max(out["trips"], p["trips"])
    out["geohashes"] = sorted(seen)
    if problems:
        print("check-cells: %s: %s" % (path, "; ".join(problems[:5])), file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
