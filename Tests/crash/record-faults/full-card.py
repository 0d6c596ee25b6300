#!/usr/bin/env python3
"""Full card: tmpfs of 256k, ride at 200/s; fill, then free room; SIGTERM; report."""
import subprocess, sys, time, os, signal, tempfile, shutil, re
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
binp, mnt = sys.argv[1], sys.argv[2]
os.makedirs(mnt, exist_ok=True)
subprocess.run(["umount", mnt], stderr=subprocess.DEVNULL)
subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mnt])
g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", "200"], stdout=subprocess.PIPE, text=True)
port = int(g.stdout.readline().split()[1])
errp = mnt + ".err"
p = subprocess.Popen([binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", mnt + "/logs", "--baro", "none", "--clock", "fix", "--sync", "1"],
                     stderr=open(errp, "w"), stdout=subprocess.DEVNULL)
time.sleep(2)
# fill the rest of the card
with open(mnt + "/filler", "wb") as f:
    try:
        while True: f.write(b"\0" * 4096); f.flush()
    except OSError as e: print("filler:", e)
time.sleep(12)
os.unlink(mnt + "/filler")
time.sleep(5)
p.send_signal(signal.SIGTERM); rc = p.wait(30)
g.kill()
print("rc", rc)
print(re.sub(r"127\.0\.0\.1:\d+", "GPSD", open(errp).read()))
for c in (["list", mnt + "/logs"], ["verify", mnt + "/logs"]):
    r = subprocess.run([binp] + c, capture_output=True, text=True)
    print(c[0], r.returncode, r.stdout[-600:], r.stderr[-400:])
subprocess.run(["umount", mnt])
