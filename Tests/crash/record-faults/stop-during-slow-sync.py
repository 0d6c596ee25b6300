#!/usr/bin/env python3
"""SIGTERM while fdatasync is slow (strace delays each by DELAY s): time SIGTERM -> STOPPING=1."""
import subprocess, sys, time, os, signal, tempfile, socket, random, shutil
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
binp, trials, delay = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
extra = sys.argv[4:]
rnd = random.Random(3)
res = []
for t in range(trials):
    d = tempfile.mkdtemp(prefix="syncstop-")
    ns = d + "/notify"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(ns)
    g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", "1"], stdout=subprocess.PIPE, text=True)
    port = int(g.stdout.readline().split()[1])
    env = dict(os.environ, NOTIFY_SOCKET=ns)
    p = subprocess.Popen(["strace", "-f", "-o", d + "/strace", "-tt", "-e", "trace=fdatasync,poll,ppoll", "-e", "inject=fdatasync:delay_enter=%d" % int(delay * 1e6),
                          binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d + "/logs", "--baro", "none", "--clock", "fix"] + extra,
                         stderr=open(d + "/err", "w"), stdout=subprocess.DEVNULL, env=env)
    time.sleep(8 + rnd.uniform(0, 10))
    # the cairn pid: child of strace
    kids = open("/proc/%d/task/%d/children" % (p.pid, p.pid)).read().split()
    cpid = int(kids[0])
    t0 = time.monotonic()
    os.kill(cpid, signal.SIGTERM)
    s.settimeout(30)
    stopping = None
    while True:
        try: m = s.recv(4096).decode()
        except socket.timeout: break
        if m.startswith("STOPPING=1"): stopping = time.monotonic() - t0; break
    p.wait(60)
    total = time.monotonic() - t0
    g.kill(); g.wait()
    print("trial %d: SIGTERM -> STOPPING %.3f s, -> exit %.3f s" % (t, stopping or -1, total), flush=True)
    res.append(stopping or 99)
    if (stopping or 99) > delay + 0.3: shutil.copy(d + "/strace", "/tmp/round8-strace-slow-%d" % t)
    shutil.rmtree(d)
res.sort(); print("max %.3f median %.3f" % (res[-1], res[len(res)//2]))
