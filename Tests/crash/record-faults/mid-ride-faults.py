#!/usr/bin/env python3
"""Faults mid-ride: remove the log dir / remount read-only / status unwritable / SIGINT twice / stderr pipe closed."""
import subprocess, sys, time, os, signal, tempfile, shutil, re
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
binp, case = sys.argv[1], sys.argv[2]
base = tempfile.mkdtemp(prefix="mid-")
mnt = base + "/card"; os.makedirs(mnt)
if case in ("ro", "rmdir"):
    subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt])
g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", "20"], stdout=subprocess.PIPE, text=True)
port = int(g.stdout.readline().split()[1])
args = [binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", mnt + "/logs", "--baro", "none", "--clock", "fix", "--sync", "1"]
if case == "status": args += ["--status", base + "/st/status"]; os.makedirs(base + "/st")
errp = base + "/err"
if case == "epipe":
    p = subprocess.Popen(args, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    p.stderr.read(20); p.stderr.close()
else:
    p = subprocess.Popen(args, stderr=open(errp, "w"), stdout=subprocess.DEVNULL)
time.sleep(3)
t = time.monotonic()
if case == "rmdir":
    shutil.rmtree(mnt + "/logs"); time.sleep(4)
    print("after rmdir:", os.listdir(mnt))
elif case == "ro":
    subprocess.check_call(["mount", "-o", "remount,ro", mnt]); time.sleep(4)
    subprocess.check_call(["mount", "-o", "remount,rw", mnt]); time.sleep(4)
elif case == "status":
    os.chmod(base + "/st", 0o500); shutil.rmtree(base + "/st"); os.makedirs(base + "/st/status.tmp"); time.sleep(4)
    shutil.rmtree(base + "/st"); time.sleep(3)
elif case == "sigint2":
    pass
else:
    time.sleep(3)
print("alive:", p.poll() is None)
t0 = time.monotonic()
if case == "sigint2":
    p.send_signal(signal.SIGINT); time.sleep(0.001); p.send_signal(signal.SIGINT)
else:
    p.send_signal(signal.SIGTERM)
rc = p.wait(30)
print("rc", rc, "stop %.3f s" % (time.monotonic() - t0))
g.kill()
if case != "epipe": print(re.sub(r"127\.0\.0\.1:\d+", "GPSD", open(errp).read()))
for c in (["list", mnt + "/logs"], ["verify", mnt + "/logs"]):
    r = subprocess.run([binp] + c, capture_output=True, text=True)
    print(c[0], r.returncode, r.stdout[-700:], r.stderr[-300:])
if case in ("ro", "rmdir"): subprocess.run(["umount", mnt])
