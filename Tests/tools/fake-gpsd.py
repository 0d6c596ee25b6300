#!/usr/bin/env python3
"""A tiny fake gpsd for fault tests: TCP on 127.0.0.1, gpsd's JSON protocol.

On connect it sends VERSION; it answers ?WATCH with DEVICES and WATCH, then streams lines.

Sources (one of):
  --ride           an endless synthetic ride: TPV i has time T0 + i s (see ride_tpv); a new
                   client continues where the previous one stopped, so a restarted recorder
                   resumes its trip. --start I sets the first index.
  --lines FILE     send FILE's lines as they are (crafted TPVs, garbage, ...), once per client.

Options: --rate N (lines per second, 0 = as fast as the socket takes them), --port P (0 = free
port), --drop-after N (close each connection after N lines), --count N (stop the ride after N
TPVs in total; then DONE is printed).

Protocol on stdout (flushed): READY <port>; CLIENT <n> when the n-th client has WATCHed;
SENT <k> each time a client goes away (lines sent to it); DONE <k> after the last line of a
--lines file or --count ride has been sent (the connection then stays open, idle).
Stdlib only."""
import argparse, json, math, os, select, signal, socket, sys, time

T0 = 1_748_764_800  # 2025-06-01T08:00:00Z


def ride_fields(i):
    """Integer grid values of ride point i (what the log must hold, exactly): time ms, lat and
    lon in 1e-7 deg, altHAE/altMSL/eph/epx/epy/epv in cm, speed and climb in mm/s, track in
    0.01 deg. Values stay far from rounding boundaries after a text round trip. The doppler speed
    agrees with the displacement (about 14 m/s) within half a metre a second, and the course with its
    direction, as a receiver's do."""
    lat = 470_000_000 + 900 * i + int(4000 * math.sin(i / 50.0))
    lon = 85_000_000 + 1300 * i + int(3000 * math.cos(i / 70.0))
    # The course is where the positions go (a receiver's comes from the same doppler).
    north = 900 + 80 * math.cos(i / 50.0)
    east = (1300 - 3000 / 70.0 * math.sin(i / 70.0)) * math.cos(math.radians(47.0))
    track = int(round(math.degrees(math.atan2(east, north)) * 100)) % 36_000
    alt = 42_000 + int(3000 * math.sin(i / 300.0))
    return {
        "time": (T0 + i) * 1000, "lat": lat, "lon": lon, "mode": 3,
        "altHAE": alt + 4_827, "altMSL": alt, "eph": 500 + (i % 7) * 10, "epx": 300, "epy": 350,
        "epv": 900, "speed": 13_500 + (i % 11) * 100, "track": track, "climb": (i % 5) * 100 - 200,
    }


def iso(ms):
    s, frac = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % frac


def ride_tpv(i):
    f = ride_fields(i)
    return json.dumps({
        "class": "TPV", "device": "/dev/fake", "mode": 3, "time": iso(f["time"]),
        "lat": f["lat"] / 1e7, "lon": f["lon"] / 1e7,
        "altHAE": f["altHAE"] / 100, "altMSL": f["altMSL"] / 100,
        "eph": f["eph"] / 100, "epx": f["epx"] / 100, "epy": f["epy"] / 100, "epv": f["epv"] / 100,
        "speed": f["speed"] / 1000, "track": f["track"] / 100, "climb": f["climb"] / 1000,
    }, separators=(",", ":"))


VERSION = '{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}'
DEVICES = ('{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/fake","driver":"NMEA0183",'
           '"activated":"2025-06-01T08:00:00.000Z","flags":1,"native":0,"bps":9600,"parity":"N",'
           '"stopbits":1,"cycle":1.00}]}')
WATCH = ('{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,'
         '"timing":false,"split24":false,"pps":false}')


def say(line):
    try:
        print(line, flush=True)
    except BrokenPipeError:
        pass


def serve(a):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", a.port))
    srv.listen(4)
    say("READY %d" % srv.getsockname()[1])
    lines = None
    if a.lines:
        with open(a.lines, "rb") as f:
            lines = [l.rstrip(b"\r\n") for l in f.read().split(b"\n")]
            if lines and lines[-1] == b"":
                lines.pop()
    index = a.start
    sent_total = 0
    clients = 0
    done = False
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            conn.sendall(VERSION.encode() + b"\r\n")
            # Wait for ?WATCH (libgps sends it right after connecting).
            buf = b""
            deadline = time.monotonic() + 5
            while b"?WATCH" not in buf and time.monotonic() < deadline:
                r, _, _ = select.select([conn], [], [], 0.2)
                if r:
                    d = conn.recv(4096)
                    if not d:
                        break
                    buf += d
            if b"?WATCH" not in buf:
                conn.close()
                continue
            conn.sendall(DEVICES.encode() + b"\r\n" + WATCH.encode() + b"\r\n")
            clients += 1
            say("CLIENT %d" % clients)
            sent = 0
            t0 = time.monotonic()
            while True:
                if a.drop_after and sent >= a.drop_after:
                    break
                if lines is not None:
                    if sent >= len(lines):
                        if not done:
                            say("DONE %d" % sent)
                            done = True
                        # Idle until the client goes away.
                        r, _, _ = select.select([conn], [], [], 0.5)
                        if r and not conn.recv(4096):
                            break
                        continue
                    line = lines[sent]
                else:
                    if a.count and index - a.start >= a.count:
                        if not done:
                            say("DONE %d" % sent_total)
                            done = True
                        r, _, _ = select.select([conn], [], [], 0.5)
                        if r and not conn.recv(4096):
                            break
                        continue
                    line = ride_tpv(index).encode()
                if a.rate > 0:
                    delay = t0 + sent / a.rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                # Drain anything the client says (it may send ?WATCH again or nothing).
                r, _, _ = select.select([conn], [], [], 0)
                if r and not conn.recv(4096):
                    break
                conn.sendall(line + b"\r\n")
                sent += 1
                sent_total += 1
                if lines is None:
                    index += 1
        except (BrokenPipeError, ConnectionResetError, OSError):
            pass
        finally:
            conn.close()
            say("SENT %d" % sent)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--ride", action="store_true")
    ap.add_argument("--lines")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--rate", type=float, default=0.0)
    ap.add_argument("--drop-after", type=int, default=0)
    a = ap.parse_args()
    if not a.ride and not a.lines:
        ap.error("give --ride or --lines FILE")
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    try:
        serve(a)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
