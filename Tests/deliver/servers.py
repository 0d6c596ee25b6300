"""Real rclone remotes on loopback for the `cairn deliver` tests, python 3 stdlib only.

    with Servers(workdir) as s:       # rclone serve sftp, rclone serve webdav, moto's S3 server
        s.conf                        # an rclone.conf: sftp1:, dav1:, s31: (bucket `cairn`), local1:,
                                      # gone1: (a webdav server that is not there)
        s.proxy["sftp1"].drop()       # every open connection closed now (the server vanishing)
        s.proxy["sftp1"].up           # bytes sent to the server so far
        s.proxy["dav1"].throttle(2000)  # 2000 bytes/s each way (a slow link); 0: stalled; None: full speed
        s.proxy["s31"].refuse(True)   # new connections refused (the port closed) until refuse(False)
        s.fill("sftp1")               # the remote's file system full (a small tmpfs), s.unfill(...)

The clients only ever reach a server through its proxy (rclone.conf names the proxy's port).
The sftp and webdav roots, and the local remote's, are each a small tmpfs mounted here (CI runs
as root): writing past its size gives ENOSPC on the server, as a full disk does. moto keeps its
objects in memory: S3 has no full remote here."""
import os, select, shutil, socket, subprocess, threading, time

SFTP_USER, SFTP_PASS = "cairn", "loopback-only"

# A CA bundle for AWS tools in the environment makes rclone's s3 backend fail on a plain-http
# endpoint ("LoadCustomCABundleError"), and any AWS_* or RCLONE_* variable could change what the
# tests see: the servers, rclone and cairn all run without them.
for _k in list(os.environ):
    if _k.startswith(("AWS_", "RCLONE_")):
        del os.environ[_k]
TMPFS_MB = 8


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc=None, timeout=20.0, what="server"):
    end = time.time() + timeout
    while time.time() < end:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("%s exited with %s before listening on %d" % (what, proc.returncode, port))
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("%s did not listen on port %d within %.0f s" % (what, port, timeout))


class Proxy:
    """A TCP proxy 127.0.0.1:port -> 127.0.0.1:target, one thread per connection pair."""

    def __init__(self, target):
        self.target = target
        self.port = free_port()
        self.rate = None  # bytes/s each way, None = unlimited
        self.conns = set()
        self.lock = threading.Lock()
        self.listener = None
        self.stopping = False
        self.accepted = 0
        self.up = 0  # bytes client -> server so far
        self.corrupt_at = None  # flip the byte at this count of `up` (bit rot on the way)
        self._listen()

    def _listen(self):
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", self.port))
        s.listen(64)
        self.listener = s
        threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    def _accept(self, s):
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                u.settimeout(None)
            except OSError:
                c.close()
                continue
            with self.lock:
                self.conns.add((c, u))
                self.accepted += 1
            threading.Thread(target=self._pump, args=(c, u), daemon=True).start()

    def _pump(self, a, b):
        peer = {a: b, b: a}
        try:
            while True:
                if self.rate == 0:  # stalled: the connection stays open, nothing moves
                    time.sleep(0.1)
                    continue
                r, _, _ = select.select([a, b], [], [], 0.2)
                for s in r:
                    n = 65536 if self.rate is None else max(1, min(65536, self.rate // 10))
                    data = s.recv(n)
                    if not data:
                        return
                    if s is a:
                        k = self.corrupt_at
                        if k is not None and self.up <= k < self.up + len(data):
                            flipped = bytearray(data)
                            flipped[k - self.up] ^= 0x20
                            data = bytes(flipped)
                            self.corrupt_at = None
                        self.up += len(data)
                    peer[s].sendall(data)
                    if self.rate is not None:
                        time.sleep(len(data) / float(self.rate))
        except OSError:
            return
        finally:
            with self.lock:
                self.conns.discard((a, b))
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()

    def drop(self):
        """Closes every open connection (RST to the client: SO_LINGER 0) — the server vanished."""
        with self.lock:
            conns = list(self.conns)
        for c, u in conns:
            for s in (c, u):
                try:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        return len(conns)

    def throttle(self, rate):
        self.rate = rate

    def refuse(self, on):
        if on and self.listener is not None:
            # shutdown first: a plain close leaves the port listening while accept() blocks on it
            try:
                self.listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.listener.close()
            self.listener = None
        elif not on and self.listener is None:
            for _ in range(50):
                try:
                    self._listen()
                    return
                except OSError:
                    time.sleep(0.1)
            raise RuntimeError("proxy could not listen again on %d" % self.port)

    def reset(self):
        self.refuse(False)
        self.rate = None
        self.corrupt_at = None

    def close(self):
        self.refuse(True)
        self.drop()


class Servers:
    REMOTES = ("sftp1", "dav1", "s31", "local1")

    def __init__(self, workdir, rclone="rclone"):
        self.dir = workdir
        self.rclone = rclone
        self.procs = []
        self.mounts = []
        self.proxy = {}
        self.root = {}
        self.conf = os.path.join(workdir, "rclone.conf")

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _tmpfs(self, name):
        d = os.path.join(self.dir, name)
        os.makedirs(d, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%dm,mode=0755" % TMPFS_MB, "tmpfs", d],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("cannot mount a tmpfs for the full-remote tests at %s (run as root): %s"
                               % (d, r.stderr.strip()))
        self.mounts.append(d)
        return d

    def _spawn(self, name, argv, port):
        log = open(os.path.join(self.dir, name + ".log"), "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.append(p)
        wait_port(port, p, what=name)
        return p

    def obscure(self, pw):
        return subprocess.run([self.rclone, "obscure", pw], capture_output=True, text=True, check=True).stdout.strip()

    def start(self):
        # sftp: rclone's server generates its host keys into its cache; keep them in the workdir.
        self.root["sftp1"] = self._tmpfs("sftp-root")
        port = free_port()
        # No directory cache: the tests change the roots behind the servers' backs (wipe, ballast).
        env_cache = ["--cache-dir", os.path.join(self.dir, "rclone-cache"), "--dir-cache-time", "0s"]
        self._spawn("sftp1", [self.rclone, "serve", "sftp", self.root["sftp1"], "--addr", "127.0.0.1:%d" % port,
                              "--user", SFTP_USER, "--pass", SFTP_PASS, "--config", "/dev/null"] + env_cache, port)
        self.proxy["sftp1"] = Proxy(port)

        self.root["dav1"] = self._tmpfs("dav-root")
        port = free_port()
        self._spawn("dav1", [self.rclone, "serve", "webdav", self.root["dav1"], "--addr", "127.0.0.1:%d" % port,
                             "--config", "/dev/null"] + env_cache, port)
        self.proxy["dav1"] = Proxy(port)

        port = free_port()
        moto = shutil.which("moto_server")
        if moto is None:
            raise RuntimeError("moto_server is not on PATH: bash Tests/tools/install-deps.sh installs moto[server]")
        self._spawn("s31", [moto, "-H", "127.0.0.1", "-p", str(port)], port)
        self.proxy["s31"] = Proxy(port)

        self.root["local1"] = self._tmpfs("local-root")

        with open(self.conf, "w") as f:
            f.write("[sftp1]\ntype = sftp\nhost = 127.0.0.1\nport = %d\nuser = %s\npass = %s\n"
                    "shell_type = unix\nmd5sum_command = md5sum\nsha1sum_command = sha1sum\n\n"
                    % (self.proxy["sftp1"].port, SFTP_USER, self.obscure(SFTP_PASS)))
            f.write("[dav1]\ntype = webdav\nurl = http://127.0.0.1:%d/\nvendor = other\n\n" % self.proxy["dav1"].port)
            f.write("[s31]\ntype = s3\nprovider = Other\nenv_auth = false\naccess_key_id = test\n"
                    "secret_access_key = test\nregion = us-east-1\nendpoint = http://127.0.0.1:%d\n"
                    "force_path_style = true\n\n" % self.proxy["s31"].port)
            f.write("[local1]\ntype = alias\nremote = %s\n\n" % self.root["local1"])
            # A server that is not there at all (nothing listens on the port).
            f.write("[gone1]\ntype = webdav\nurl = http://127.0.0.1:%d/\nvendor = other\n" % free_port())
        r = self.rc(["mkdir", "s31:cairn"])
        if r.returncode != 0:
            raise RuntimeError("rclone mkdir s31:cairn failed: " + r.stderr)

    def rc(self, args, timeout=60):
        """rclone with this config (and short timeouts, so a check never hangs on a fault)."""
        return subprocess.run([self.rclone, "--config", self.conf, "--contimeout", "5s", "--timeout", "20s",
                               "--low-level-retries", "3"] + args, capture_output=True, text=True, timeout=timeout)

    def base(self, remote):
        """The remote path the tests deliver to, for a fresh run: `s31:cairn/...` on S3."""
        return "s31:cairn" if remote == "s31" else remote + ":"

    def fill(self, remote, leave=0):
        """Fills the remote's tmpfs but `leave` bytes with a ballast file (not under the delivery path)."""
        root = self.root[remote]
        st = os.statvfs(root)
        free = st.f_bavail * st.f_frsize
        with open(os.path.join(root, "ballast"), "wb") as f:
            left = max(0, free - leave)
            chunk = b"\0" * 65536
            while left > 0:
                try:
                    left -= f.write(chunk[: min(len(chunk), left)])
                except OSError:
                    break

    def unfill(self, remote):
        try:
            os.unlink(os.path.join(self.root[remote], "ballast"))
        except FileNotFoundError:
            pass

    def reset_faults(self, remote):
        if remote in self.proxy:
            self.proxy[remote].reset()
        if remote in self.root:
            self.unfill(remote)

    def wipe(self, remote, sub):
        """Empties one delivery folder (between scenarios)."""
        if remote in self.root:
            shutil.rmtree(os.path.join(self.root[remote], sub), ignore_errors=True)
        else:
            self.rc(["purge", "s31:cairn/" + sub])

    def close(self):
        for p in self.proxy.values():
            p.close()
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        for d in reversed(self.mounts):
            subprocess.run(["umount", "-l", d], capture_output=True)
        self.mounts = []
