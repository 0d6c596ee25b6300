#!/usr/bin/env python3
"""Generates a fleet's delivered files and what the recipe must answer about them.

Usage: generate.py REMOTE --boards N --days D [--seed S] --truth TRUTH.json [--geojson]

Writes REMOTE/<board>/csv/YYYYMMDD-HHMMSS-<board>-trip<ID>.csv in cairn's CSV format (the
columns of Sources/CairnExport/Writers/CSVWriter.swift plus `board` after `trip`, numbers
trimmed as cairn writes them), and with --geojson REMOTE/<board>/geojson/<name>.geojson as
GeoJSONWriter writes them, in the layout `cairn deliver` leaves (docs: r13 contract). Boards
ride 0-3 times a day, 10-90 minutes each, at 1 Hz, around Leipzig; some stop at lights (speed
0), some lose the sky for a while (a new segment), some receivers send no speed (GGA only).
The last board is `unnamed` (no id set): its rows carry an empty `board`, its folder names it.

TRUTH.json holds, from the very numbers written (parsed back from their text), the figures
the recipe's rules give (the comments in queries.sql): per board and UTC day the distance
(haversine, cairn's mean Earth, inside segments) and the moving time; the explored geohash-7 cells (cairn's
cell walk, CELL_INDEX.md); the trips with a point in the box; the trips whose track meets the
polygon. Its code is its own (no SQL), so the engines are checked against an independent answer.
"""
import argparse, json, math, os, random, sys

R = 6_371_008.8
CENTRE = (51.3397, 12.3731)  # Leipzig
ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz"
COLUMNS, ROWS = float(1 << 18), float(1 << 17)  # geohash precision 7: 18 bits lon, 17 lat
# The area questions: a box around the centre and a triangle north-east of it (lon, lat).
BOX = {"south": 51.330, "west": 12.355, "north": 51.348, "east": 12.392}
POLYGON = [(12.40, 51.36), (12.46, 51.36), (12.43, 51.40), (12.40, 51.36)]


def haversine(lat1, lon1, lat2, lon2):
    k = math.pi / 180
    a = math.sin((lat2 - lat1) * k / 2) ** 2 + math.cos(lat1 * k) * math.cos(lat2 * k) * math.sin((lon2 - lon1) * k / 2) ** 2
    return 2 * R * math.asin(min(1.0, math.sqrt(a)))


def num(v, decimals):
    """A number as cairn writes it: fixed decimals, trailing zeros (and a bare point) trimmed."""
    s = "%.*f" % (decimals, v)
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def iso(t):
    import time
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def gx(lon):
    return (lon + 180) / 360 * COLUMNS


def gy(lat):
    return (lat + 90) / 180 * ROWS


def spread(v):
    out = 0
    for i in range(18):
        out |= ((v >> i) & 1) << (2 * i)
    return out


def geohash(ix, iy):
    n = spread(ix) | spread(iy) << 1
    return "".join(ALPHABET[(n >> (5 * (6 - i))) & 31] for i in range(7))


def walk(a, b, cells):
    """The cells the straight step a -> b (lat, lon) passes: both ends', and on each side of
    every grid line it crosses. A step over 4,096 cells or more marks only its ends (as cairn)."""
    x0, y0, x1, y1 = gx(a[1]), gy(a[0]), gx(b[1]), gy(b[0])
    cells.add((int(x0), int(y0)))
    cells.add((int(x1), int(y1)))
    if abs(int(x1) - int(x0)) + abs(int(y1) - int(y0)) >= 4096:
        return
    for k in range(min(int(x0), int(x1)) + 1, max(int(x0), int(x1)) + 1):
        y = y0 + (k - x0) / (x1 - x0) * (y1 - y0)
        cells.add((k - 1, int(y)))
        cells.add((k, int(y)))
    for k in range(min(int(y0), int(y1)) + 1, max(int(y0), int(y1)) + 1):
        x = x0 + (k - y0) / (y1 - y0) * (x1 - x0)
        cells.add((int(x), k - 1))
        cells.add((int(x), k))


def in_polygon(lon, lat, poly):
    inside = False
    for (ax, ay), (bx, by) in zip(poly, poly[1:]):
        if (ay > lat) != (by > lat) and lon < ax + (lat - ay) / (by - ay) * (bx - ax):
            inside = not inside
    return inside


def crosses(p, q, r, s):
    def orient(a, b, c):
        v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (v > 0) - (v < 0)
    return orient(p, q, r) != orient(p, q, s) and orient(r, s, p) != orient(r, s, q)


def step_meets_polygon(a, b, poly):
    return in_polygon(b[0], b[1], poly) or any(crosses(a, b, poly[i], poly[i + 1]) for i in range(len(poly) - 1))


def ride(rng, home, start, minutes, gga_only):
    """Rows (t, lat, lon, ele, speed, course, segment) of one ride at 1 Hz."""
    lat, lon = home
    heading = rng.uniform(0, 2 * math.pi)
    cruise = rng.uniform(3.5, 8.0)
    ele = rng.uniform(100, 140)
    t, end, segment = start, start + minutes * 60, 1
    rows, stop_left = [], 0
    while t < end:
        if stop_left > 0:
            v = 0.0
            stop_left -= 1
        else:
            if rng.random() < 1 / 240:
                stop_left = rng.randint(10, 45)  # a red light
            heading += rng.gauss(0, 0.08)
            v = max(0.5, cruise + rng.gauss(0, 0.6))
            # Drift back toward home so the fleet stays in town.
            dlat, dlon = (home[0] - lat) * 111_000, (home[1] - lon) * 70_000
            if math.hypot(dlat, dlon) > 6000:
                heading = math.atan2(dlon, dlat) + rng.gauss(0, 0.3)
        lat += v * math.cos(heading) / R * 180 / math.pi
        lon += v * math.sin(heading) / (R * math.cos(lat * math.pi / 180)) * 180 / math.pi
        ele += rng.gauss(0, 0.15)
        rows.append((t, num(lat, 7), num(lon, 7), num(ele, 2), "" if gga_only else num(v, 3),
                     "" if gga_only or v == 0 else num(math.degrees(heading) % 360, 2), segment))
        t += 1
        if rng.random() < 1 / 1800 and end - t > 300:  # a tunnel: the sky is lost a while, a new segment
            t += rng.randint(20, 120)
            segment += 1
    return rows


def geojson(path, board, trip, rows):
    """One trip as GeoJSONWriter writes it (plain): a MultiLineString Feature, a line a segment,
    [lon, lat, ele] at 6 and 2 decimals (every height trusted), the figures of `cairn list
    --json` (with `board` when known) in properties, times, speeds and temperatures in coordinateProperties.
    The figures are the generator's: distance inside segments, moving time by the recipe's rule,
    ascent and descent the heights' ups and downs."""
    lines, times, speeds, temps = [], [], [], []
    distance = moving = ascent = descent = top = 0.0
    prev = None
    for t, la, lo, el, v, _, seg in rows:
        if prev is None or prev[3] != seg:
            lines.append([])
            times.append([])
            speeds.append([])
            temps.append([])
        elif prev is not None:
            d = haversine(prev[1], prev[2], float(la), float(lo))
            distance += d
            speed = (prev[4] + float(v)) / 2 if v and prev[4] is not None else d / (t - prev[0])
            moving += (t - prev[0]) if t - prev[0] <= 60 and speed >= 0.28 else 0
            dh = float(el) - prev[5]
            ascent, descent = ascent + max(dh, 0), descent + max(-dh, 0)
        lines[-1].append("[%s,%s,%s]" % (num(float(lo), 6), num(float(la), 6), el))
        times[-1].append('"%s"' % iso(t))
        speeds[-1].append(v or "null")
        temps[-1].append("null")
        if v:
            top = max(top, float(v))
        prev = (t, float(la), float(lo), seg, float(v) if v else None, float(el))

    def nest(parts):
        return "[" + ",".join("[" + ",".join(p) + "]" for p in parts) + "]"
    fields = [("trip", str(trip)), ("activity", '"ride"'), ("start", '"%s"' % iso(rows[0][0])), ("end", '"%s"' % iso(rows[-1][0])),
              ("points", str(len(rows))), ("segments", str(len(lines))), ("distance_m", num(distance, 1)),
              ("moving_time_s", num(moving, 1)), ("elapsed_s", num(rows[-1][0] - rows[0][0], 1)),
              ("ascent_m", num(ascent, 1)), ("descent_m", num(descent, 1)),
              ("max_speed_mps", num(max(top, distance / moving if moving else 0), 2) if rows[0][4] or moving else "null"),
              ("status", '"closed"'), ("title", '"Trip %d"' % trip)]
    if board:  # where cairn puts it (TripFigures.json): after the activity, only when known
        fields.insert(2, ("board", '"%s"' % board))
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"type":"FeatureCollection","features":[\n')
        f.write('{"type":"Feature","geometry":{"type":"MultiLineString","coordinates":%s},"properties":{' % nest(lines))
        f.write(",".join('"%s":%s' % kv for kv in fields))
        f.write(',"coordinateProperties":{"times":%s,"speeds":%s,"temperatures":%s}}}' % (nest(times), nest(speeds), nest(temps)))
        f.write("\n]}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("remote")
    ap.add_argument("--boards", type=int, default=100)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--geojson", action="store_true", help="also REMOTE/<board>/geojson/<name>.geojson")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    boards = ["courier-%03d-%06x" % (i + 1, rng.getrandbits(24)) for i in range(a.boards - 1)] + ["unnamed"]
    day0 = 1_777_593_600  # 2026-05-01T00:00:00Z
    days, cells, box, polygon = {}, set(), set(), set()
    points = trips = 0
    for board in boards:
        home = (CENTRE[0] + rng.uniform(-0.05, 0.05), CENTRE[1] + rng.uniform(-0.08, 0.08))
        gga_only = rng.random() < 0.15
        trip = rng.randint(1, 400)
        folder = os.path.join(a.remote, board, "csv")
        os.makedirs(folder, exist_ok=True)
        for d in range(a.days):
            # 0-3 rides, one after the other between 06:00 and 23:00 UTC (never past midnight).
            s = 6 * 3600
            for _ in range(rng.choice([0, 1, 1, 2, 2, 3])):
                s += rng.randint(0, 4 * 3600)
                minutes = rng.randint(10, 90)
                trip += 1
                trips += 1
                rows = ride(rng, home, day0 + d * 86_400 + s, minutes, gga_only)
                s = rows[-1][0] - day0 - d * 86_400 + 60
                points += len(rows)
                stamp = iso(rows[0][0]).replace("-", "").replace(":", "").replace("T", "-")[:15]
                name = "%s-%strip%d.csv" % (stamp, "" if board == "unnamed" else board + "-", trip)
                column = "" if board == "unnamed" else board
                with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                    f.write("time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board\n")
                    for t, la, lo, el, v, c, seg in rows:
                        f.write("%s,%s,%s,%s,%s,%s,,,,%d,%d,%s\n" % (iso(t), la, lo, el, v, c, seg, trip, column))
                if a.geojson:
                    os.makedirs(os.path.join(a.remote, board, "geojson"), exist_ok=True)
                    geojson(os.path.join(a.remote, board, "geojson", name[:-4] + ".geojson"), column, trip, rows)
                key = "%s/%d" % (board, trip)
                prev = None
                for t, la, lo, _, v, _, seg in rows:
                    lat, lon, speed = float(la), float(lo), (float(v) if v else None)
                    if lat >= BOX["south"] and lat <= BOX["north"] and lon >= BOX["west"] and lon <= BOX["east"]:
                        box.add(key)
                    cells.add((int(gx(lon)), int(gy(lat))))
                    if prev is None or prev[3] != seg:
                        if in_polygon(lon, lat, POLYGON):
                            polygon.add(key)
                        prev = (t, lat, lon, seg, speed)
                        continue
                    pt, plat, plon, _, pspeed = prev
                    dist = haversine(plat, plon, lat, lon)
                    dt = t - pt
                    v = (pspeed + speed) / 2 if pspeed is not None and speed is not None else (
                        speed if speed is not None else pspeed if pspeed is not None else dist / dt)
                    figures = days.setdefault(board, {}).setdefault(iso(t)[:10], [0.0, 0])
                    figures[0] += dist
                    if dt <= 60 and v >= 0.28:
                        figures[1] += dt
                    walk((plat, plon), (lat, lon), cells)
                    if key not in polygon and step_meets_polygon((plon, plat), (lon, lat), POLYGON):
                        polygon.add(key)
                    prev = (t, lat, lon, seg, speed)
    truth = {
        "boards": len(boards), "board_names": boards, "trips": trips, "points": points,
        "days": {b: {d: {"distance_m": f[0], "moving_s": f[1]} for d, f in v.items()} for b, v in days.items()},
        "cells": sorted(geohash(ix, iy) for ix, iy in cells),
        "box": BOX, "box_trips": sorted(box),
        "polygon": "POLYGON((%s))" % ", ".join("%r %r" % p for p in POLYGON), "polygon_trips": sorted(polygon),
    }
    with open(a.truth, "w", encoding="utf-8") as f:
        json.dump(truth, f)
    print("generated %d boards, %d trips, %d points, %d cells" % (len(boards), trips, points, len(cells)), file=sys.stderr)


if __name__ == "__main__":
    main()
