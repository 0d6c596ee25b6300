#!/usr/bin/env python3
"""Writes a synthetic NMEA 0183 ride for benchmarks: 1 Hz RMC + GGA + GSA epochs of a bike
riding 4-9 m/s along a wandering path over rolling hills, with small receiver noise.

Usage: make-ride.py HOURS OUT.nmea [--seed N]

Dates start 2025-06-01 (gpsd adds 1024 weeks to anything before 2017, so stay after that).
Deterministic for a given seed, so every benchmark run replays the same ride."""
import math, random, sys, time


def nmea(body):
    c = 0
    for ch in body.encode():
        c ^= ch
    return "$%s*%02X\r\n" % (body, c)


def dm(value, is_lat):
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    v = abs(value)
    deg = int(v)
    minutes = (v - deg) * 60
    return ("%02d%09.6f" if is_lat else "%03d%09.6f") % (deg, minutes), hemi


def main():
    hours = float(sys.argv[1])
    out = sys.argv[2]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--seed" else 1
    rnd = random.Random(seed)
    lat, lon = 47.3769, 8.5417
    heading, speed = 90.0, 6.0
    t0 = 1748764800  # 2025-06-01T08:00:00Z
    with open(out, "w", newline="") as f:
        for i in range(int(hours * 3600)):
            t = t0 + i
            heading = (heading + rnd.gauss(0, 4)) % 360
            speed = min(9.0, max(4.0, speed + rnd.gauss(0, 0.3)))
            d = speed
            lat += d * math.cos(math.radians(heading)) / 111195.0
            lon += d * math.sin(math.radians(heading)) / (111195.0 * math.cos(math.radians(lat)))
            alt = 420 + 60 * math.sin(i / 600.0) + rnd.gauss(0, 1.5)
            nlat, nlon = lat + rnd.gauss(0, 1.5e-5), lon + rnd.gauss(0, 2e-5)
            hh, mm, ss = (t // 3600) % 24, (t // 60) % 60, t % 60
            ts = "%02d%02d%02d.00" % (hh, mm, ss)
            g = time.gmtime(t)
            date = "%02d%02d%02d" % (g.tm_mday, g.tm_mon, g.tm_year % 100)
            la, lah = dm(nlat, True)
            lo, loh = dm(nlon, False)
            hdop = 0.8 + 0.3 * rnd.random()
            f.write(nmea("GPGSA,A,3,02,05,07,09,13,16,20,27,30,,,,%.1f,%.1f,%.1f" % (hdop * 1.6, hdop, hdop * 1.3)))
            f.write(nmea("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A" % (ts, la, lah, lo, loh, speed * 1.943844, heading, date)))
            f.write(nmea("GPGGA,%s,%s,%s,%s,%s,1,09,%.1f,%.1f,M,47.0,M,," % (ts, la, lah, lo, loh, hdop, alt)))


if __name__ == "__main__":
    main()
