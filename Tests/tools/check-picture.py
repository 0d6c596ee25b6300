#!/usr/bin/env python3
"""Checks a `cairn render` picture: the SVG parses, rsvg-convert draws it to PNG, and the PNG is
not blank and holds each expected colour. Prints what it saw as JSON.

Usage: check-picture.py TRIP.svg OUT.png [--colour #rrggbb ...] [--min-pixels N]

The PNG is decoded here (zlib and the PNG filters, no imaging library). A colour counts as
present where a pixel lies within 12 of it on each channel (antialiasing blends the edges)."""
import json, struct, subprocess, sys, zlib
import xml.etree.ElementTree as ET


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, "PNG %d-bit type %d interlace %d" % (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return w, h, bpp, rows


def main():
    svg, png = sys.argv[1], sys.argv[2]
    colours = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--colour"]
    minimum = int(sys.argv[sys.argv.index("--min-pixels") + 1]) if "--min-pixels" in sys.argv else 20
    problems = []
    root = ET.parse(svg).getroot()
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        problems.append("root element %s" % root.tag)
    r = subprocess.run(["rsvg-convert", "-o", png, svg], capture_output=True, text=True)
    if r.returncode != 0:
        print("check-picture: rsvg-convert: %s" % r.stderr, file=sys.stderr)
        return 1
    w, h, bpp, rows = read_png(png)
    counts = {c: 0 for c in colours}
    targets = [(c, int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)) for c in colours]
    not_white = 0
    for row in rows:
        for x in range(0, len(row), bpp):
            rr, gg, bb = row[x], row[x + 1], row[x + 2]
            if bpp == 4 and row[x + 3] == 0:
                continue
            if rr < 245 or gg < 245 or bb < 245:
                not_white += 1
            for c, tr, tg, tb in targets:
                if abs(rr - tr) <= 12 and abs(gg - tg) <= 12 and abs(bb - tb) <= 12:
                    counts[c] += 1
    share = not_white / float(w * h)
    if share < 0.01:
        problems.append("blank: %.4f of the pixels drawn" % share)
    for c, n in counts.items():
        if n < minimum:
            problems.append("colour %s: %d pixels" % (c, n))
    out = {"width": w, "height": h, "drawn_share": round(share, 4), "colours": counts}
    if problems:
        print("check-picture: %s: %s (%s)" % (svg, "; ".join(problems), json.dumps(out)), file=sys.stderr)
        return 1
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
