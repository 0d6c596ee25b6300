#!/usr/bin/env python3
"""record-lines.py LINES DIR [extra record args]: fake-gpsd --lines, record into DIR."""
import os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
_REPO = _os.path.abspath(_HERE + "/../../..")
import subprocess, sys, time, signal
repo = _REPO
lines, d, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
rp = subprocess.Popen(["python3", repo + "/Tests/tools/fake-gpsd.py", "--lines", lines, "--port", "0", "--rate", "0"],
                      stdout=subprocess.PIPE, text=True)
port = rp.stdout.readline().split()[-1]
rec = subprocess.Popen([repo + "/.build/debug/cairn", "record", "--gpsd", "127.0.0.1:" + port, "--dir", d, "--baro", "none",
                        "--clock", "fix", "--sync", "1"] + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
for line in rp.stdout:
    if line.startswith("DONE"): break
time.sleep(1.5)
rec.send_signal(signal.SIGTERM)
rec.wait(timeout=60)
rp.kill()
print("record exit", rec.returncode, rec.stderr.read()[-300:].replace("\n", " | "))
