#!/usr/bin/env python3
import subprocess, sys, time, os, signal, tempfile, shutil, re
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); import log_summary as norm
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
def record(binp, inp, rate, extra=(), env=None):
    d = tempfile.mkdtemp(prefix="diff-")
    g = subprocess.Popen(["python3", ROOT + "/Tests/tools/fake-gpsd.py", "--lines", inp, "--rate", str(rate)] + (["--drop-after", os.environ["DROP"]] if os.environ.get("DROP") else []), stdout=subprocess.PIPE, text=True)
    port = int(g.stdout.readline().split()[1])
    errf = open(d + "/err", "w")
    p = subprocess.Popen([binp, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d + "/logs", "--baro", "none", "--clock", "fix", "--sync", "1"] + list(extra),
                         stderr=errf, stdout=subprocess.DEVNULL, env=env)
    while True:
        l = g.stdout.readline()
        if not l or l.startswith("DONE"): break
    time.sleep(2.5)
    p.send_signal(signal.SIGTERM); rc = p.wait(30)
    g.kill(); g.wait(); errf.close()
    err = open(d + "/err").read()
    return d, rc, err
def canon_err(e):
    e = re.sub(r"/tmp/diff-[^/ ]+", "DIR", e)
    e = re.sub(r"127\.0\.0\.1:\d+", "GPSD", e)
    return e
if __name__ == "__main__":
    old, new, inp, rate = sys.argv[1:5]
    extra = sys.argv[5:]
    res = []
    for b in (old, new):
        d, rc, err = record(b, inp, rate, extra)
        lst = subprocess.run([new, "list", d + "/logs"], capture_output=True, text=True)
        ver = subprocess.run([new, "verify", d + "/logs"], capture_output=True, text=True)
        res.append((d, rc, canon_err(err), norm.norm(d + "/logs"), canon_err(lst.stdout), ver.returncode))
    (d1, rc1, e1, n1, l1, v1), (d2, rc2, e2, n2, l2, v2) = res
    print("rc", rc1, rc2, "verify", v1, v2)
    if e1 != e2: print("STDERR DIFFERS\n--old\n" + e1 + "--new\n" + e2)
    if l1 != l2: print("LIST DIFFERS\n--old\n" + l1 + "--new\n" + l2)
    if n1 != n2:
        open("/tmp/round8-n1", "w").write("\n".join(n1)); open("/tmp/round8-n2", "w").write("\n".join(n2))
        print("LOG CONTENT DIFFERS (see /tmp/round8-n1 n2)")
    else: print("log content identical:", len(n1), "lines")
    print(l2)
