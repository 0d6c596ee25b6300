#!/usr/bin/env python3
import os, subprocess, time, sys, tempfile, signal, socket, os
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
binp, rate, usec = sys.argv[1], sys.argv[2], sys.argv[3]
d = tempfile.mkdtemp(prefix="wd-")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(d + "/n"); s.settimeout(0.2)
g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", rate], stdout=subprocess.PIPE, text=True)
port = int(g.stdout.readline().split()[1])
env = dict(os.environ, NOTIFY_SOCKET=d + "/n", WATCHDOG_USEC=usec)
p = subprocess.Popen([binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d + "/logs", "--baro", "none", "--clock", "fix"] + sys.argv[4:],
                     stderr=open(d + "/err", "w"), stdout=subprocess.DEVNULL, env=env)
t0 = time.monotonic(); wd = []
while time.monotonic() - t0 < 40:
    try: m = s.recv(4096).decode()
    except socket.timeout: continue
    if "WATCHDOG=1" in m: wd.append(time.monotonic())
p.send_signal(signal.SIGTERM); p.wait(30); g.kill()
gaps = [b - a for a, b in zip(wd, wd[1:])]
print("rate", rate, "pings", len(wd), "max gap %.3f s" % max(gaps), "mean %.3f" % (sum(gaps)/len(gaps)), "limit", int(usec)/1e6)
