#!/usr/bin/env python3
"""corpus.py BASE DIR: the logs every read-side case runs on, made once with the BASE binary so
that both binaries read the very same bytes.

  rec-plain, rec-garbage, rec-hostile-time   fake-gpsd streams (record-faults/make-inputs.py)
  rec-ride      a synthetic NMEA ride (make-ride.py: stops, a tunnel, spikes) through a private
                gpsd, --close-after 5: several trips in one directory
  rec-walk      the Pixel 6 walk (real NMEA), --activity walk
  rec-drive     the St Petersburg dash cam (real NMEA), --activity drive
  rec-edge      the Garmin Edge 810 ride (real NMEA, 78 min)
  fx-format1    Tests/Fixtures/logs/format1-ride.cairn (a format-1 log)
  fx-crafted    Tests/Fixtures/logs/crafted-values
  hostile-*     the logs hostile-logs.py, hostile-raw.py and export-fuzz.py craft, captured by
                running them through capture.sh (one directory per log set they hand cairn)
Also inputs/: the NMEA and TPV streams, for the record cases."""
import os, shutil, subprocess, sys
from common import ROOT, TOOLS, record, rmtree

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def with_activity(src, dest, activity):
    """src's log with every activity string (trip start, raw fixes) replaced, framed anew."""
    import struct
    from common import cairnlog
    f = cairnlog.LogFile(src)
    reg = cairnlog.crc32c(struct.pack("<I", f.salt))
    out = bytearray(f.data[:f.header_len])
    for off, typ, payload in f.frames:
        seq, i = cairnlog.varint(payload, 0)
        if typ == 1:
            n, j = cairnlog.varint(payload, i)
            payload = payload[:i] + varint(len(activity)) + activity + payload[j + n:]
        elif typ == 8:
            n, j = cairnlog.varint(payload, i)
            n2, k = cairnlog.varint(payload, j + 1)
            payload = payload[:j + 1] + varint(len(activity)) + activity + payload[k + n2:]
        covered = struct.pack("<HB", len(payload), typ) + payload
        c = cairnlog.crc32c(covered, reg) ^ 0xFFFFFFFF
        out += struct.pack("<I", (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF) + covered
    with open(dest, "wb") as g:
        g.write(out)


def activity_logs(d):
    """act-*: the walk, the drive and the ride logged under other activity names (hike is a
    walk to the rules; the rest are names cairn does not know)."""
    for name, src in (("hike", "rec-walk"), ("Walk", "rec-walk"), ("bike", "rec-ride"), ("", "rec-drive"),
                      ("drive\u00e9", "rec-drive"), ("run", "rec-ride")):
        out = os.path.join(d, "act-" + (name.encode("ascii", "backslashreplace").decode() or "empty").replace("\\", "_"))
        rmtree(out)
        os.makedirs(out)
        for n in sorted(os.listdir(os.path.join(d, src))):
            if n.endswith(".cairn"):
                with_activity(os.path.join(d, src, n), os.path.join(out, n), name.encode())


def main():
    base, d = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(d, exist_ok=True)
    inp = os.path.join(d, "inputs")
    os.makedirs(inp, exist_ok=True)
    subprocess.check_call(["python3", ROOT + "/Tests/crash/record-faults/make-inputs.py", inp])
    os.unlink(inp + "/burst")
    subprocess.check_call(["python3", TOOLS + "/make-ride.py", "0.3", inp + "/ride.nmea", "--seed", "7",
                           "--stop", "200:90", "--stop", "500:420", "--dropout", "960:25", "--spikes", "0.02"],
                          stdout=subprocess.DEVNULL)
    subprocess.check_call(["python3", TOOLS + "/make-ride.py", "0.2", inp + "/spiky.nmea", "--seed", "3",
                           "--stop", "300:200", "--dropout", "100:40", "--dropout", "600:8", "--spikes", "0.1"],
                          stdout=subprocess.DEVNULL)
    subprocess.check_call(["python3", HERE + "/make-rule-inputs.py", inp], stdout=subprocess.DEVNULL)
    G = ROOT + "/Tests/Fixtures/gpsd/"
    jobs = [
        ("rec-rules", ("lines", inp + "/rules", 300), ["--close-after", "5"]),
        ("rec-rules-walk", ("lines", inp + "/rules", 300), ["--close-after", "5", "--activity", "walk"]),
        ("rec-zeus", ("replay", G + "bundg_zeus_9.log", 1000), []),
        ("rec-plain", ("lines", inp + "/plain", 300), []),
        ("rec-garbage", ("lines", inp + "/garbage", 300), []),
        ("rec-hostile-time", ("lines", inp + "/hostile-time", 300), []),
        ("rec-ride", ("replay", inp + "/ride.nmea", 600), ["--close-after", "5"]),
        ("rec-walk", ("replay", ROOT + "/Tests/Fixtures/real/pixel6-walk.nmea", 200), ["--activity", "walk"]),
        ("rec-drive", ("replay", ROOT + "/Tests/Fixtures/real/dashcam-spb.nmea", 800), ["--activity", "drive"]),
        ("rec-edge", ("replay", ROOT + "/Tests/Fixtures/real/edge810.nmea", 1200), []),
    ]
    for name, src, extra in jobs:
        out = os.path.join(d, name)
        if os.path.isdir(out) and os.listdir(out):
            continue
        rmtree(out)
        os.makedirs(d + "/err", exist_ok=True)
        rc, err = record(base, src, out, extra + ["--timezone", "+02:00"], errpath=d + "/err/" + name)
        print(name, "rc", rc, "files", sorted(os.listdir(out)) if os.path.isdir(out) else None, flush=True)
    for name, src in (("fx-format1", ROOT + "/Tests/Fixtures/logs/format1-ride.cairn"),
                      ("fx-crafted", ROOT + "/Tests/Fixtures/logs/crafted-values")):
        out = os.path.join(d, name)
        rmtree(out)
        if os.path.isdir(src):
            shutil.copytree(src, out)
        else:
            os.makedirs(out); shutil.copy(src, out)
    cap = os.path.join(d, "captured")
    if not os.path.isdir(cap):
        os.makedirs(cap)
        env = dict(os.environ, CAPTURE_DIR=cap, CAPTURE_REAL=base)
        for script, n in (("hostile-logs.py", 3), ("hostile-raw.py", 3), ("export-fuzz.py", 2)):
            subprocess.run(["python3", ROOT + "/Tests/crash/" + script, ROOT, HERE + "/capture.sh", str(n)],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
    for i, n in enumerate(sorted(os.listdir(cap))):
        out = os.path.join(d, "hostile-%02d" % i)
        rmtree(out)
        shutil.copytree(os.path.join(cap, n), out)
    activity_logs(d)
    print("corpus:", sorted(x for x in os.listdir(d) if x not in ("inputs", "captured")))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--activities"]:
        activity_logs(os.path.abspath(sys.argv[2]))
    else:
        main()
