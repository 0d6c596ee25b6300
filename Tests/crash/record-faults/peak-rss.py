#!/usr/bin/env python3
import os, subprocess, time, sys, tempfile, signal
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
binp, secs = sys.argv[1], int(sys.argv[2])
d = tempfile.mkdtemp(prefix="rss-")
g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", "0"], stdout=subprocess.PIPE, text=True)
port = int(g.stdout.readline().split()[1])
p = subprocess.Popen([binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d + "/logs", "--baro", "none", "--clock", "fix", "--sync", "5", "--status", d + "/status"],
                     stderr=open(d + "/err", "w"), stdout=subprocess.DEVNULL)
samples = []
for i in range(secs // 5):
    time.sleep(5)
    rss = [l for l in open("/proc/%d/status" % p.pid) if l.startswith("VmRSS")][0].split()[1]
    samples.append(int(rss))
p.send_signal(signal.SIGTERM); p.wait(30); g.kill()
print("RSS kB every 5 s:", samples)
print(open(d + "/err").read()[-300:])
r = subprocess.run([binp, "list", d + "/logs"], capture_output=True, text=True); print(r.stdout)
