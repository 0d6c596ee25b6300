#!/usr/bin/env python3
"""Replay an NMEA receiver log through a private gpsd running on a pty.

Protocol on stdout (one line each, flushed):
  READY <port>       gpsd holds the pty, listens on 127.0.0.1:<port> and is
                     past its ~1 s startup; connect and ?WATCH now
  RESTARTED <n>      the n-th --restart-at restart is done (same port, new pty)
  DONE <written>     all sentences written; gpsd lingers, then is stopped
Exit: 0 ok, 1 gpsd failure, 2 no client connected within --wait-client.

Stdlib only. It speaks gpsd's own protocol on a free port (gpsd reads the pty like a serial GPS).
"""
import argparse, ctypes, fcntl, os, pwd, select, signal, socket, subprocess
import sys, tempfile, termios, time, tty, pty

PR_SET_PDEATHSIG = 1
LISTEN, ESTABLISHED = "0A", "01"


def log(msg):
    print("gpsd-replay: " + msg, file=sys.stderr, flush=True)


def say(line):
    try:
        print(line, flush=True)
    except BrokenPipeError:
        pass


class Fail(Exception):
    def __init__(self, msg, code=1):
        super().__init__(msg)
        self.code = code


def tcp_entries(files=("/proc/net/tcp", "/proc/net/tcp6")):
    """(local_port, state, inode) for every TCP socket in files."""
    for name in files:
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    p = line.split()
                    yield int(p[1].rsplit(":", 1)[1], 16), p[3], p[9]
        except FileNotFoundError:
            pass


def unprivileged_ids():
    """gpsd started as root drops to user 'gpsd' itself, and that credential
    change clears PR_SET_PDEATHSIG. So we drop first (gpsd then skips its own
    drop) and arm PDEATHSIG afterwards."""
    if os.getuid() != 0:
        return None
    for user in ("gpsd", "nobody"):
        try:
            pw = pwd.getpwnam(user)
            return pw.pw_uid, pw.pw_gid
        except KeyError:
            pass
    return None


class Gpsd:
    def __init__(self, exe, port, tmp):
        self.port = port
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.device = os.ttyname(self.slave)
        os.set_blocking(self.master, False)
        ids = unprivileged_ids()
        if ids:
            os.chown(self.device, *ids)
            os.chown(tmp, *ids)
        self.errpath = os.path.join(tmp, "gpsd-%d.err" % port)
        self.ctl = os.path.join(tmp, "ctl.sock")
        if os.path.exists(self.ctl):  # left by a gpsd that had to be killed
            os.unlink(self.ctl)
        parent = os.getpid()
        libc = ctypes.CDLL(None, use_errno=True)

        def child():
            if ids:
                try:
                    os.setgroups([])
                    os.setgid(ids[1])
                    os.setuid(ids[0])
                except OSError:
                    pass  # e.g. no CAP_SETUID: then gpsd can't drop either
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
            if os.getppid() != parent:  # parent died before prctl
                os._exit(1)

        with open(self.errpath, "ab") as err:
            self.proc = subprocess.Popen(
                [exe, "-N", "-n", "-b", "-S", str(port),
                 "-F", self.ctl, self.device],
                stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                preexec_fn=child)

    def _fds(self):
        out = set()
        d = "/proc/%d/fd" % self.proc.pid
        try:
            for fd in os.listdir(d):
                try:
                    out.add(os.readlink(os.path.join(d, fd)))
                except OSError:
                    pass
        except OSError:
            pass
        return out

    def sockets(self):
        """Inodes of gpsd's sockets."""
        return {f[8:-1] for f in self._fds() if f.startswith("socket:[")}

    def wait_ready(self, timeout=10.0):
        """True once gpsd holds the pty, has reached its main loop and owns an
        IPv4 LISTEN socket on the port."""
        end = time.monotonic() + timeout
        while self.device not in self._fds() or not os.path.exists(self.ctl):
            if time.monotonic() > end or self.proc.poll() is not None:
                return False
            time.sleep(0.01)
        # gpsd holds the pty ~1 s before its main loop runs: it is still
        # probing the device (speed changes flush the pty), and a client that
        # connects now waits in the backlog, so "ESTABLISHED" would not mean
        # "watching". Any control-socket reply proves the main loop is running.
        try:
            with socket.socket(socket.AF_UNIX) as u:
                u.settimeout(max(0.1, end - time.monotonic()))
                u.connect(self.ctl)
                u.sendall(b"?\n")  # not a command: gpsd answers "ERROR"
                if not u.recv(64):
                    return False
        except OSError:
            return False
        # IPv4 only: if another process holds the IPv4 port gpsd keeps running
        # on IPv6 alone, but clients connect to 127.0.0.1.
        socks = self.sockets()
        return any(p == self.port and st == LISTEN and ino in socks
                   for p, st, ino in tcp_entries(["/proc/net/tcp"]))

    def alive(self):
        return self.proc.poll() is None

    def pending(self):
        """Bytes written to the pty that gpsd has not read yet."""
        buf = bytearray(4)
        fcntl.ioctl(self.slave, termios.FIONREAD, buf)
        return int.from_bytes(buf, sys.byteorder)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
        try:  # pass gpsd's complaints on, minus the harmless D-Bus one
            with open(self.errpath, errors="replace") as f:
                for line in f:
                    if "DBUS" not in line:
                        sys.stderr.write("gpsd: " + line)
            os.unlink(self.errpath)
        except OSError:
            pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gpsd(exe, port, tmp, pick):
    """Start gpsd on port (or on fresh free ports if pick); return it ready."""
    for _ in range(5 if pick else 1):
        p = free_port() if pick else port
        g = Gpsd(exe, p, tmp)
        if g.wait_ready():
            return g
        g.stop()
        log("gpsd did not come up on port %d" % p)
    raise Fail("could not start gpsd")


def wait_client(g, timeout, clients=1):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if not g.alive():
            raise Fail("gpsd exited while waiting for a client")
        if sum(1 for p, st, ino in tcp_entries()
               if p == g.port and st == ESTABLISHED and ino in g.sockets()) >= clients:
            # gpsd has accepted a client; give its ?WATCH time to arrive. With
            # -n gpsd reads and drops whatever comes in before anybody watches.
            time.sleep(0.5)
            return
        time.sleep(0.02)
    raise Fail("no client connected to port %d within %g s" % (g.port, timeout), 2)


def write_all(g, data):
    """Write data to the pty master; drain its output so gpsd never blocks."""
    while data:
        if not g.alive():
            raise Fail("gpsd died during replay")
        r, w, _ = select.select([g.master], [g.master], [], 0.2)
        if r:
            try:
                os.read(g.master, 65536)
            except OSError:
                pass
        if w:
            try:
                data = data[os.write(g.master, data):]
            except BlockingIOError:
                pass


def settle(g, timeout=2.0):
    """Wait until gpsd has read everything and had a moment to report it."""
    end = time.monotonic() + timeout
    while g.pending() and g.alive() and time.monotonic() < end:
        time.sleep(0.01)
    time.sleep(0.2)


def read_sentences(path):
    out = []
    with open(path, "rb") as f:
        for line in f.read().split(b"\n"):
            line = line.rstrip(b"\r")
            if line and not line.startswith(b"#"):  # gpsd test-log comments
                out.append(line + b"\r\n")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--port", type=int, default=0, help="0 = pick a free port")
    ap.add_argument("--rate", type=float, default=0.0,
                    help="sentences per second, 0 = as fast as possible")
    ap.add_argument("--wait-client", type=float, default=30.0)
    ap.add_argument("--restart-at", type=float, nargs="*", default=[],
                    metavar="FRACTION")
    ap.add_argument("--linger", type=float, default=1.0)
    ap.add_argument("--clients", type=int, default=1,
                    help="wait for this many clients before writing (benchmarks run two recorders)")
    ap.add_argument("--gpsd", default="gpsd")
    a = ap.parse_args()

    def on_signal(sig, _frame):
        raise SystemExit(128 + sig)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    sentences = read_sentences(a.log)
    n = len(sentences)
    restarts = sorted({max(0, min(n - 1, round(f * n))) for f in a.restart_at})
    g, restarted = None, 0
    with tempfile.TemporaryDirectory(prefix="gpsd-replay-") as tmp:
        os.chmod(tmp, 0o700)
        try:
            g = start_gpsd(a.gpsd, a.port, tmp, a.port == 0)
            say("READY %d" % g.port)
            wait_client(g, a.wait_client, a.clients)
            t0 = time.monotonic()
            for i, s in enumerate(sentences):
                while restarts and restarts[0] == i:
                    restarts.pop(0)
                    settle(g)
                    port = g.port
                    g.stop()
                    g = None
                    time.sleep(1.0)
                    g = start_gpsd(a.gpsd, port, tmp, False)
                    restarted += 1
                    say("RESTARTED %d" % restarted)
                    wait_client(g, a.wait_client, a.clients)
                    t0 = time.monotonic() - i / a.rate if a.rate > 0 else 0
                if a.rate > 0:
                    delay = t0 + i / a.rate - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                write_all(g, s)
            settle(g)
            say("DONE %d" % n)
            time.sleep(a.linger)
            return 0
        except Fail as e:
            log(str(e))
            return e.code
        finally:
            for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
                signal.signal(sig, signal.SIG_IGN)  # don't abort the cleanup
            if g is not None:
                g.stop()


if __name__ == "__main__":
    sys.exit(main())
