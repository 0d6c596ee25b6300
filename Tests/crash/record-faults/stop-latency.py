#!/usr/bin/env python3
"""Time SIGTERM -> exit of cairn record in a given state, N trials, random moment."""
import subprocess, sys, time, random, os, signal, tempfile, threading, shutil, socket
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def run(binp, state, trials, seed=1, extra=()):
    rnd = random.Random(seed)
    times = []
    for t in range(trials):
        d = tempfile.mkdtemp(prefix="stoplat-")
        g = None
        if state == "backoff":
            port = free_port()
        else:
            rate = {"idle": "0.0001", "live": "1", "batch": "1", "fast": "0"}[state]
            args = ["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--ride", "--rate", rate]
            if state == "idle": args += ["--count", "1"]
            g = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
            port = int(g.stdout.readline().split()[1])
        rargs = [binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d + "/logs", "--baro", "none", "--clock", "fix", "--sync", "5"]
        if state in ("live", "idle"): rargs += ["--read-every", "0"]
        rargs += list(extra)
        errf = open(d + "/err", "w")
        p = subprocess.Popen(rargs, stderr=errf, stdout=subprocess.DEVNULL)
        # wait for a first message
        time.sleep(1.0 + rnd.uniform(0, 9))
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            rc = p.wait(20)
        except subprocess.TimeoutExpired:
            p.kill(); rc = "hung"
        dt = time.monotonic() - t0
        times.append(dt)
        if g: g.kill(); g.wait()
        errf.close()
        err = open(d + "/err").read()
        print("%s trial %d rc %s stop %.3f s" % (state, t, rc, dt), flush=True)
        if rc != 0: print(err)
        shutil.rmtree(d)
    times.sort()
    print("%s: n %d median %.3f max %.3f  >0.5s: %d" % (state, len(times), times[len(times)//2], times[-1], sum(1 for x in times if x > 0.5)))
if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2], int(sys.argv[3]), extra=sys.argv[4:])
