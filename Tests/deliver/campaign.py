#!/usr/bin/env python3
"""`cairn deliver` against real servers on loopback, with faults (issue 31, item 6).

    python3 Tests/deliver/campaign.py --bin .build/release/cairn [--seeds 24] [--only NAME,...]

Starts rclone's `serve sftp` and `serve webdav` and moto's S3 server behind fault proxies
(servers.py), makes a log directory of finished trips from the fixture logs (trips.py), and runs
every scenario below against each backend (sftp1:, dav1:, s31:, local1:). After every fault
and the clean run after it, the invariants (check()):
  - every finished trip's logs on the remote, byte for byte (sha256);
  - each conversion present exactly once under its final name, and whole: the same bytes as
    `cairn export` makes of the same logs (export is deterministic);
  - no file under a final name that is not whole (after a fault too);
  - a receipt line in LOGDIR/delivered only for trips whose files verify on the remote, and after
    a clean run one for every finished trip;
  - nothing in LOGDIR changed but `delivered`, `delivery`, the page's kept copy
    (`delivered-page-<16 hex>`, issue 38 c16) and deliver's lock file (its staging
    folder and the temporaries of its own two files only between a kill and the next run).
Exit 1 when any check fails; every failure is printed as FAIL <scenario>: <what>, with the
command. Needs root (the full remote is a small tmpfs). Never skips.

What it found in deliver and what was fixed: README.md, "Found"."""
import argparse, hashlib, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import servers  # noqa: E402  (also clears AWS_*/RCLONE_* from the environment)
import trips  # noqa: E402
import cairnlog  # noqa: E402  (trips.py put Tests/crash on the path)

FORMATS = ("gpx", "fit", "csv")
BOARD = "unnamed"
# What deliver may leave in LOGDIR besides the logs (which must never change).
OWN = {"delivered", "delivery", ".cairn-deliver.lock"}
STAGING = ".deliver"  # deliver's staging folder: may survive a kill -9, gone after a clean run
# The temporaries of deliver's atomic writes of its own files: the same.
OWN_TEMPS = {".delivered.part", ".delivery.part"}


def own_file(n):
    """Deliver's own files in LOGDIR: OWN, and the page's kept copy (one per board folder) and its temporary."""
    return n in OWN or n.startswith("delivered-page-") or (n.startswith(".delivered-page-") and n.endswith(".part"))
TEMP_PREFIX = ".cairn-tmp-"


class Campaign:
    def __init__(self, a):
        self.a = a
        self.bin = os.path.abspath(a.bin)
        self.failures = []
        self.notes = []
        self.figures = {}
        self.work = tempfile.mkdtemp(prefix="cairn-deliver-")
        self.srv = None
        self.rng = random.Random(a.seed)
        self.ref_cache = {}
        self.formats_of = {}

    # ---- reporting
    def fail(self, scenario, what, cmd=None):
        line = "FAIL %s: %s" % (scenario, what)
        if cmd:
            line += "\n     command: %s" % cmd
        print(line, flush=True)
        self.failures.append(line)

    def note(self, scenario, what):
        line = "NOTE %s: %s" % (scenario, what)
        print(line, flush=True)
        self.notes.append(line)

    # ---- running cairn deliver
    def cmd(self, logdir, remote, extra=(), rclone=None):
        c = [self.bin, "deliver", "--dir", logdir, "--remote", remote, "--config", "none",
             "--format", ",".join(self.formats(logdir)), "--rclone-config", self.srv.conf]
        if rclone is not False:
            c += ["--rclone", rclone or self.a.rclone]
        return c + list(extra)

    def run(self, argv, timeout=180, env=None):
        t = time.time()
        try:
            p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
            return p.returncode, p.stdout + p.stderr, time.time() - t
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") + (e.stderr or b"").decode(errors="replace")
            return None, out + "\n[timed out after %d s]" % timeout, time.time() - t

    def deliver(self, scenario, logdir, remote, expect=(0,), extra=(), timeout=180, env=None, rclone=None):
        argv = self.cmd(logdir, remote, extra, rclone)
        rc, out, secs = self.run(argv, timeout, env)
        if rc not in expect:
            self.fail(scenario, "exit %s, expected %s; said: %s" % (rc, "/".join(map(str, expect)), out.strip()[-600:]),
                      " ".join(argv))
        return rc, out, secs

    # ---- fixtures
    def logdir(self, name, kind="full", formats=FORMATS):
        """full: the 4 trips, 5 files; pair: trips 2 and 4 (3 files); one: trip 4 (2 parts).
        rclone calls cost 0.15-0.6 s each (5 per file): the fault scenarios send less."""
        d = os.path.join(self.work, "logs-" + name)
        shutil.rmtree(d, ignore_errors=True)
        trips.make(d)
        drop = {"full": (), "pair": ("00000001.cairn", "00000003.cairn"),
                "one": ("00000001.cairn", "00000002.cairn", "00000003.cairn")}[kind]
        for n in drop:
            os.unlink(os.path.join(d, n))
        self.formats_of[d] = tuple(formats)
        return d

    def formats(self, logdir):
        return self.formats_of.get(logdir, FORMATS)

    def reference(self, logdir):
        """What `cairn export` makes of these logs (a copy: export writes its own state)."""
        formats = self.formats(logdir)
        key = tuple(sorted((n, sha(os.path.join(logdir, n))) for n in os.listdir(logdir) if n.endswith(".cairn"))) + (formats,)
        if key in self.ref_cache:
            return self.ref_cache[key]
        src = tempfile.mkdtemp(dir=self.work, prefix="ref-src-")
        for n, _ in key[:-1]:
            shutil.copy(os.path.join(logdir, n), src)
        out = tempfile.mkdtemp(dir=self.work, prefix="ref-")
        r = subprocess.run([self.bin, "export", "--dir", src, "--to", out + "/x", "--format", ",".join(formats),
                            "--config", "none", "--logs", "yes"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("reference export failed: " + r.stderr)
        # Deliver's names carry each log's salt (a stick's keep the plain ones): the same files.
        ref = salted(tree(out + "/x"), src)
        self.ref_cache[key] = ref
        return ref

    def snapshot(self, logdir):
        return {n: sha(os.path.join(logdir, n)) for n in os.listdir(logdir)
                if not own_file(n) and n not in OWN_TEMPS and n != STAGING and os.path.isfile(os.path.join(logdir, n))}

    def remote_tree(self, remote, keep=None):
        """Every file under REMOTE/<board>, by relative path: sha256 (downloaded through rclone;
        kept at `keep` when given)."""
        dest = keep or tempfile.mkdtemp(dir=self.work, prefix="pull-")
        src = join(remote, BOARD)
        r = self.srv.rc(["copy", src, dest], timeout=120)
        if r.returncode != 0 and "directory not found" not in r.stderr:
            raise RuntimeError("rclone copy %s failed: %s" % (src, r.stderr[-500:]))
        t = tree(dest)
        if not keep:
            shutil.rmtree(dest, ignore_errors=True)
        return t

    # ---- the invariants
    def check(self, scenario, logdir, remote, before, clean):
        """clean: the run before was a clean one (everything must be there)."""
        now = self.snapshot(logdir)
        if now != before:
            self.fail(scenario, "LOGDIR changed: %s" % sorted(set(now.items()) ^ set(before.items())))
        extra = sorted(n for n in set(os.listdir(logdir)) - set(before) - OWN_TEMPS - {STAGING} if not own_file(n))
        if extra:
            self.fail(scenario, "LOGDIR holds new files %s" % extra)
        for left in [STAGING] + sorted(OWN_TEMPS):
            if clean and os.path.exists(os.path.join(logdir, left)):
                self.fail(scenario, "LOGDIR/%s left after a clean run" % left)
        ref = self.reference(logdir)
        try:
            got = self.remote_tree(remote)
        except RuntimeError as e:
            self.fail(scenario, str(e))
            return
        temps = sorted(p for p in got if os.path.basename(p).startswith(TEMP_PREFIX))
        finals = {p: h for p, h in got.items() if p not in temps}
        for p, h in sorted(finals.items()):
            top = p.split("/")[0]
            if top in ("logs",) + FORMATS:
                if p not in ref:
                    self.fail(scenario, "%s on the remote is not a file of this delivery (a duplicate or a stray name)" % p)
                elif ref[p] != h:
                    self.fail(scenario, "%s on the remote differs from the log/conversion (partial or wrong)" % p)
        if clean:
            missing = sorted(p for p in set(ref) - set(finals) if p.split("/")[0] in ("logs",) + FORMATS)
            if missing:
                self.fail(scenario, "missing on the remote after a clean run: %s" % missing)
            # The page (index.html, index.tsv, pictures/: what `cairn export` leaves beside them)
            page = sorted(p for p in set(ref) - set(finals) if p.split("/")[0] not in ("logs",) + FORMATS)
            if page:
                self.fail(scenario, "the page is incomplete on the remote after a clean run: %s missing" % page)
            if temps:
                self.fail(scenario, "temporaries left on the remote after a clean run: %s" % temps)
        # Receipts: only for trips that verify, and every finished trip after a clean run.
        # A receipt names the board's folder (issue 38): the campaign's boards have no id.
        rec = receipts(logdir, join(remote, BOARD))
        for trip, files in sorted(rec.items()):
            for name, size, crc in files:
                local = os.path.join(logdir, name)
                p = "logs/" + copy_name(logdir, name)
                if p not in finals or finals[p] != ref.get(p):
                    self.fail(scenario, "receipt for trip %s but %s does not verify on the remote" % (trip, p))
            convs = [p for p in ref if p.split("/")[0] in FORMATS and ("-trip%d-" % trip) in p]
            for p in convs:
                if finals.get(p) != ref[p]:
                    self.fail(scenario, "receipt for trip %s but %s is %s on the remote" % (trip, p, "wrong" if p in finals else "missing"))
        if clean:
            want = local_trips(logdir)
            for trip, files in sorted(want.items()):
                if sorted(rec.get(trip, [])) != sorted(files):
                    self.fail(scenario, "after a clean run, trip %s's receipt is %s, its files are %s" % (trip, rec.get(trip), files))

    # ---- scenarios
    def fresh(self, remote_name, sub):
        """A delivery folder of its own under each backend (wiped first)."""
        self.srv.wipe(remote_name, sub)
        return join(self.srv.base(remote_name), sub)

    def clean_after(self, scenario, logdir, remote, before, extra=()):
        self.srv.reset_faults(remote.split(":")[0])
        rc, out, secs = self.deliver(scenario + " / clean run after", logdir, remote, expect=(0,), extra=extra)
        self.check(scenario + " / clean run after", logdir, remote, before, clean=True)
        return rc, out, secs

    def s_clean(self, r):
        sc = "clean %s" % r
        d = self.logdir("clean-" + r, "pair" if r == "sftp1" else "full")
        remote = self.fresh(r, "clean")
        before = self.snapshot(d)
        rc, out, secs = self.deliver(sc, d, remote)
        self.figures["clean_seconds_" + r] = round(secs, 2)
        self.check(sc, d, remote, before, clean=True)
        rc2, out2, secs2 = self.deliver(sc + " (again)", d, remote)
        self.figures["again_seconds_" + r] = round(secs2, 2)
        if "delivered 0 trips" not in out2:
            self.fail(sc + " (again)", "a second run sent something: %s" % out2.strip())
        self.check(sc + " (again)", d, remote, before, clean=True)
        # A trip that grows after delivery (a restart: a new part) is delivered again.
        trips.grow(d)
        before = self.snapshot(d)
        rc3, out3, _ = self.deliver(sc + " (trip grown)", d, remote)
        if "delivered 1 trip" not in out3:
            self.fail(sc + " (trip grown)", "the grown trip 2 was not delivered again: %s" % out3.strip())
        self.check(sc + " (trip grown)", d, remote, before, clean=True)

    def s_vanish(self, r, after):
        """The server vanishes `after` bytes into the upload (the proxy counts them): every
        connection dropped at once, new ones refused until the run ends."""
        sc = "server vanishes mid-upload %s (after %d bytes)" % (r, after)
        d = self.logdir("vanish-" + r, "pair", ("gpx",))
        remote = self.fresh(r, "vanish")
        before = self.snapshot(d)
        px = self.srv.proxy[r]
        px.throttle(20_000)  # each file takes seconds each way: the drop lands mid-transfer
        start = px.up
        p = subprocess.Popen(self.cmd(d, remote, ["--retries", "2", "--timeout", "5"]), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        end = time.time() + 60
        while px.up - start < after and p.poll() is None and time.time() < end:
            time.sleep(0.02)
        dropped = px.drop()
        px.refuse(True)
        try:
            out = p.communicate(timeout=120)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            out = p.communicate()[0]
            self.fail(sc, "deliver still running 120 s after the server vanished")
        if dropped == 0:
            self.note(sc, "no connection was open at the drop (between rclone calls)")
        if p.returncode not in (1, 75, 0):
            self.fail(sc, "exit %s: %s" % (p.returncode, out.strip()[-400:]))
        if p.returncode == 0:
            self.fail(sc, "exit 0 although the server vanished: %s" % out.strip()[-300:])
        px.refuse(False)
        self.check(sc, d, remote, before, clean=False)
        self.clean_after(sc, d, remote, before)

    def s_blip(self, r):
        """A short outage the retries outlast: the connections dropped mid-upload, new ones
        refused for 1.5 s. With --retries 3 (waits of 2 and 8 s) the run itself delivers: exit 0."""
        sc = "short outage %s" % r
        d = self.logdir("blip-" + r, "pair", ("gpx",))
        remote = self.fresh(r, "blip")
        before = self.snapshot(d)
        px = self.srv.proxy[r]
        px.throttle(40_000)
        start = px.up
        argv = self.cmd(d, remote, ["--retries", "3", "--timeout", "5"])
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        end = time.time() + 60
        while px.up - start < 15_000 and p.poll() is None and time.time() < end:
            time.sleep(0.02)
        px.drop()
        px.refuse(True)
        time.sleep(1.5)
        px.refuse(False)
        px.throttle(None)
        try:
            out = p.communicate(timeout=150)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            out = p.communicate()[0]
        if p.returncode != 0:
            self.fail(sc, "exit %s after an outage of 1.5 s with --retries 3: %s" % (p.returncode, out.strip()[-400:]), " ".join(argv))
        self.check(sc, d, remote, before, clean=p.returncode == 0)
        if p.returncode != 0:
            self.clean_after(sc, d, remote, before)

    def s_corrupt(self, r):
        """One byte flipped on the way up (webdav is plain HTTP: nothing but deliver's read-back
        notices): no receipt, nothing wrong under a final name; the next run delivers."""
        sc = "a byte flipped on the way %s" % r
        d = self.logdir("corrupt-" + r, "one", ("gpx",))
        remote = self.fresh(r, "corrupt")
        before = self.snapshot(d)
        px = self.srv.proxy[r]
        px.corrupt_at = px.up + 6_000  # inside the first log's body (8641 bytes), past the headers
        rc, out, _ = self.deliver(sc, d, remote, expect=(1, 75), extra=["--retries", "1"])
        if px.corrupt_at is not None:
            self.fail(sc, "the proxy flipped no byte (harness)")
        elif "read back" not in out:
            self.note(sc, "deliver failed, but not on its read-back: %s" % out.strip()[-300:])
        self.check(sc, d, remote, before, clean=False)
        self.clean_after(sc, d, remote, before)

    def s_full(self, r):
        sc = "full remote %s" % r
        d = self.logdir("full-" + r, "pair", ("gpx",))
        remote = self.fresh(r, "full")
        before = self.snapshot(d)
        self.srv.fill(r, leave=12_000)  # the smaller logs fit, trip 4's second part not
        rc, out, _ = self.deliver(sc, d, remote, expect=(1, 75), extra=["--retries", "1"])
        self.srv.unfill(r)
        self.check(sc, d, remote, before, clean=False)
        self.clean_after(sc, d, remote, before)

    def s_stall(self, r):
        sc = "stalled link %s (--timeout 3)" % r
        d = self.logdir("stall-" + r, "one", ("gpx",))
        remote = self.fresh(r, "stall")
        before = self.snapshot(d)
        self.srv.proxy[r].throttle(0)
        rc, out, secs = self.deliver(sc, d, remote, expect=(1, 75), extra=["--retries", "1", "--timeout", "3"], timeout=150)
        self.figures["stall_seconds_" + r] = round(secs, 1)
        if rc is not None and secs > 60:
            self.fail(sc, "took %.0f s to give up on a link that moves nothing (--timeout 3 --retries 1)" % secs)
        self.srv.proxy[r].throttle(None)
        self.check(sc, d, remote, before, clean=False)
        self.clean_after(sc, d, remote, before)

    def s_slow(self, r):
        sc = "slow link %s (20 kB/s, --timeout 5)" % r
        d = self.logdir("slow-" + r, "pair")
        for n in ("00000004.cairn", "00000005.cairn"):
            os.unlink(os.path.join(d, n))  # trip 2 alone: small enough to go at 20 kB/s
        remote = self.fresh(r, "slow")
        before = self.snapshot(d)
        self.srv.proxy[r].throttle(20_000)
        rc, out, secs = self.deliver(sc, d, remote, expect=(0,), extra=["--timeout", "5"], timeout=150)
        self.figures["slow_seconds_" + r] = round(secs, 1)
        self.srv.proxy[r].throttle(None)
        self.check(sc, d, remote, before, clean=True)

    def s_kill(self, r, seed, whole_group, clean_secs):
        rnd = random.Random(seed)
        at = rnd.uniform(0.05, max(0.3, clean_secs))
        sc = "kill -9 %s seed %d at %.2f s (%s)" % (r, seed, at, "cairn and its rclone" if whole_group else "cairn only")
        d = self.logdir("kill-%s-%d" % (r, seed), "one", ("gpx",))
        remote = self.fresh(r, "kill%d" % seed)
        before = self.snapshot(d)
        p = subprocess.Popen(self.cmd(d, remote), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(at)
        if whole_group:
            try:
                os.killpg(p.pid, signal.SIGKILL)  # the board losing power: rclone dies too
            except ProcessLookupError:
                pass
        else:
            p.send_signal(signal.SIGKILL)
        p.wait()
        if not whole_group:
            time.sleep(1.0)  # an orphaned rclone may still finish its call
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.check(sc, d, remote, before, clean=False)
        self.clean_after(sc, d, remote, before)

    def s_two(self, r, n):
        sc = "two deliveries at once %s #%d" % (r, n)
        d = self.logdir("two-%s-%d" % (r, n), "pair", ("gpx",))
        remote = self.fresh(r, "two%d" % n)
        before = self.snapshot(d)
        argv = self.cmd(d, remote)
        ps = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for _ in range(2)]
        outs = [p.communicate(timeout=180)[0] for p in ps]
        codes = sorted(p.returncode for p in ps)
        if codes != [0, 75]:
            self.fail(sc, "exits %s, expected one 0 and one 75: %s" % (codes, " || ".join(o.strip()[-300:] for o in outs)),
                      " ".join(argv) + "  (twice at once)")
        self.check(sc, d, remote, before, clean=0 in codes and codes.count(0) >= 1)

    def s_clock(self, r):
        """The clock jumps: the logs' mtimes far in the past and future (a board without an RTC
        that boots in 1970, a clock set back or forward), under other time zones. libfaketime
        cannot help here: under its LD_PRELOAD a (dynamically linked) Swift program sees no
        arguments at all (CommandLine.arguments is [] — the Swift runtime's, not cairn's), the
        static release binary ignores LD_PRELOAD, and rclone (Go) reads the clock without libc."""
        sc = "clock %s" % r
        d = self.logdir("clock-" + r, "pair", ("gpx",))
        remote = self.fresh(r, "clock")
        before = self.snapshot(d)
        self.deliver(sc + " (TZ +14)", d, remote, env=dict(os.environ, TZ="Pacific/Kiritimati"))
        self.check(sc + " (TZ +14)", d, remote, before, clean=True)
        for m in (0, 4102444800):  # 1970 and 2100
            for n in os.listdir(d):
                if n.endswith(".cairn"):
                    os.utime(os.path.join(d, n), (m, m))
            rc, out, _ = self.deliver(sc + " (mtimes %d, TZ -10)" % m, d, remote, env=dict(os.environ, TZ="America/Adak"))
            if "delivered 0 trips" not in out:
                self.fail(sc + " (mtimes %d)" % m, "a changed mtime made deliver send again: %s" % out.strip())
            self.check(sc + " (mtimes %d)" % m, d, remote, before, clean=True)
        trips.grow(d)
        os.utime(os.path.join(d, "00000006.cairn"), (0, 0))
        before = self.snapshot(d)
        rc, out, _ = self.deliver(sc + " (grown, new part dated 1970)", d, remote)
        if "delivered 1 trip" not in out:
            self.fail(sc + " (grown, new part dated 1970)", "the grown trip was not delivered again: %s" % out.strip())
        self.check(sc + " (grown, new part dated 1970)", d, remote, before, clean=True)

    def s_two_boards(self, r):
        """Two boards with no board id deliver to one remote: both write under `unnamed/`, and
        their logs share names (each board counts from 00000001). The second board must not
        replace the first one's delivered logs (export never replaces another file under a
        log's name): the first board's receipts must still verify."""
        sc = "two boards, one remote %s" % r
        a = self.logdir("board-a-" + r, "one", ("gpx",))
        b = self.logdir("board-b-" + r, "one", ("gpx",))
        trips.make_other(b)  # other rides under the same file names
        remote = self.fresh(r, "boards")
        before_a = self.snapshot(a)
        self.deliver(sc + " (board A)", a, remote)
        self.check(sc + " (board A)", a, remote, before_a, clean=True)
        rc, out, _ = self.deliver(sc + " (board B)", b, remote, expect=(0, 1, 75))
        got = self.remote_tree(remote)
        ref_a = self.reference(a)
        replaced = sorted(p for p in ref_a if p.startswith("logs/") and got.get(p) != ref_a[p])
        if replaced:
            self.fail(sc, "board B's delivery (exit %s) replaced board A's delivered %s; A's receipts still say "
                          "delivered, so A's trips are lost if A prunes: %s" % (rc, replaced, out.strip()[-300:]),
                      " ".join(self.cmd(b, remote)))

    def s_formats(self, r):
        """A format added to the delivery later (the rider adds csv to [deliver] format): the
        trips delivered before get it too, as `cairn export` does on its next run."""
        sc = "a format added later %s" % r
        d = self.logdir("formats-" + r, "pair", ("gpx",))
        remote = self.fresh(r, "formats")
        before = self.snapshot(d)
        self.deliver(sc + " (gpx)", d, remote)
        self.formats_of[d] = ("gpx", "csv")
        rc, out, _ = self.deliver(sc + " (gpx,csv)", d, remote)
        got = self.remote_tree(remote)
        missing = sorted(p for p in self.reference(d) if p.startswith("csv/") and p not in got)
        if missing:
            self.fail(sc, "after --format gpx then --format gpx,csv the trips delivered before have no csv "
                          "(%s); the second run said: %s" % (missing, out.strip()), " ".join(self.cmd(d, remote)))
        self.check(sc, d, remote, before, clean=False)

    def s_spaces(self, r):
        """A remote folder with a space: the receipt line ends with the destination."""
        sc = "remote path with a space %s" % r
        d = self.logdir("space-" + r, "one", ("gpx",))
        remote = self.fresh(r, "my rides")
        before = self.snapshot(d)
        self.deliver(sc, d, remote)
        rc, out, _ = self.deliver(sc + " (again)", d, remote)
        if "delivered 0 trips" not in out:
            self.fail(sc + " (again)", "a second run sent again: %s" % out.strip())
        self.check(sc, d, remote, before, clean=True)

    def s_junk(self, r):
        """Bytes added to a delivered log on the remote (attack-r24 c17): the copy there is the
        whole log and garbage, damaged; the next run sends the whole log over it and says so."""
        sc = "junk after a delivered log %s" % r
        d = self.logdir("junk-" + r, "one", ("gpx",))
        remote = self.fresh(r, "junk")
        before = self.snapshot(d)
        self.deliver(sc, d, remote)
        logs = sorted(p for p in self.remote_tree(remote) if p.startswith("logs/") and p.endswith(".cairn"))
        if not logs:
            return self.fail(sc, "no log delivered")
        target = join(join(remote, BOARD), logs[0])
        pull = tempfile.mkdtemp(dir=self.work, prefix="junk-")
        got = self.srv.rc(["copyto", target, pull + "/log"], timeout=120)
        if got.returncode != 0:
            return self.fail(sc, "rclone copyto %s failed: %s" % (target, got.stderr[-300:]))
        with open(pull + "/log", "ab") as f:
            f.write(b"garbage after the log\n" * 3)
        put = self.srv.rc(["copyto", pull + "/log", target], timeout=120)
        if put.returncode != 0:
            return self.fail(sc, "rclone copyto back %s failed: %s" % (target, put.stderr[-300:]))
        rc, out, _ = self.deliver(sc + " (again)", d, remote)
        if "a damaged copy" not in out or "sent again" not in out:
            self.fail(sc + " (again)", "the damaged copy %s was not said as sent again: %s" % (logs[0], out.strip()[-400:]))
        self.check(sc + " (again)", d, remote, before, clean=True)

    def s_remake(self, r):
        """Trips pruned on the board (issue 38, deliv-38f), then one's FIT flipped at its size, one's
        GPX deleted and a row of the page edited at its size on the remote: the next run makes them
        again from the remote logs, the remote as it was byte for byte, no log sent, the receipts
        unchanged, exit 0; a third run sends nothing. Then trip 2's log flipped there at its size
        (its only copy; deliv-38g): said by the next run and the one after (WebDAV too: no hash
        listed, read back), never replaced or deleted."""
        sc = "pruned trips remade from their logs %s" % r
        d = self.logdir("remake-" + r, "full", ("gpx", "fit"))
        log2 = "logs/" + copy_name(d, "00000002.cairn")
        remote = self.fresh(r, "remake")
        self.deliver(sc, d, remote)
        whole = self.remote_tree(remote, keep=os.path.join(self.work, "remake-before-" + r))
        p = subprocess.run([self.bin, "prune", "--dir", d, "--max-mb", "0.000001"], capture_output=True, text=True)
        pruned = sorted(n for n in ("00000001.cairn", "00000002.cairn") if not os.path.exists(os.path.join(d, n)))
        if len(pruned) != 2:
            return self.fail(sc, "prune left trips 1 and 2 (%s): %s" % (pruned, (p.stdout + p.stderr).strip()[-300:]))
        receipts_before = open(os.path.join(d, "delivered"), "rb").read()
        before = self.snapshot(d)
        base = join(remote, BOARD)
        fit = sorted(q for q in whole if q.startswith("fit/") and "-trip1-" in q)
        gpx = sorted(q for q in whole if q.startswith("gpx/") and "-trip2-" in q)
        if not fit or not gpx or "index.tsv" not in whole:
            return self.fail(sc, "trips 1 and 2's conversions or the page not delivered: %s" % sorted(whole))
        pull = tempfile.mkdtemp(dir=self.work, prefix="remake-")
        # WebDAV lists no hash: the page's files and the pruned trips' copies are read back
        # (deliv-38g), so an index.tsv edited at its size and the flipped FIT are found there too.
        edits = ((fit[0], "flip"), ("index.tsv", "row"))
        if log2 not in whole:
            return self.fail(sc, "trip 2's log copy %s not delivered: %s" % (log2, sorted(whole)))

        def put_back(target, b):
            open(pull + "/f", "wb").write(b)
            # --ignore-times: at its size on a backend without modification times (WebDAV)
            # rclone would take it for the same file and send nothing.
            return self.srv.rc(["copyto", "--ignore-times", pull + "/f", join(base, target)], timeout=120)

        for target, change in edits:
            got = self.srv.rc(["copyto", join(base, target), pull + "/f"], timeout=120)
            if got.returncode != 0:
                return self.fail(sc, "rclone copyto %s failed: %s" % (target, got.stderr[-300:]))
            b = bytearray(open(pull + "/f", "rb").read())
            if change == "flip":
                b[len(b) // 2] ^= 0x40
            else:
                lines = b.decode().split("\n")
                row = next(i for i, ln in enumerate(lines) if ln.split("\t")[1:2] == ["1"])
                f = lines[row].split("\t")
                for c in (2, 5, 6, 8):
                    f[c] = f[c].translate(str.maketrans("12", "21"))
                lines[row] = "\t".join(f)
                b = bytearray("\n".join(lines).encode())
            put = put_back(target, b)
            if put.returncode != 0:
                return self.fail(sc, "rclone copyto back %s failed: %s" % (target, put.stderr[-300:]))
        dele = self.srv.rc(["deletefile", join(base, gpx[0])], timeout=120)
        if dele.returncode != 0:
            return self.fail(sc, "rclone deletefile %s failed: %s" % (gpx[0], dele.stderr[-300:]))
        rc, out, _ = self.deliver(sc + " (damaged)", d, remote)
        for q in (fit[0], gpx[0]):
            if q + ": made again from its log there" not in out:
                self.fail(sc + " (damaged)", "%s not said made again: %s" % (q, out.strip()[-1500:]))
        if "its row on" not in out:
            self.fail(sc + " (damaged)", "trip 1's edited row not said made again: %s" % out.strip()[-600:])
        now = self.remote_tree(remote, keep=pull + "/after")
        if now != whole:
            diff = sorted(q for q in set(now) | set(whole) if now.get(q) != whole.get(q))
            self.fail(sc + " (damaged)", "the remote is not as delivered after the remake: %s" % diff)
        if open(os.path.join(d, "delivered"), "rb").read() != receipts_before:
            self.fail(sc + " (damaged)", "the receipts changed")
        if self.snapshot(d) != before or os.path.exists(os.path.join(d, STAGING)):
            self.fail(sc + " (damaged)", "LOGDIR changed, or its staging folder left")
        status = open(os.path.join(d, "delivery")).read()
        if "damaged_there" in status:
            self.fail(sc + " (damaged)", "the status still says damaged: %s" % status)
        elif "made again from their logs there" not in out:
            self.fail(sc + " (damaged)", "the remade trips not counted: %s" % out.strip()[-400:])
        rc, out, _ = self.deliver(sc + " (again)", d, remote)
        if "made again" in out or "delivered 0 trips" not in out:
            self.fail(sc + " (again)", "a third run did something: %s" % out.strip()[-400:])
        sc2 = sc + " (trip 2's log flipped at its size)"
        b = bytearray(open(os.path.join(self.work, "remake-before-" + r, log2), "rb").read())
        b[len(b) // 2] ^= 0x10
        put = put_back(log2, b)
        if put.returncode != 0:
            return self.fail(sc2, "rclone copyto back %s failed: %s" % (log2, put.stderr[-300:]))
        for k in range(2):
            rc, out, _ = self.deliver(sc2, d, remote)
            status = open(os.path.join(d, "delivery")).read()
            if log2 + ": damaged there" not in out or "only known copy" not in out or log2 not in status:
                self.fail(sc2, "run %d did not say the log damaged: %s\n%s" % (k + 1, out.strip()[-600:], status))
        now = self.remote_tree(remote, keep=pull + "/flipped")
        if now.get(log2) != hashlib.sha256(bytes(b)).hexdigest():
            self.fail(sc2, "the flipped log was replaced or deleted (its only copy)")

    def s_bad_input(self):
        d = self.logdir("bad", "one")
        before = self.snapshot(d)
        good = self.srv.base("local1")
        cases = [
            ("unknown remote", self.cmd(d, "nosuch:rides"), (78, 64, 1), ["nosuch"]),
            ("missing rclone binary", self.cmd(d, good, rclone="/nonexistent/rclone"), (78, 64, 1), ["/nonexistent/rclone"]),
            ("rclone not on PATH", self.cmd(d, "sftp1:x", rclone=False), (78, 64, 1), ["rclone"]),
            ("missing rclone config", [self.bin, "deliver", "--dir", d, "--remote", good, "--config", "none",
                                       "--rclone-config", "/nonexistent/rclone.conf"], (78, 64), ["/nonexistent/rclone.conf"]),
            ("no --remote", [self.bin, "deliver", "--dir", d, "--config", "none"], (64,), ["--remote"]),
            ("bad --format", self.cmd(d, good, ["--format", "gpx,bogus"]), (64,), ["--format", "bogus"]),
            ("bad --retries", self.cmd(d, good, ["--retries", "many"]), (64,), ["--retries"]),
            ("bad --timeout", self.cmd(d, good, ["--timeout", "0"]), (64,), ["--timeout"]),
            ("bad --logs", self.cmd(d, good, ["--logs", "maybe"]), (64,), ["--logs"]),
            ("missing --dir", self.cmd(d + "-nonexistent", good), (64, 78, 1), [d + "-nonexistent"]),
            ("server not there", None, (1, 75), ["gone1"]),
        ]
        conf = os.path.join(self.work, "bad.conf")
        with open(conf, "w") as f:
            f.write("[deliver]\nremote = local1:\nretries = lots\n")
        cases.append(("config: bad retries line", [self.bin, "deliver", "--dir", d, "--config", conf, "--rclone-config", self.srv.conf],
                      (64, 78), [conf + ":3", "retries", "lots"]))
        conf2 = os.path.join(self.work, "bad2.conf")
        with open(conf2, "w") as f:
            f.write("[deliver]\nremote = local1:\nnosuchkey = 1\n")
        cases.append(("config: unknown key", [self.bin, "deliver", "--dir", d, "--config", conf2, "--rclone-config", self.srv.conf],
                      (64, 78), [conf2 + ":3", "nosuchkey"]))
        conf3 = os.path.join(self.work, "bad3.conf")
        with open(conf3, "w") as f:
            f.write("[deliver]\nremote = nosuch:rides\n")
        cases.append(("config: unknown remote", [self.bin, "deliver", "--dir", d, "--config", conf3, "--rclone-config", self.srv.conf],
                      (78, 64, 1), ["nosuch"]))
        for name, argv, codes, words in cases:
            sc = "bad input: " + name
            env = None
            if name == "rclone not on PATH":
                env = dict(os.environ, PATH="/nonexistent")
            if name == "server not there":
                argv = self.cmd(d, "gone1:rides", ["--retries", "1", "--timeout", "3"])
            rc, out, secs = self.run(argv, timeout=120, env=env)
            if name == "server not there":
                # The same outage again: said once per outage (standard error is no terminal
                # here), counted in LOGDIR/delivery.
                rc2, out2, _ = self.run(argv, timeout=120)
                status = open(os.path.join(d, "delivery")).read() if os.path.exists(os.path.join(d, "delivery")) else ""
                if rc2 != rc:
                    self.fail(sc + " (again)", "exit %s, the first run's was %s: %s" % (rc2, rc, out2.strip()[-300:]), " ".join(argv))
                if out2.strip():
                    self.fail(sc + " (again)", "the same outage said again: %s" % out2.strip()[-300:], " ".join(argv))
                if "failures = 2" not in status:
                    self.fail(sc + " (again)", "LOGDIR/delivery does not count 2 failures: %s" % status.strip())
                if secs > 30:
                    self.fail(sc, "took %.0f s to give up on a refused connection (--retries 1 --timeout 3)" % secs, " ".join(argv))
            if rc not in codes:
                self.fail(sc, "exit %s, expected %s; said: %s" % (rc, "/".join(map(str, codes)), out.strip()[-400:]), " ".join(argv))
            for w in words:
                if w not in out:
                    self.fail(sc, "the message does not name %r: %s" % (w, out.strip()[-400:]), " ".join(argv))
            if len(out.strip().splitlines()) > 3:
                self.note(sc, "said %d lines: %s" % (len(out.strip().splitlines()), out.strip()[-400:]))
            if os.path.exists(os.path.join(d, "delivered")):
                self.fail(sc, "a receipt was written")
            now = self.snapshot(d)
            if now != before:
                self.fail(sc, "LOGDIR changed")

    def s_record(self):
        """A recording goes on, untouched, while deliveries run beside it: the recorder's log
        holds every fix gpsd sent, and deliver defers (75) while a trip is open."""
        sc = "record while delivering"
        d = self.logdir("record", "one", ("gpx",))
        remote = self.fresh("local1", "record")
        fake = os.path.join(trips.REPO, "Tests", "tools", "fake-gpsd.py")
        g = subprocess.Popen([sys.executable, fake, "--ride", "--rate", "20", "--port", "0", "--count", "400"],
                             stdout=subprocess.PIPE, text=True)
        port = int(g.stdout.readline().split()[1])
        rec = subprocess.Popen([self.bin, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", d, "--baro", "none",
                                "--clock", "fix", "--sync", "1", "--read-every", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        codes = []
        try:
            deadline = time.time() + 60
            line = ""
            while time.time() < deadline and not line.startswith("DONE"):
                rc, out, _ = self.run(self.cmd(d, remote, ["--retries", "1"]), timeout=60)
                codes.append(rc)
                if rc not in (0, 75):
                    self.fail(sc, "deliver beside a recording: exit %s: %s" % (rc, out.strip()[-300:]))
                import select as _s
                if _s.select([g.stdout], [], [], 0)[0]:
                    line = g.stdout.readline()
            if not line.startswith("DONE"):
                line = g.stdout.readline()
            time.sleep(2.5)
        finally:
            rec.send_signal(signal.SIGTERM)
            try:
                rout = rec.communicate(timeout=20)[0]
            except subprocess.TimeoutExpired:
                rec.kill()
                rout = rec.communicate()[0]
            g.terminate()
            g.wait()
        self.figures["deliveries_beside_recording"] = len(codes)
        if 75 not in codes:
            self.fail(sc, "no delivery deferred (75) while a trip was being recorded: exits %s" % codes)
        r = subprocess.run([self.bin, "list", "--json", d], capture_output=True, text=True)
        try:
            listed = json.loads(r.stdout)
            new = [t for t in (listed if isinstance(listed, list) else listed.get("trips", [])) if t.get("id") not in (1, 2, 3, 4)]
            points = sum(t.get("points", 0) for t in new)
        except (ValueError, AttributeError):
            points, new = -1, []
        if points != 400:
            self.fail(sc, "the recording holds %s points, gpsd sent 400 (recorder said: %s; list: %s)"
                      % (points, rout.strip()[-300:], r.stdout.strip()[-300:]))
        v = subprocess.run([self.bin, "verify", d], capture_output=True, text=True)
        if v.returncode != 0:
            self.fail(sc, "cairn verify after recording beside deliveries: %s" % (v.stdout + v.stderr).strip()[-300:])
        # Closed now: the next delivery takes the recorded trip too.
        before = self.snapshot(d)
        self.deliver(sc + " / after the recording", d, remote)
        self.check(sc + " / after the recording", d, remote, before, clean=True)

    def main(self):
        t0 = time.time()
        only = set(self.a.only.split(",")) if self.a.only else None
        want = lambda n: only is None or n in only  # noqa: E731
        remotes = self.a.remotes.split(",")
        with servers.Servers(self.work, rclone=self.a.rclone) as s:
            self.srv = s
            print("servers up in %.1f s: %s" % (time.time() - t0, ", ".join(remotes)), flush=True)
            # Each backend's scenarios in a thread of its own (its own server, proxy and folders):
            # most of the time goes to rclone's start-up and the faults' waits.
            # The kill seeds weighted by how fast a backend delivers (sftp's calls are the slowest),
            # so that the threads end together.
            seeds = {r: [] for r in remotes}
            weights = {"local1": 3, "s31": 2, "dav1": 2, "sftp1": 1}
            cycle = [r for r in remotes for _ in range(weights.get(r, 1))]
            cycle = [cycle[(k * 5) % len(cycle)] for k in range(len(cycle))] if len(cycle) % 5 else cycle
            for i in range(self.a.seeds if want("kill") else 0):
                seeds[cycle[i % len(cycle)]].append(i)

            def backend(r):
                t = time.time()
                try:
                    if want("clean"):
                        self.s_clean(r)
                    clean_secs = self.figures.get("clean_seconds_" + r, 3.0)
                    if want("vanish") and r in s.proxy:
                        self.s_vanish(r, random.Random(self.a.seed * 7 + len(r)).randrange(2_000, 60_000))
                    if want("blip") and r in s.proxy:
                        self.s_blip(r)
                    if want("corrupt") and r == "dav1":
                        self.s_corrupt(r)
                    if want("full") and r in s.root:
                        self.s_full(r)
                    if want("stall") and r in s.proxy:
                        self.s_stall(r)
                    if want("slow") and r in s.proxy:
                        self.s_slow(r)
                    if want("two"):
                        self.s_two(r, 1)
                    if want("clock") and r in ("local1", "s31"):
                        self.s_clock(r)
                    if want("boards") and r in ("local1", "s31"):
                        self.s_two_boards(r)
                    if want("formats") and r == "local1":
                        self.s_formats(r)
                    if want("spaces") and r in ("local1", "dav1"):
                        self.s_spaces(r)
                    if want("junk"):
                        self.s_junk(r)
                    if want("remake"):
                        self.s_remake(r)
                    for k, i in enumerate(seeds[r]):
                        self.s_kill(r, self.a.seed * 1000 + i, whole_group=(k % 2 == 0), clean_secs=min(clean_secs, 8.0))
                except Exception as e:  # a broken harness is a failure too, never a skip
                    import traceback
                    self.fail("harness on %s" % r, "%r\n%s" % (e, traceback.format_exc()))
                self.figures["thread_seconds_" + r] = round(time.time() - t, 1)
                self.figures["kill_seeds_" + r] = len(seeds[r])

            threads = [threading.Thread(target=backend, args=(r,)) for r in remotes]
            if want("bad"):
                threads.append(threading.Thread(target=self.s_bad_input))
            if want("record"):
                threads.append(threading.Thread(target=self.s_record))
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.figures["seconds"] = round(time.time() - t0, 1)
        self.figures["failures"] = len(self.failures)
        print("deliver campaign: %d failures, %d notes, %.0f s" % (len(self.failures), len(self.notes), time.time() - t0))
        print(json.dumps(self.figures, sort_keys=True))
        if self.a.json:
            with open(self.a.json, "w") as f:
                json.dump({"figures": self.figures, "failures": self.failures, "notes": self.notes}, f, indent=1)
        if not self.a.keep:
            shutil.rmtree(self.work, ignore_errors=True)
        return 1 if self.failures else 0


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree(root):
    out = {}
    for dp, _, fs in os.walk(root):
        for n in fs:
            p = os.path.join(dp, n)
            out[os.path.relpath(p, root)] = sha(p)
    return out


def join(base, name):
    return base + name if base.endswith((":", "/")) else base + "/" + name


def receipts(logdir, destination):
    """trip id -> [(name, size, crc)] from LOGDIR/delivered lines for this destination."""
    out = {}
    try:
        lines = open(os.path.join(logdir, "delivered")).read().splitlines()
    except FileNotFoundError:
        return out
    for l in lines:
        if l.startswith("#") or not l.strip():
            continue
        f = l.split(" ", 6)  # the destination, last, may hold spaces: "<remote> <formats>"
        if len(f) < 7 or f[6].rsplit(" ", 1)[0] != destination:
            continue
        files = []
        for e in f[5].split(","):
            name, _salt, size, crc = e.split("/")
            files.append((name, int(size), crc))
        out[int(f[1])] = files
    return out


def salt_of(path):
    """A log's header salt, as its copies' names carry it ("4a875be0")."""
    import struct
    with open(path, "rb") as f:
        return "%08x" % struct.unpack_from("<I", f.read(16), 12)[0]


def copy_name(logdir, name):
    """00000001.cairn -> 00000001-SALT.cairn: the name deliver gives the log's copy."""
    return name[:-6] + "-" + salt_of(os.path.join(logdir, name)) + ".cairn"


def salted(ref, logdir):
    """An export's tree (plain names) under deliver's names: each log copy with its salt, each
    conversion and picture with its trip's first log's salt (`TripShipment.logName`)."""
    import re
    first = {trip: files[0][0] for trip, files in local_trips(logdir).items()}
    out = {}
    for p, h in ref.items():
        top, _, name = p.partition("/")
        if top == "logs" and re.fullmatch(r"\d{8}\.cairn", name):
            p = "logs/" + copy_name(logdir, name)
        else:
            m = re.search(r"-trip(\d+)\.[a-z]+$", p)
            if m and int(m.group(1)) in first:
                i = m.start() + len("-trip") + len(m.group(1))
                p = p[:i] + "-" + salt_of(os.path.join(logdir, first[int(m.group(1))])) + p[i:]
        out[p] = h
    return out


def local_trips(logdir):
    """trip id -> [(name, size, crc32c)] of the log files, from their headers."""
    import struct
    out = {}
    for n in sorted(os.listdir(logdir)):
        if len(n) == 14 and n.endswith(".cairn") and n[:8].isdigit():
            data = open(os.path.join(logdir, n), "rb").read()
            trip = struct.unpack_from("<Q", data, 16)[0]
            out.setdefault(trip, []).append((n, len(data), "%08x" % (cairnlog.crc32c(data) ^ 0xFFFFFFFF)))
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--rclone", default="rclone")
    ap.add_argument("--remotes", default=",".join(servers.Servers.REMOTES))
    ap.add_argument("--seeds", type=int, default=24, help="kill -9 trials, spread over the remotes")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="scenarios: clean,bad,vanish,blip,corrupt,full,stall,slow,two,clock,boards,formats,spaces,junk,remake,kill,record")
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("campaign: run as root (the full remote is a tmpfs it mounts)", file=sys.stderr)
        sys.exit(1)
    sys.exit(Campaign(a).main())
