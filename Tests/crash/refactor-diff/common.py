"""Shared pieces of the refactor differential harness: running a binary in a sandbox, masking,
snapshots of a directory tree, and the log normaliser (salt, CRCs, batching and arrival times
are the only things allowed to differ between two recordings of the same input)."""
import hashlib, os, re, shutil, signal, stat, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
TOOLS = os.path.join(ROOT, "Tests", "tools")
sys.path.insert(0, os.path.join(ROOT, "Tests", "crash"))
sys.dont_write_bytecode = True
import cairnlog  # noqa: E402

KEY = bytes(range(1, 17))  # a fixed privacy key: the zones' cut must not depend on getrandom
ENV = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LANG": "C", "LC_ALL": "C", "TZ": "UTC"}


def env_for(sb):
    e = dict(ENV)
    e["HOME"] = os.path.join(sb, "home")
    return e


def mask_bytes(b, sb, extra=()):
    b = b.replace(sb.encode(), b"@SB@")
    b = re.sub(rb"127\.0\.0\.1:\d+", b"127.0.0.1:@PORT@", b)
    b = re.sub(rb"\.[0-9a-f]+-[0-9a-f]+\.part\b", b".@PID-RANDOM@.part", b)  # a temporary name: pid and random
    b = re.sub(rb"\d+ records were waiting", b"@N records were waiting", b)  # how many: timing
    b = re.sub(rb"the clock reads [0-9TZ:-]+", b"the clock reads @NOW", b)  # retention's "now"
    for pat, rep in extra:
        b = re.sub(pat, rep, b)
    return b


def run(argv, cwd, env, timeout=120, stdin=None):
    t = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, timeout=timeout,
                           stdin=stdin if stdin is not None else subprocess.DEVNULL)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = "timeout", e.stdout or b"", e.stderr or b""
    return rc, out, err, time.monotonic() - t


def tree(root, skip=(), content_mask=None):
    """{relative path: (kind, mode, bytes-or-digest)} for everything under root."""
    out = {}
    if not os.path.lexists(root):
        return out
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for n in sorted(dns + fns):
            p = os.path.join(dp, n)
            rel = re.sub(r"\.tmp\d+$", ".tmp@PID@", os.path.relpath(p, root))  # a pid in a temporary name
            rel = re.sub(r"\.[0-9a-f]+-[0-9a-f]+\.part$", ".@PID-RANDOM@.part", rel)
            if any(rel == s or rel.startswith(s + "/") for s in skip):
                continue
            st = os.lstat(p)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", mode, os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", mode, None)
            elif stat.S_ISREG(st.st_mode):
                data = open(p, "rb").read()
                if content_mask:
                    data = content_mask(rel, data)
                out[rel] = ("file", mode, data)
            else:
                out[rel] = ("other", mode, None)
    return out


def tree_diff(a, b, limit=6):
    lines = []
    for k in sorted(set(a) | set(b)):
        if k not in a:
            lines.append("only NEW has %s %s" % (k, short(b[k])))
        elif k not in b:
            lines.append("only BASE has %s %s" % (k, short(a[k])))
        elif a[k] != b[k]:
            (ka, ma, da), (kb, mb, db) = a[k], b[k]
            if (ka, ma) != (kb, mb):
                lines.append("%s: BASE %s %o, NEW %s %o" % (k, ka, ma, kb, mb))
            if da != db:
                lines.append("%s: content differs: %s" % (k, first_diff(da, db)))
        if len(lines) >= limit:
            lines.append("...")
            break
    return lines


def short(v):
    kind, mode, data = v
    if kind == "file":
        return "(file %o, %d bytes, sha %s)" % (mode, len(data), hashlib.sha256(data).hexdigest()[:12])
    return "(%s %o)" % (kind, mode)


def first_diff(a, b):
    if a is None or b is None:
        return "BASE %r NEW %r" % (a, b)
    if isinstance(a, str):
        a, b = a.encode(), b.encode()
    n = min(len(a), len(b))
    i = next((j for j in range(n) if a[j] != b[j]), n)
    lo = max(0, i - 40)
    return "sizes %d/%d, first at byte %d: BASE %r / NEW %r" % (len(a), len(b), i, a[lo:i + 60], b[lo:i + 60])


def norm_log(path):
    """A recording's log file as the lines that must match between two binaries: the header
    without its salt; every record but points, raw fixes, padding and dropped counts, each with
    the number of points before it; the points concatenated (records are cut by timing); the raw
    fixes concatenated without their arrival lags (the system clock); the last dropped counts."""
    try:
        f = cairnlog.LogFile(path)
    except (cairnlog.Bad, OSError) as e:
        return ["unreadable: %s" % e]
    out = ["header version %d header_len %d trip %d part %d damaged %d torn %d" % (
        f.version, f.header_len, f.trip, f.part, len(f.damaged), f.torn)]
    pts, raws, last_drop, left_out, flags = [], [], None, 0, set()
    for off, typ, payload in f.frames:
        seq, i = cairnlog.varint(payload, 0)
        try:
            if typ == 3:
                pts.extend(cairnlog.decode_points(payload, i)[0]); continue
            if typ == 7:
                pts.extend(cairnlog.decode_compact_points(payload, i)[0]); continue
            if typ == 8:
                n, j = cairnlog.varint(payload, i)
                fl = payload[j]
                alen, j2 = cairnlog.varint(payload, j + 1)
                act = payload[j2:j2 + alen]
                ca, j3 = cairnlog.varint(payload, j2 + alen)
                lo, _ = cairnlog.varint(payload, j3)
                left_out += lo
                flags.add((fl, act, ca))
                for p in cairnlog.decode_raw_fixes(payload, i)[0]:
                    p.pop("arrival", None)
                    raws.append(p)
                continue
        except cairnlog.Bad as e:
            out.append("record type %d undecodable: %s" % (typ, e)); continue
        if typ == 255:
            continue
        if typ == 4:
            last_drop = payload[i:].hex(); continue
        body = payload[i:]
        out.append("at point %d: record type %d %s" % (len(pts), typ, repr(body) if typ == 5 else body.hex()))
    out.append("points %d" % len(pts))
    out.extend("  pt " + repr(sorted(p.items())) for p in pts)
    out.append("raw fixes %d, left out %d, flags %r" % (len(raws), left_out, sorted(flags)))
    out.extend("  raw " + repr(sorted(p.items())) for p in raws)
    out.append("dropped (last) %s" % last_drop)
    return out


def norm_log_dir(d):
    out = {}
    if not os.path.isdir(d):
        return out
    for n in sorted(os.listdir(d)):
        if n.endswith(".cairn"):
            out[n] = norm_log(os.path.join(d, n))
    return out


def lines_diff(a, b, limit=4):
    res = []
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<none>"
        y = b[i] if i < len(b) else "<none>"
        if x != y:
            res.append("line %d: BASE %s | NEW %s" % (i, x[:300], y[:300]))
            if len(res) >= limit:
                break
    return res


class Gps:
    """fake-gpsd.py or gpsd-replay.py as a context: .port, .wait_done()."""

    def __init__(self, kind, arg, rate, extra=()):
        if kind == "lines":
            argv = ["python3", TOOLS + "/fake-gpsd.py", "--lines", arg, "--rate", str(rate)]
        elif kind == "ride":
            argv = ["python3", TOOLS + "/fake-gpsd.py", "--ride", "--count", str(arg), "--rate", str(rate)]
        elif kind == "ride-drop":  # the connection closed every 150 fixes: reconnects, resumed trip
            argv = ["python3", TOOLS + "/fake-gpsd.py", "--ride", "--count", str(arg), "--rate", str(rate), "--drop-after", "150"]
        else:
            # gpsd stays up until the recorder has been stopped: its going away (and a reconnect
            # racing its exit) is timing, not behaviour
            argv = ["python3", TOOLS + "/gpsd-replay.py", arg, "--port", "0", "--rate", str(rate), "--linger", "30"]
        argv += list(extra)
        self.kind = kind
        # unbuffered, so select() sees every line the source prints
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0,
                                  start_new_session=True)
        line = self.p.stdout.readline().decode()
        if not line.startswith("READY"):
            raise RuntimeError("gps source did not start: %r" % line)
        self.port = int(line.split()[1])

    def wait_done(self, timeout=300, alive=lambda: True):
        """Until the source has sent everything, or the recorder (alive) is gone."""
        import select
        t = time.monotonic() + timeout
        while time.monotonic() < t:
            r, _, _ = select.select([self.p.stdout], [], [], 0.2)
            if r:
                line = self.p.stdout.readline().decode()
                if not line or line.startswith("DONE"):
                    return True
            elif not alive():
                return False
        return False

    def wait_exit(self, timeout=30):
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def close(self):
        if self.p.poll() is None:
            try:
                os.killpg(self.p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()


def record(binp, src, logs, extra=(), settle=2.0, env=None, errpath=None, prefix=(), during=None):
    """Records src (kind, arg, rate) into logs with `record --clock fix --sync 1`; stops with
    SIGTERM once the source is done. Returns (rc, stderr bytes)."""
    kind, arg, rate = src
    g = Gps(kind, arg, rate)
    try:
        argv = list(prefix) + [binp, "record", "--gpsd", "127.0.0.1:%d" % g.port, "--dir", logs, "--baro", "none",
                               "--clock", "fix", "--sync", "1"] + list(extra)
        errpath = errpath or logs.rstrip("/") + ".err"
        with open(errpath, "wb") as ef:  # a group of its own: a tracer and its tracee stop together
            p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=ef, env=env or ENV, start_new_session=True)
        if during:
            during(p)
        if not g.wait_done(alive=lambda: p.poll() is None):
            settle = 0
        time.sleep(settle)
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            rc = p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill(); rc = "hung"
        gone = time.monotonic() + 10
        while True:  # nothing of the group may outlive the case (strace leaves its tracee behind)
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                break
            if time.monotonic() > gone:
                os.killpg(p.pid, signal.SIGKILL)
                break
            time.sleep(0.05)
    finally:
        g.close()
    return rc, open(errpath, "rb").read()


def fresh(prefix="rd-"):
    return tempfile.mkdtemp(prefix=prefix, dir="/tmp")


def rmtree(p):
    shutil.rmtree(p, ignore_errors=True)
