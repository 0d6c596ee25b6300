#!/usr/bin/env python3
"""A FIT activity as NMEA for replaying through gpsd (Tests/Fixtures/real/edge*.nmea, elemnt-*.nmea):
one RMC, GGA and GSA per record, at the device's own cadence: time, position, speed, the course
toward the next position and the device's altitude (barometric on these devices) from the records;
HDOP 0.9, VDOP 1.2 and 9 satellites are set by the conversion, as an open-sky receiver reports
them. Records without a position, an altitude or a later time are left out.

Usage: fit-to-nmea.py IN.fit OUT.nmea   (needs the fitparse package: pip install fitparse)"""
import math, sys, fitparse

def cs(s):
    c = 0
    for ch in s: c ^= ord(ch)
    return f"${s}*{c:02X}"

def deg(v, pos, neg, w):
    h = pos if v >= 0 else neg
    v = abs(v); d = int(v); m = (v - d) * 60
    return f"{d:0{w}d}{m:07.4f}", h

def main(src, dst, session=None):
    ff = fitparse.FitFile(src)
    pts = []
    for r in ff.get_messages('record'):
        v = r.get_values()
        lat, lon, t = v.get('position_lat'), v.get('position_long'), v.get('timestamp')
        alt = v.get('enhanced_altitude', v.get('altitude'))
        if lat is None or lon is None or alt is None or t is None: continue
        lat *= 180 / 2**31; lon *= 180 / 2**31
        spd = v.get('enhanced_speed', v.get('speed')) or 0.0
        if pts and t <= pts[-1][0]: continue
        pts.append((t, lat, lon, alt, spd))
    out, crs = [], 0.0
    for i, (t, lat, lon, alt, spd) in enumerate(pts):
        if i + 1 < len(pts):  # the course toward the next position, as the device was heading
            n = pts[i + 1]
            dy = (n[1] - lat) * 111195; dx = (n[2] - lon) * 111195 * math.cos(math.radians(lat))
            if dx or dy: crs = (math.degrees(math.atan2(dx, dy)) + 360) % 360
        hms = t.strftime("%H%M%S") + ".00"; dmy = t.strftime("%d%m%y")
        la, lh = deg(lat, 'N', 'S', 2); lo, oh = deg(lon, 'E', 'W', 3)
        out.append(cs(f"GPRMC,{hms},A,{la},{lh},{lo},{oh},{spd/0.514444:.3f},{crs:.1f},{dmy},,,A"))
        out.append(cs(f"GPGGA,{hms},{la},{lh},{lo},{oh},1,09,0.9,{alt:.1f},M,0.0,M,,"))
        out.append(cs("GPGSA,A,3,02,05,07,09,13,15,18,21,26,,,,1.5,0.9,1.2"))
    open(dst, 'w').write("\r\n".join(out) + "\r\n")
    print(dst, len(out) // 3, "epochs")

main(sys.argv[1], sys.argv[2])
