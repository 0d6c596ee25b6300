#!/usr/bin/env python3
"""Writes a synthetic NMEA 0183 ride: 1 Hz RMC + GGA + GSA epochs of a bike riding 4-9 m/s along
a wandering path over rolling hills, with small receiver noise.

Usage: make-ride.py HOURS OUT.nmea [--seed N] [--stop AT:SECONDS ...] [--dropout AT:SECONDS ...]
                    [--spikes RATE] [--truth OUT.json]

  --stop AT:SECONDS   stand still from second AT for SECONDS (doppler ~0 with odd blips, the
                      position wandering a little): a light, a café, a parked bike
  --dropout AT:SECONDS  no fix from second AT for SECONDS while riding on: a tunnel
  --spikes RATE       per riding second, the chance of one fix 40-160 m to the side
  --truth FILE        write the truth: distance ridden, stops, and the noise-free track

Dates start 2025-06-01 (gpsd adds 1024 weeks to anything before 2017, so stay after that).
Deterministic for a given seed, so every run replays the same ride."""
import argparse, json, math, random, time


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
    ap = argparse.ArgumentParser()
    ap.add_argument("hours", type=float)
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stop", action="append", default=[])
    ap.add_argument("--dropout", action="append", default=[])
    ap.add_argument("--spikes", type=float, default=0.0)
    ap.add_argument("--truth")
    ap.add_argument("--vdop", type=float, default=None, help="a fixed VDOP (default 1.3 x HDOP)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    stops = [tuple(int(x) for x in s.split(":")) for s in a.stop]
    dropouts = [tuple(int(x) for x in s.split(":")) for s in a.dropout]
    lat, lon = 47.3769, 8.5417
    heading, speed = 90.0, 6.0
    t0 = 1748764800  # 2025-06-01T08:00:00Z
    m_per_deg = 111195.0
    distance, track = 0.0, []
    with open(a.out, "w", newline="") as f:
        for i in range(int(a.hours * 3600)):
            t = t0 + i
            standing = any(at <= i < at + n for at, n in stops)
            if standing:
                v = 0.0
            else:
                heading = (heading + rnd.gauss(0, 4)) % 360
                speed = min(9.0, max(4.0, speed + rnd.gauss(0, 0.3)))
                v = speed
                lat += v * math.cos(math.radians(heading)) / m_per_deg
                lon += v * math.sin(math.radians(heading)) / (m_per_deg * math.cos(math.radians(lat)))
                distance += v if i > 0 else 0.0
            track.append((round(lat, 8), round(lon, 8)))
            if any(at <= i < at + n for at, n in dropouts):
                continue
            alt = 420 + 60 * math.sin(i / 600.0) + rnd.gauss(0, 1.5)
            nlat, nlon = lat + rnd.gauss(0, 1.5e-5), lon + rnd.gauss(0, 2e-5)
            doppler = v
            if standing:
                doppler = 0.5 + rnd.random() if rnd.random() < 0.03 else abs(rnd.gauss(0, 0.05))
            elif a.spikes > 0 and rnd.random() < a.spikes:
                side = rnd.choice((-1, 1)) * (40 + 120 * rnd.random())
                nlat += side * -math.sin(math.radians(heading)) / m_per_deg
                nlon += side * math.cos(math.radians(heading)) / (m_per_deg * math.cos(math.radians(lat)))
            hh, mm, ss = (t // 3600) % 24, (t // 60) % 60, t % 60
            ts = "%02d%02d%02d.00" % (hh, mm, ss)
            g = time.gmtime(t)
            date = "%02d%02d%02d" % (g.tm_mday, g.tm_mon, g.tm_year % 100)
            la, lah = dm(nlat, True)
            lo, loh = dm(nlon, False)
            hdop = 0.8 + 0.3 * rnd.random()
            f.write(nmea("GPGSA,A,3,02,05,07,09,13,16,20,27,30,,,,%.1f,%.1f,%.1f" % (hdop * 1.6, hdop, a.vdop if a.vdop is not None else hdop * 1.3)))
            f.write(nmea("GPRMC,%s,A,%s,%s,%s,%s,%.2f,%.1f,%s,,,A" % (ts, la, lah, lo, loh, doppler * 1.943844, heading, date)))
            f.write(nmea("GPGGA,%s,%s,%s,%s,%s,1,09,%.1f,%.1f,M,47.0,M,," % (ts, la, lah, lo, loh, hdop, alt)))
    if a.truth:
        with open(a.truth, "w") as f:
            json.dump({"distance_m": distance, "start": t0, "stops": stops, "track": track}, f)


if __name__ == "__main__":
    main()
