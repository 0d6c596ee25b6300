#!/usr/bin/env python3
"""record-nmea.py NMEA DIR [extra record args...]: replays NMEA through gpsd-replay and records into DIR."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import subprocess, sys, time, signal, os
repo = _REPO
nmea, d, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
rate = os.environ.get("RATE")
args = ["python3", repo + "/Tests/tools/gpsd-replay.py", nmea, "--port", "0"] + (["--rate", rate] if rate else [])
rp = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = rp.stdout.readline()
assert line.startswith("READY"), line + rp.stderr.read()
port = line.split()[-1]
rec = subprocess.Popen([repo + "/.build/debug/cairn", "record", "--gpsd", "127.0.0.1:" + port, "--dir", d, "--baro", "none",
                        "--clock", "fix", "--sync", "1"] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
for line in rp.stdout:
    if line.startswith("DONE"): break
t = time.time()
while rp.poll() is None and time.time() - t < 30: time.sleep(0.05)
rec.send_signal(signal.SIGTERM)
rec.wait(timeout=20)
print("record exit", rec.returncode, rec.stderr.read()[-500:])
