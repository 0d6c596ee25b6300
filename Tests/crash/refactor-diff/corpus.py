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
    jobs = [
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
        rc, err = record(base, src, out, extra + ["--timezone", "+02:00"])
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
    print("corpus:", sorted(x for x in os.listdir(d) if x not in ("inputs", "captured")))


if __name__ == "__main__":
    main()
