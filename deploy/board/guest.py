"""One emulated board: qemu under TCG, its disks, and the host's ends of its ports.

    ttyS0          the console, to RUN/console-N.log
    ttyS1          the GPS (amd64; hvc0, a virtio console, on arm64's virt, which has one
                   PL011): the host writes NMEA and drains what gpsd writes (its probes
                   would fill qemu's buffer and block gpsd)
    board.agent    virtio-serial: commands run as root by guest/board-agent
    board.log      virtio-serial: the journal of cairn and gpsd (guest/board-journal.service)

A power cut is SIGKILL to qemu: the guest's page cache and queued writes are gone, what qemu had
written to the image files stays (like a card that kept what it acknowledged)."""
import os, re, select, signal, socket, subprocess, threading, time

ACK = re.compile(r"cairn: synced (\S+) seq (\d+)")


class GuestError(Exception):
    pass


class Guest:
    def __init__(self, arch, kdir, rundir, root_img, log_img, name, smp=2, mem=512):
        self.arch, self.kdir, self.rundir, self.name = arch, kdir, rundir, name
        self.root_img, self.log_img, self.smp, self.mem = root_img, log_img, smp, mem
        self.proc = None
        self.boots = 0
        self.lock = threading.Lock()
        self.log_lines = []  # (host monotonic, line) of every boot, in order
        self.acks = {}  # guest path -> highest acknowledged (synced) seq, over all boots
        self.boot_acks = {}  # the same, this boot only
        self.agent_buf = b""
        self.ready, self.pending, self.responses = False, [], {}
        self.agent_cv = threading.Condition(self.lock)
        self.next_id = 1
        self.gps_sock = None

    # ---- the machine -------------------------------------------------------------------------
    def qemu_cmd(self):
        s = lambda n: os.path.join(self.rundir, "%s.%s.sock" % (self.name, n))
        self.socks = {n: s(n) for n in ("agent", "log", "gps")}
        console = os.path.join(self.rundir, "%s.console-%d.log" % (self.name, self.boots))
        if self.arch == "amd64":
            cmd = ["qemu-system-x86_64", "-M", "pc", "-cpu", "max"]
            # no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can
            # miss its ticks and panic ("IO-APIC + timer doesn't work!", seen at load 17)
            append = "console=ttyS0 no_timer_check"
            serials = ["-serial", "file:" + console, "-serial", "unix:%s,server=on,wait=off" % self.socks["gps"]]
        else:
            cmd = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a53"]
            append = "console=ttyAMA0"
            serials = ["-serial", "file:" + console]
        # -no-reboot: a reboot ends this qemu and reboot() starts the next (see there)
        cmd += ["-accel", "tcg", "-smp", str(self.smp), "-m", str(self.mem), "-display", "none", "-monitor", "none", "-no-reboot",
                "-kernel", os.path.join(self.kdir, "vmlinuz"), "-initrd", os.path.join(self.kdir, "initrd.img"),
                "-append", append + " quiet systemd.show_status=0",
                "-drive", "file=%s,if=virtio,format=%s" % (self.root_img, "qcow2" if self.root_img.endswith(".qcow2") else "raw"),
                "-drive", "file=%s,if=virtio,format=raw" % self.log_img] + serials
        cmd += ["-device", "virtio-serial-pci"]
        if self.arch != "amd64":
            # virt has one PL011 (the console): the GPS is a virtio console, a tty (/dev/hvc0)
            cmd += ["-chardev", "socket,id=gps,path=%s,server=on,wait=off" % self.socks["gps"],
                    "-device", "virtconsole,chardev=gps,name=board.gps,nr=0"]
        for n in ("agent", "log"):
            cmd += ["-chardev", "socket,id=%s,path=%s,server=on,wait=off" % (n, self.socks[n]),
                    "-device", "virtserialport,chardev=%s,name=board.%s" % (n, n)]
        return cmd

    def start(self, timeout=600):
        """Power on and wait until the agent answers."""
        assert self.proc is None
        cmd = self.qemu_cmd()
        for p in self.socks.values():
            if os.path.exists(p):
                os.unlink(p)
        self.boots += 1
        self.boot_acks = {}
        self.ready = False
        self.t_power = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=open(os.path.join(self.rundir, self.name + ".qemu.log"), "ab"),
                                     stderr=subprocess.STDOUT)
        end = time.monotonic() + 30
        while not all(os.path.exists(p) for p in self.socks.values()):
            if self.proc.poll() is not None or time.monotonic() > end:
                raise GuestError("qemu did not start (exit %s): see %s.qemu.log" % (self.proc.poll(), self.name))
            time.sleep(0.05)
        self.conns = {}
        for n, p in self.socks.items():
            c = socket.socket(socket.AF_UNIX)
            c.connect(p)
            self.conns[n] = c
        self.gps_sock = self.conns["gps"] if "gps" in self.conns else None
        self.stop_reader = False
        self.reader = threading.Thread(target=self._read_loop, args=(dict(self.conns),), daemon=True)
        self.reader.start()
        self.wait_ready(timeout)

    def _read_loop(self, conns):
        log_buf = b""
        socks = list(conns.values())
        while socks and not self.stop_reader:
            try:
                r, _, _ = select.select(socks, [], [], 0.5)
            except (OSError, ValueError):
                break
            for s in r:
                try:
                    d = s.recv(65536)
                except OSError:
                    d = b""
                if not d:
                    socks.remove(s)
                    continue
                if s is conns["agent"]:
                    with self.lock:
                        self.agent_buf += d
                        *lines, self.agent_buf = self.agent_buf.split(b"\n")
                        for ln in lines:
                            t = ln.decode("utf-8", "replace")
                            if t.startswith("@@READY"):
                                self.ready = True
                                self.pending = []
                            elif t.startswith("@@END "):
                                _, cid, rc = t.split()
                                self.responses[int(cid)] = (int(rc), "\n".join(self.pending))
                                self.pending = []
                            else:
                                self.pending.append(t)
                        self.agent_cv.notify_all()
                elif s is conns["log"]:
                    log_buf += d
                    *lines, log_buf = log_buf.split(b"\n")
                    now = time.monotonic()
                    with self.lock:
                        for ln in lines:
                            t = ln.decode("utf-8", "replace")
                            self.log_lines.append((now, t))
                            m = ACK.search(t)
                            if m:
                                path, seq = m.group(1), int(m.group(2))
                                self.acks[path] = max(self.acks.get(path, 0), seq)
                                self.boot_acks[path] = max(self.boot_acks.get(path, 0), seq)
                        self.agent_cv.notify_all()
                # the GPS port: what gpsd writes (probes) is read and dropped

    def wait_ready(self, timeout):
        end = time.monotonic() + timeout
        with self.lock:
            while not self.ready:
                left = end - time.monotonic()
                if self.proc.poll() is not None:
                    raise GuestError("qemu exited (status %s) during boot %d: see %s.qemu.log and %s.console-*.log"
                                     % (self.proc.poll(), self.boots, self.name, self.name))
                if left <= 0:
                    raise GuestError("the guest's agent did not answer within %d s of power-on (boot %d; see %s.console-*.log)"
                                     % (timeout, self.boots, self.name))
                self.agent_cv.wait(min(left, 1))
        self.t_ready = time.monotonic()

    def run(self, cmd, timeout=60, check=True):
        """Run a shell command in the guest as root: (status, output)."""
        with self.lock:
            cid = self.next_id
            self.next_id += 1
        self.conns["agent"].sendall(("%d %s\n" % (cid, cmd)).encode())
        end = time.monotonic() + timeout
        with self.lock:
            while cid not in self.responses:
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise GuestError("no answer from the guest within %d s to: %s" % (timeout, cmd))
                self.agent_cv.wait(min(left, 1))
            rc, out = self.responses.pop(cid)
        if check and rc != 0:
            raise GuestError("in the guest, exit %d: %s\n%s" % (rc, cmd, out))
        return rc, out

    def wait_log(self, pattern, since_line, timeout, what):
        """Wait for a journal line matching pattern after line index since_line; returns it."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        with self.lock:
            while True:
                for _, t in self.log_lines[since_line:]:
                    if rx.search(t):
                        return t
                left = end - time.monotonic()
                if left <= 0:
                    raise GuestError("%s: no journal line matching /%s/ within %d s" % (what, pattern, timeout))
                self.agent_cv.wait(min(left, 1))

    def log_mark(self):
        with self.lock:
            return len(self.log_lines)

    def send_gps(self, data):
        if self.gps_sock is not None:
            self.gps_sock.sendall(data)

    def reboot(self, timeout=600):
        """`systemctl reboot` in the guest, then the machine's reset as a new qemu process, and wait
        for the agent again. The guest's whole reboot runs (units stopped, file systems synced and
        remounted read-only, the kernel's restart); only the reset is a fresh process: a kernel
        booted by a reset inside the same qemu ran about five times slower under TCG (a reboot 96
        s against 25 s for the same disk booted afresh, 2026-12-07)."""
        with self.lock:
            self.ready = False
        self.conns["agent"].sendall(b"0 systemctl reboot\n")
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise GuestError("the guest did not reach its reset within %d s of `systemctl reboot`" % timeout)
        self._gone()
        self.start(timeout)

    def power_cut(self):
        """SIGKILL to qemu: the power is gone at once."""
        self.proc.send_signal(signal.SIGKILL)
        self._gone()

    def _gone(self):
        self.proc.wait()
        self.stop_reader = True
        self.reader.join(2)
        for c in self.conns.values():
            c.close()
        self.proc = None
        self.gps_sock = None
        with self.lock:
            self.agent_buf, self.ready, self.pending, self.responses = b"", False, [], {}

    def poweroff(self, timeout=120):
        self.conns["agent"].sendall(b"0 systemctl poweroff\n")
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise GuestError("the guest did not power off within %d s" % timeout)
        self._gone()

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
            self._gone()
