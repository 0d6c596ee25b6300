#!/usr/bin/env python3
"""Crash test B: kill -9 of a recording `cairn record`, then a restart.

    kill9.py --bin CAIRN [--trials N] [--jobs J] [--seed S] [--json OUT]

Each worker runs one fake gpsd (Tests/tools/fake-gpsd.py --ride, 400 TPV/s, one fix second per
TPV: `--clock fix` makes that a ride at 400x). Each trial:
  1. `cairn record --sync 1 --verbose` into a fresh directory; SIGKILL after a uniform 0-3.5 s
     (syncs come at 1 s, 2 s ... after the trip opens, so kills land before, between and after
     them). ACK = the `synced PATH seq N` lines it printed (after fdatasync returned 0).
  2. Check (independent Python reader): I1 every seq <= the last ACK of each file is there;
     I2 every recovered point is exactly the generated ride point of its time (nothing
     fabricated) and times increase; I3 seqs are 1, 2, 3 ... with no damaged range; raw fixes
     (type 8) likewise exactly the ride's fixes, in order, kept exactly where a point was recovered.
  3. Restart `cairn record` on the same directory (the ride goes on: the trip resumes); after
     0.3 s stop it with SIGTERM, or SIGKILL in 20 % of trials. Check the first run's files are
     byte-identical, the new file has a higher number, the trip resumed in it (same trip id,
     part + 1) when the first run left points, I1-I3 again, and `cairn verify`
     exits 0 or 2 (a torn tail) and `cairn list` 0.
SIGKILL keeps the page cache: this is NOT a power cut (see the power-loss model for that).
Prints a summary; exit 1 if any must-be-0 counter is not 0."""
import argparse, glob, hashlib, importlib.util, json, os, random, re, shutil, signal, statistics
import subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import cairnlog  # noqa: E402

_spec = importlib.util.spec_from_file_location("fakegpsd", os.path.join(ROOT, "Tests/tools/fake-gpsd.py"))
fakegpsd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fakegpsd)

ACK = re.compile(r"cairn: synced (\S+) seq (\d+)")
RIDE_T0_MS = fakegpsd.T0 * 1000


def start_fake(rate):
    p = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/tools/fake-gpsd.py"), "--ride", "--rate", str(rate)],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    assert line.startswith("READY"), line
    # Keep draining its stdout so it never blocks.
    threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
    return p, int(line.split()[1])


def acks(text):
    out = {}
    for path, seq in ACK.findall(text):
        out[path] = max(out.get(path, 0), int(seq))
    return out


def wait_for(path, needle, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path) as f:
                if needle in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.01)
    return False


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.c = {k: 0 for k in [
            "trials", "i1_violations", "i2_violations", "i3_violations", "resume_failures", "overwritten_files",
            "verify_failures", "list_failures", "second_run_kill9", "trials_with_ack", "torn_tails", "unused_tails",
            "files_checked", "acked_records_checked", "points_checked", "raw_fixes_checked", "raw_violations"]}
        self.beyond_records = []
        self.beyond_points = []
        self.problems = []

    def add(self, **kw):
        with self.lock:
            for k, v in kw.items():
                self.c[k] += v

    def problem(self, msg):
        with self.lock:
            self.c.setdefault("problems", 0)
            if len(self.problems) < 30:
                self.problems.append(msg)


def check_files(dir, ack, st, label, beyond=False):
    """I1-I3 over every log file in dir; returns {path: (trip, part, had_points, had_end)}."""
    info = {}
    for path in sorted(glob.glob(os.path.join(dir, "*.cairn"))):
        st.add(files_checked=1)
        try:
            f = cairnlog.LogFile(path)
            recs = f.records()
        except cairnlog.Bad as e:
            # A file created but killed before its header was complete holds nothing acked.
            if ack.get(path, 0) > 0:
                st.add(i1_violations=1)
                st.problem("%s %s: unreadable but acked %d: %s" % (label, path, ack[path], e))
            info[path] = None
            continue
        seqs = [r[0] for r in recs]
        if f.damaged or seqs != list(range(1, len(seqs) + 1)):
            st.add(i3_violations=1)
            st.problem("%s %s: seqs %s damaged %s" % (label, path, seqs[:5], f.damaged))
        if f.torn:
            st.add(torn_tails=1)
        if f.unused:
            st.add(unused_tails=1)
        a = ack.get(path, 0)
        if a:
            st.add(acked_records_checked=a)
            if not set(range(1, a + 1)) <= set(seqs):
                st.add(i1_violations=1)
                st.problem("%s %s: acked %d, recovered %s" % (label, path, a, seqs))
        if beyond:
            after = [r for r in recs if r[0] > a]
            st.beyond_records.append(len(after))
            st.beyond_points.append(sum(len(r[2]) for r in after if r[2] is not None))
        last = None
        had_points = False
        for seq, typ, pts in recs:
            for p in pts or []:
                had_points = True
                st.add(points_checked=1)
                i = (p["time"] - RIDE_T0_MS) // 1000
                want = fakegpsd.ride_fields(i)
                if (p["time"] - RIDE_T0_MS) % 1000 or any(p.get(k) != v for k, v in want.items()) \
                        or (last is not None and p["time"] <= last):
                    st.add(i2_violations=1)
                    st.problem("%s %s: point %s != %s" % (label, path, p, want))
                    break
                last = p["time"]
        # Raw fixes (type 8) recover like points: every one is exactly the generated ride fix of
        # its time (nothing fabricated), in order, and every recovered point up to the last raw
        # fix is one the raw fixes hold as kept (and no raw fix is kept without its point).
        point_times = {p["time"] for _, _, pts in recs for p in pts or []}
        last_raw, kept_raw = None, set()
        for seq, raws in f.raw_fixes():
            for p in raws:
                st.add(raw_fixes_checked=1)
                i = (p["time"] - RIDE_T0_MS) // 1000
                want = fakegpsd.ride_fields(i)
                if (p["time"] - RIDE_T0_MS) % 1000 or any(p.get(k) != v for k, v in want.items()) \
                        or (last_raw is not None and p["time"] <= last_raw):
                    st.add(raw_violations=1)
                    st.problem("%s %s: raw fix %s != %s" % (label, path, p, want))
                    break
                last_raw = p["time"]
                if p["verdict"] == 0:
                    kept_raw.add(p["time"])
        if last_raw is not None and ({t for t in point_times if t <= last_raw} != kept_raw):
            st.add(raw_violations=1)
            st.problem("%s %s: points up to the last raw fix %s, raw fixes kept %s" % (
                label, path, sorted(t for t in point_times if t <= last_raw)[:5], sorted(kept_raw)[:5]))
        info[path] = (f.trip, f.part, had_points, any(r[1] == 6 for r in recs))
    return info


def run_cli(bin, *args):
    return subprocess.run([bin, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)


def trial(k, bin, port, rng, work, st):
    tdir = os.path.join(work, "t%d" % k)
    logs = os.path.join(tdir, "logs")
    os.makedirs(tdir)
    cmd = [bin, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", logs, "--clock", "fix", "--sync", "1",
           "--verbose", "--baro", "none"]
    err1 = os.path.join(tdir, "run1.err")
    with open(err1, "w") as e:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=e)
    time.sleep(rng.uniform(0, 3.5))
    p.send_signal(signal.SIGKILL)
    p.wait()
    text1 = open(err1).read()
    ack1 = acks(text1)
    if ack1:
        st.add(trials_with_ack=1)
    info1 = check_files(logs, ack1, st, "trial %d run 1" % k, beyond=True)
    before = {}
    for path in info1:
        with open(path, "rb") as f:
            before[path] = hashlib.sha256(f.read()).hexdigest()

    # Run 2: the ride goes on; the interrupted trip should resume in a new file.
    kill2 = rng.random() < 0.2
    err2 = os.path.join(tdir, "run2.err")
    with open(err2, "w") as e:
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=e)
    wait_for(err2, "connected to gpsd", 10)
    time.sleep(0.3)
    if kill2:
        st.add(second_run_kill9=1)
        p.send_signal(signal.SIGKILL)
    else:
        p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
        st.problem("trial %d: run 2 did not stop within 10 s of SIGTERM" % k)
        st.add(resume_failures=1)
    if not kill2 and rc != 0:
        st.add(resume_failures=1)
        st.problem("trial %d: run 2 exited %d: %s" % (k, rc, open(err2).read()[-500:]))
    ack2 = acks(open(err2).read())
    for path, h in before.items():
        with open(path, "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != h:
                st.add(overwritten_files=1)
                st.problem("trial %d: %s changed by run 2" % (k, path))
    info2 = check_files(logs, ack2, st, "trial %d run 2" % k)
    new = sorted(set(info2) - set(info1))
    old_max = max([int(os.path.basename(q)[:8]) for q in info1] or [0])
    if any(int(os.path.basename(q)[:8]) <= old_max for q in new):
        st.add(resume_failures=1)
        st.problem("trial %d: new file numbers %s not above %d" % (k, new, old_max))
    # The interrupted trip resumes when run 1 left points and no trip end, and run 2 kept a point.
    last1 = [v for v in (info1[q] for q in sorted(info1)) if v is not None]
    got_points2 = [info2[q] for q in new if info2[q] is not None and info2[q][2]]
    if last1 and last1[-1][2] and not last1[-1][3] and got_points2:
        first2 = info2[new[0]] if info2[new[0]] is not None else got_points2[0]
        if (first2[0], first2[1]) != (last1[-1][0], last1[-1][1] + 1):
            st.add(resume_failures=1)
            st.problem("trial %d: run 2 did not resume trip %s part %d: got %s" % (k, last1[-1][0], last1[-1][1], first2))
    if info2:
        v = run_cli(bin, "verify", logs)
        if v.returncode not in (0, 2):
            st.add(verify_failures=1)
            st.problem("trial %d: verify %d: %s %s" % (k, v.returncode, v.stdout, v.stderr))
        l = run_cli(bin, "list", logs, "--json")
        if l.returncode != 0:
            st.add(list_failures=1)
            st.problem("trial %d: list %d: %s" % (k, l.returncode, l.stderr))
    st.add(trials=1)
    shutil.rmtree(tdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rate", type=float, default=400)
    ap.add_argument("--json")
    a = ap.parse_args()
    st = Stats()
    work = tempfile.mkdtemp(prefix="cairn-kill9-")
    t0 = time.monotonic()
    counter = iter(range(a.trials))
    lock = threading.Lock()

    def worker(w):
        fake, port = start_fake(a.rate)
        rng = random.Random(a.seed * 1000 + w)
        try:
            while True:
                with lock:
                    k = next(counter, None)
                if k is None:
                    return
                try:
                    trial(k, os.path.abspath(a.bin), port, rng, work, st)
                except Exception as e:  # a harness failure is a failure too
                    st.add(resume_failures=1)
                    st.problem("trial %d: harness error %r" % (k, e))
        finally:
            fake.terminate()
            fake.wait()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(a.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shutil.rmtree(work, ignore_errors=True)
    c = st.c
    br, bp = st.beyond_records or [0], st.beyond_points or [0]
    summary = dict(c, seconds=round(time.monotonic() - t0, 1),
                   beyond_ack_records_mean=round(statistics.mean(br), 2), beyond_ack_records_max=max(br),
                   beyond_ack_points_mean=round(statistics.mean(bp), 1), beyond_ack_points_max=max(bp),
                   problems=st.problems)
    print(json.dumps(summary, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(summary, f, indent=1)
    bad = sum(c[k] for k in ["i1_violations", "i2_violations", "i3_violations", "raw_violations", "resume_failures",
                             "overwritten_files", "verify_failures", "list_failures"])
    print("kill9: %d trials, %d must-be-0 failures" % (c["trials"], bad))
    return 1 if bad or c["trials"] < a.trials else 0


if __name__ == "__main__":
    sys.exit(main())
