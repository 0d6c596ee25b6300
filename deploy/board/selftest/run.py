#!/usr/bin/env python3
"""The board's host-side checks against crafted disks and logs, without a guest: each case is
an input a check must reject (a lost, fabricated or damaged log) or accept (what a power cut
really leaves). Python's stdlib, e2fsprogs, dosfstools and mtools; a few seconds.

    python3 deploy/board/selftest/run.py --cairn CAIRN [--keep DIR]

Exit 0 when every case behaves, 1 with the cases that did not."""
import argparse, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD = os.path.dirname(HERE)
REPO = os.path.dirname(os.path.dirname(BOARD))
sys.dont_write_bytecode = True
for p in (HERE, BOARD, os.path.join(REPO, "Tests/crash"), os.path.join(REPO, "Tests/crash/smoothing")):
    sys.path.insert(0, p)
import board  # noqa: E402
import log_craft  # noqa: E402
from fat32 import Fat32  # noqa: E402

EPOCHS = board.load_epochs(board.FIXTURE)
ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")
TOO_CLOSE, NO_HEIGHT = 14, 8


def fix(i):
    e = EPOCHS[i]
    return {"time": e.t_ms, "lat": e.lat, "lon": e.lon}


def write_log(path, idx, part=0, end=False, raw=None, trip=7):
    """A log of the ride's epochs idx (in 20-point records); raw: (epoch, verdict) raw fixes."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    log = log_craft.Log(path, trip=trip, part=part)
    if part == 0:
        log.start()
    log.segment()
    pts = [fix(i) for i in idx]
    for k in range(0, len(pts), 20):
        log.points(pts[k:k + 20])
    if raw is not None:
        log.raw([(fix(i), v, 0, 100) for i, v in raw])
    if end:
        log.end(len(pts))
    log.close()
    return log.seq


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stdout))
    return r.stdout


class Cases:
    def __init__(self, work, cairn):
        self.work, self.cairn = work, cairn
        self.src = os.path.join(work, "src")
        self.n1 = write_log(os.path.join(self.src, "00000001.cairn"), range(100, 300))
        self.n2 = write_log(os.path.join(self.src, "00000002.cairn"), range(300, 400), part=1)
        with open(os.path.join(self.src, ".cairn.lock"), "w") as f:
            f.write("123\n")
        self.acks = {board.LOGDIR + "/00000001.cairn": self.n1, board.LOGDIR + "/00000002.cairn": 3}

    def checker(self):
        return board.Checker(EPOCHS, self.cairn)

    def d(self, name):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    # ---- the acknowledged records ----------------------------------------------------------
    def case_ack_canonical(self):
        """accept: every acknowledged record on the disk"""
        self.checker().check_dir(self.src, self.acks, "ack", {})

    def case_ack_lost(self):
        """reject: acknowledged up to seq 50, the disk has fewer records"""
        self.checker().check_dir(self.src, {board.LOGDIR + "/00000001.cairn": 50}, "ack", {})

    def case_ack_path_spelling(self):
        """reject: the same loss, the path said as /var/lib/cairn//00000001.cairn"""
        self.checker().check_dir(self.src, {board.LOGDIR + "//00000001.cairn": 50}, "ack", {})

    # ---- fabricated points -----------------------------------------------------------------
    def case_fed_ok(self):
        """accept: points of epochs the host sent (this boot's file from epoch 300 on)"""
        self.checker().check_dir(self.src, self.acks, "fed", {}, current=["00000002.cairn"], fed=(300, 400))

    def case_fed_future(self):
        """reject: a point of an epoch the host had not sent yet"""
        self.checker().check_dir(self.src, self.acks, "fed", {}, current=["00000002.cairn"], fed=(300, 350))

    def case_fed_earlier_boot(self):
        """reject: this boot's file holds a point sent to the boot before"""
        self.checker().check_dir(self.src, self.acks, "fed", {}, current=["00000002.cairn"], fed=(310, 400))

    def case_point_twice(self):
        """reject: the same point in two files"""
        d = self.d("twice")
        write_log(os.path.join(d, "00000001.cairn"), range(100, 300))
        write_log(os.path.join(d, "00000002.cairn"), range(290, 400), part=1)
        self.checker().check_dir(d, {}, "twice", {})

    def case_earlier_file_unchanged(self):
        """accept: the boot before's file as the last cut left it"""
        c = self.checker()
        c.remember(self.src)
        c.check_dir(self.src, self.acks, "earlier", {}, current=["00000002.cairn"])

    def case_earlier_file_reopened(self):
        """reject: this boot synced the boot before's file too, and it changed (reopened)"""
        d = self.d("reopened")
        write_log(os.path.join(d, "00000001.cairn"), range(100, 300))
        c = self.checker()
        c.remember(d)
        write_log(os.path.join(d, "00000001.cairn"), range(100, 310))
        c.check_dir(d, {}, "reopened", {}, current=["00000001.cairn"])

    # ---- the barometer's failure windows ---------------------------------------------------
    def windows_log(self, name, verdict_in, point_in=True):
        """A ride of epochs 0-999 whose fixes are all raw fixes, every third too close (14)
        and the rest kept; in the window 400-500 the kept ones get verdict_in."""
        d = self.d(name)
        raw, pts = [], []
        for i in range(1000):
            v = TOO_CLOSE if i % 3 == 0 else (verdict_in if 400 <= i < 500 else 0)
            raw.append((i, v))
            if v == 0 and (point_in or not 400 <= i < 500):
                pts.append(i)
        write_log(os.path.join(d, "00000001.cairn"), pts, raw=raw, end=True)
        files = {"00000001.cairn": board.cairnlog.LogFile(os.path.join(d, "00000001.cairn"))}
        return files

    def case_windows_ok(self):
        """accept: every fix of the windows logged, the kept ones points (float window ends)"""
        board.check_failure_windows(self.windows_log("win-ok", 0), EPOCHS[:1000], [(400, 450.0), (450, 500.0)])

    def case_windows_dropped(self):
        """reject: the windows' fixes logged as raw fixes but dropped by a rule (no_height)
        that drops nothing elsewhere: the failure lost points"""
        board.check_failure_windows(self.windows_log("win-drop", NO_HEIGHT, point_in=False), EPOCHS[:1000], [(400, 500)])

    def case_windows_kept_not_point(self):
        """reject: kept (verdict 0) but not in the track"""
        board.check_failure_windows(self.windows_log("win-kept", 0, point_in=False), EPOCHS[:1000], [(400, 500)])

    # ---- the status -------------------------------------------------------------------------
    def case_baro_gone_status(self):
        """accept: status baro=failing while the barometer is unbound"""
        board.check_baro_gone({"state": "recording", "baro": "failing"})

    def case_baro_gone_empty_status(self):
        """reject: an empty status (cairn gone, or the file not there) while it is unbound"""
        board.check_baro_gone({})

    # ---- ext4 -----------------------------------------------------------------------------
    def ext4(self, name):
        img = os.path.join(self.work, name + ".img")
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        run(["mkfs.ext4", "-q", "-F", img])
        for n in ("00000001.cairn", "00000002.cairn", ".cairn.lock"):
            run(["debugfs", "-w", "-R", "write %s %s" % (os.path.join(self.src, n), n), img])
        return img

    def read_and_check(self, fs, img, clean=False):
        out = os.path.join(self.work, "out-" + os.path.basename(img))
        board.read_disk(fs, img, out, self.work, clean=clean)
        self.checker().check_dir(out, self.acks, os.path.basename(img), {})

    def case_ext4_journal(self):
        """accept: a transaction waiting in the journal (a cut's needs_recovery), replayed"""
        img = self.ext4("ext4-journal")
        blk = int(run(["debugfs", "-R", "ffb 1 20000", img]).split()[-1])
        data = os.path.join(self.work, "block")
        with open(data, "wb") as f:
            f.write(os.urandom(4096))
        script = os.path.join(self.work, "journal.cmds")
        with open(script, "w") as f:
            f.write("jo\njw -b %d %s\njc\n" % (blk, data))
        run(["debugfs", "-w", "-f", script, img])
        assert "needs_recovery" in run(["dumpe2fs", "-h", img]), "the crafted image does not need recovery"
        self.read_and_check("ext4", img)

    def case_ext4_damage(self):
        """reject: a log's data blocks free in the block bitmap (real damage, no journal)"""
        img = self.ext4("ext4-damage")
        blk = run(["debugfs", "-R", "bmap 00000001.cairn 0", img]).split()[-1]
        run(["debugfs", "-w", "-R", "freeb " + blk, img])
        self.read_and_check("ext4", img)

    def case_ext4_clean_needs_recovery(self):
        """reject: after a clean power-off the journal still needs recovery"""
        img = self.ext4("ext4-unclean")
        blk = int(run(["debugfs", "-R", "ffb 1 20000", img]).split()[-1])
        script = os.path.join(self.work, "journal2.cmds")
        with open(script, "w") as f:
            f.write("jo\njw -b %d /dev/null\njc\n" % blk)
        run(["debugfs", "-w", "-f", script, img])
        self.read_and_check("ext4", img, clean=True)

    # ---- vfat -----------------------------------------------------------------------------
    def vfat(self, name):
        img = os.path.join(self.work, name + ".img")
        if os.path.exists(img):
            os.unlink(img)
        with open(img, "wb") as f:
            f.truncate(64 << 20)
        run(["mkfs.vfat", "-F", "32", "-n", "CAIRNLOGS", img])
        run(["mcopy", "-i", img] + [os.path.join(self.src, n) for n in ("00000001.cairn", "00000002.cairn", ".cairn.lock")] + ["::/"])
        return img, Fat32(img)

    def case_vfat_cut(self):
        """accept: what every real vfat cut left: the dirty bit, a stale free count, a stray cluster"""
        img, fat = self.vfat("vfat-cut")
        fat.set_dirty()
        fat.set_free_count(1000)
        fat.stray_cluster()
        self.read_and_check("vfat", img)

    def case_vfat_lock(self):
        """accept: the lock file's entry on a cluster the FAT calls free (4 of 20 real vfat cuts)"""
        img, fat = self.vfat("vfat-lock")
        fat.set_dirty()
        fat.fat(fat.entries()[".cairn.lock"][1], 0)
        self.read_and_check("vfat", img)

    def case_vfat_chain_ahead(self):
        """accept: a log's chain a cluster longer than its size (allocated ahead of the size)"""
        img, fat = self.vfat("vfat-ahead")
        fat.set_dirty()
        chain = fat.chain(fat.entries()["00000002.cairn"][1])
        spare = fat.stray_cluster()
        fat.fat(chain[-1], spare)
        self.read_and_check("vfat", img)

    def case_vfat_crosslink(self):
        """reject: 00000002.cairn's entry pointing into 00000001.cairn's clusters"""
        img, fat = self.vfat("vfat-crosslink")
        fat.set_dirty()
        fat.set_first_cluster("00000002.cairn", fat.entries()["00000001.cairn"][1])
        self.read_and_check("vfat", img)

    def case_vfat_clean(self):
        """accept: a clean volume after a clean power-off"""
        img, _ = self.vfat("vfat-clean")
        self.read_and_check("vfat", img, clean=True)

    def case_vfat_clean_dirty(self):
        """reject: the dirty bit after a clean power-off"""
        img, fat = self.vfat("vfat-clean-dirty")
        fat.set_dirty()
        self.read_and_check("vfat", img, clean=True)

    def case_feed_stops_short(self):
        """reject: the GPS feed stops with qemu alive (not a wait for ever)"""

        class Alive:
            def poll(self):
                return None

        class SocketGone:
            proc = Alive()

            def send_gps(self, data):
                raise BrokenPipeError(32, "Broken pipe")
        ride = board.Ride(SocketGone(), EPOCHS[:50], 1000)
        ride.start()
        board.wait_epoch(SocketGone(), ride, 50, "selftest", 0.01)

    # ---- the boot ---------------------------------------------------------------------------
    def case_connected_before_agent(self):
        """accept: cairn says it connected to gpsd before the host's agent answers"""

        class EarlyGuest:
            def __init__(self):
                self.log_lines = [(0, "cairn: synced /var/lib/cairn/00000001.cairn seq 4")]  # the boot before

            def log_mark(self):
                return len(self.log_lines)

            def start(self):
                self.log_lines.append((1, "[ 30.1] board cairn[301]: cairn: connected to gpsd at 127.0.0.1:2947"))

            def wait_log(self, pattern, since, timeout, what):
                for _, t in self.log_lines[since:]:
                    if board.re.search(pattern, t):
                        return t
                raise board.GuestError("%s: no journal line matching /%s/" % (what, pattern))
        board.power_on(EarlyGuest(), "selftest")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cairn", required=True, help="a cairn for the host (verify, list)")
    ap.add_argument("--keep", default=None, help="work here and keep it")
    a = ap.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix="board-selftest-")
    os.makedirs(work, exist_ok=True)
    cases = Cases(work, a.cairn)
    bad = []
    for name in sorted(n for n in dir(cases) if n.startswith("case_")):
        fn = getattr(cases, name)
        want = fn.__doc__.split(":")[0].strip()
        try:
            fn()
            got, why = "accept", ""
        except (board.Fail, board.GuestError) as e:
            got, why = "reject", str(e).splitlines()[0]
        except Exception as e:  # a case the harness cannot even run is a bad one
            got, why = "error", "%s: %s" % (type(e).__name__, e)
        ok = got == want
        print("selftest: %-4s %-28s %s%s" % ("ok" if ok else "BAD", name[5:], got, (": " + why[:110]) if why else ""))
        if not ok:
            bad.append(name[5:])
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    if bad:
        print("selftest: FAILED: %s" % ", ".join(bad), file=sys.stderr)
        return 1
    print("selftest: all %d cases as expected" % (len([n for n in dir(cases) if n.startswith("case_")])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
