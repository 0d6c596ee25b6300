#!/usr/bin/env python3
"""The Bluetooth LE sensors on a real kernel (issue 40 item 4): Google's Bumble inside the guest
on /dev/vhci (the kernel's `hci_vhci`) gives the guest's Bluetooth stack a controller, and
three more virtual controllers on Bumble's same LocalLink host the virtual heart rate, speed and
cadence, and power sensors (deploy/board/ble_sensors.py). bluetoothd runs in the guest (it
powers the adapter, and cairn's ATT sockets must coexist with it). cairn, as the unprivileged
`cairn` user the service runs as, connects, subscribes and prints what arrives (`cairn sensors
--watch`); the host checks every sensor's values, the heart-rate sensor lost and back, the
rollovers decoded, the garbage said and counted, the flood taken, the indications confirmed.

Why inside the guest and not on the host behind an HCI UART (`btattach` on a guest serial
port): tried first, the guest's HCI UART on qemu's 16550 stopped carrying commands after the
controller's set-up (the first command after an idle minute, LE Add Device To Accept List, never
reached Bumble, with flow control and without: `Opcode 0x2011 failed: -110`), while /dev/vhci
carried everything at once. Python under TCG is slow to start (about 30 s to advertise), not to run.

What the guest root needs: bluez (btmgmt, bluetoothd), python3, and Bumble under /opt/bumble,
which `install(ROOT)` puts there from a wheel cache keyed by Bumble's version under
$CAIRN_CACHE/bumble. By hand, on a root image with those (see DECISION.md for the run):

    python3 deploy/board/ble_check.py --root ROOT.img --kdir $CAIRN_CACHE/board/amd64 --run DIR
"""
import argparse, base64, json, os, re, subprocess, sys, time

BUMBLE_VERSION = "0.0.236"
HERE = os.path.dirname(os.path.abspath(__file__))
SENSORS = {"hr": "F0:CA:12:00:00:01", "csc": "F0:CA:12:00:00:02", "power": "F0:CA:12:00:00:03"}


class BleFail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise BleFail("ble: " + msg)


def install(root, machine="x86_64"):
    """Bumble into a guest root, under /opt/bumble (Debian 12's python3.11, as the host's pip
    downloads for; the wheels cached by version and machine). make-root.sh calls it."""
    wheels = os.path.join(os.environ.get("CAIRN_CACHE", "/var/cache/cairn"), "bumble",
                          "wheels-" + BUMBLE_VERSION + ("" if machine == "x86_64" else "-" + machine))
    platforms = ["--platform", "manylinux_2_28_" + machine, "--platform", "manylinux2014_" + machine]
    if not os.path.exists(os.path.join(wheels, "ok")):
        os.makedirs(wheels, exist_ok=True)
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", wheels, "--only-binary=:all:",
                            "--python-version", "3.11"] + platforms + ["bumble==" + BUMBLE_VERSION], capture_output=True, text=True)
        check(r.returncode == 0, "pip download bumble==%s failed:\n%s" % (BUMBLE_VERSION, r.stdout + r.stderr))
        open(os.path.join(wheels, "ok"), "w").close()
    # --target with another machine's wheels: pip checks the tags against the host unless told.
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels, "--target",
                        os.path.join(root, "opt/bumble"), "--only-binary=:all:", "--python-version", "3.11"] + platforms
                       + ["bumble==" + BUMBLE_VERSION], capture_output=True, text=True)
    check(r.returncode == 0, "pip install of bumble into the guest root failed:\n%s" % (r.stdout + r.stderr))


def push_sensors(g):
    """The sensors' script into the booted guest's /opt (not in the cached root: an edit to it
    does not remake the root)."""
    b64 = base64.b64encode(open(os.path.join(HERE, "ble_sensors.py"), "rb").read()).decode()
    g.run("echo %s | base64 -d >/opt/ble_sensors.py" % b64, timeout=60)


def launch_sensors(g, args):
    """hci_vhci loaded and the virtual sensors started (board-bumble), not waited for."""
    push_sensors(g)
    g.run("modprobe hci_vhci && systemd-run -q --unit board-bumble env PYTHONPATH=/opt/bumble"
          " python3 /opt/ble_sensors.py vhci " + args, timeout=60)


def wait_adapter(g, timeout=200):
    """The guest's adapter, once bluetoothd has powered it (Python under TCG takes about 30 s
    to advertise)."""
    # hciconfig's UP RUNNING: the kernel's HCI_UP, which outlasts the 2 s auto-off of an adapter
    # nobody claimed only once bluetoothd has powered it. (A `btmgmt info | grep powered` here
    # never matched in the guest, and the loop's last command, a `tail`, hid that: 150 s lost.)
    rc, out = g.run("end=$((SECONDS + %d)); while [ $SECONDS -lt $end ]; do hciconfig hci0 2>/dev/null"
                    " | grep -q 'UP RUNNING' && exit 0; sleep 1; done; hciconfig -a; timeout 10 btmgmt --index 0 info;"
                    " journalctl -u board-bumble -u bluetooth --no-pager | tail -20; exit 1" % (timeout - 50), timeout=timeout, check=False)
    check(rc == 0, "the adapter on /dev/vhci did not come up powered (Bumble, bluetoothd):\n" + out)


def start_sensors(g, args, timeout=200):
    launch_sensors(g, args)
    wait_adapter(g, timeout)


def scenario(g, run, say, results, seconds=50):
    """On a booted guest `g` whose root has what `install` puts there: the whole check."""
    t0 = time.monotonic()
    start_sensors(g, "--for %d" % (seconds + 200))
    bluetoothd = g.run("systemctl is-active bluetooth", check=False)[1].strip()
    # The scan: as root every sensor with its services; as the service's user, what it needs.
    rc, scan = g.run("cairn sensors --for 10", timeout=60, check=False)
    open(os.path.join(run, "ble-scan.txt"), "w").write(scan)
    check(rc == 0, "cairn sensors (the scan, as root) exit %d:\n%s" % (rc, scan))
    for k, want in (("hr", "heart rate, battery"), ("csc", "speed and cadence"), ("power", "power")):
        check(re.search(r"^%s  random .*%s$" % (SENSORS[k], want), scan, re.M), "the scan did not list %s with %s:\n%s" % (SENSORS[k], want, scan))
    rc, out = g.run("runuser -u cairn -- cairn sensors --for 2", timeout=60, check=False)
    check(rc == 1 and "CAP_NET_ADMIN" in out, "the scan as the cairn user: exit %d: %s" % (rc, out))
    watch = " ".join("--watch '%s random'" % a if k != "power" else "--watch %s" % a for k, a in SENSORS.items())
    rc, out = g.run("runuser -u cairn -- cairn sensors %s --for %d" % (watch, seconds), timeout=seconds + 60, check=False)
    open(os.path.join(run, "ble-watch.txt"), "w").write(out)
    _, journal = g.run("systemctl stop board-bumble; journalctl -u board-bumble --no-pager -o cat", timeout=60, check=False)
    open(os.path.join(run, "ble-sensors.jsonl"), "w").write(journal)
    events = [json.loads(l) for l in journal.splitlines() if l.startswith("{")]
    check(rc == 0, "cairn sensors --watch exit %d:\n%s" % (rc, out[-3000:]))
    lines = out.splitlines()

    def values(addr, what):
        return [l for l in lines if re.match(r"^\d+\.\d{3} %s %s: " % (addr, what), l)]

    hr, csc, pw = values(SENSORS["hr"], "heart rate"), values(SENSORS["csc"], "speed and cadence"), values(SENSORS["power"], "power")
    batt = values(SENSORS["hr"], "battery")
    sent = {}
    for e in events:
        for k in ("hr", "csc", "power"):
            if e.get("event") == "sent" and e.get("sensor") == k:
                sent[k] = e["count"]
    results.update(ble_bluetoothd=bluetoothd, ble_received={"hr": len(hr), "csc": len(csc), "power": len(pw), "battery": len(batt)})
    for k, got in (("hr", hr), ("csc", csc), ("power", pw)):
        check(got, "no %s value arrived:\n%s" % (k, out[-3000:]))
    check(any(re.search(r" \d+ bpm rr 781 ms$", l) for l in hr), "no heart rate with its RR interval: %s" % hr[:3])
    check(batt and batt[0].endswith(" 87 %"), "the battery level was not read: %s" % batt)
    # Rollovers: the wheel's 32 bits and the crank's 16 pass zero, and the event times' 16.
    check(any(" wheel 4294967294 revs" in l for l in csc) and any(re.search(r" wheel [0-9] revs", l) for l in csc),
          "the wheel counter's rollover did not come through: %s" % csc[:8])
    check(any(" crank 65535 revs" in l for l in csc) and any(re.search(r" crank [0-9] revs", l) for l in csc),
          "the crank counter's rollover did not come through: %s" % csc[:20])
    check(all(" 250 W" in l for l in pw), "power values: %s" % pw[:3])
    # The flood: 300 notifications at once, all taken.
    check(len(csc) >= 300, "speed and cadence: %d values, the flood of 300 not taken" % len(csc))
    # Garbage: the value its flags do not match is said undecodable; the unknown ATT PDU counted and said.
    check(any("undecodable" in l for l in csc), "the garbage notification was not said undecodable")
    odd = re.search(r"; (\d+) odd PDUs", out)
    check(odd and int(odd.group(1)) >= 1, "the unknown ATT PDU was not counted: %s" % lines[-1:])
    check(any("sensor %s sent a PDU cairn does not take" % SENSORS["csc"] in l for l in lines), "the unknown ATT PDU was not said")
    # Lost and back: one message for the outage, connected again.
    said_hr = [l for l in lines if l.startswith("sensor %s " % SENSORS["hr"])]
    check(len([l for l in said_hr if " connected: " in l]) >= 2 and len([l for l in said_hr if " lost: " in l]) == 1,
          "the heart-rate sensor's drop-out and return: %s" % said_hr)
    check(any(e.get("event") == "back" for e in events), "Bumble's heart-rate sensor never came back: %s" % events[-5:])
    results["ble_seconds"] = round(time.monotonic() - t0, 1)
    say("ble: bluetoothd %s; scan as root listed the three, as cairn refused (CAP_NET_ADMIN); heart rate %d values (lost once, back), speed and cadence %d (rollovers, a flood of 300,"
        " garbage said), power %d indications (confirmed), battery %s; %d odd PDUs; %.0f s"
        % (bluetoothd, len(hr), len(csc), len(pw), batt[0].split(": ")[-1], int(odd.group(1)), results["ble_seconds"]))


def main():
    sys.path.insert(0, HERE)
    from guest import Guest
    ap = argparse.ArgumentParser(description="one guest booted for the Bluetooth check alone")
    ap.add_argument("--install", metavar="ROOTDIR", help="only install Bumble into a root tree (make-root.sh)")
    ap.add_argument("--machine", default="x86_64", help="the root's machine for --install: x86_64 or aarch64")
    ap.add_argument("--root", help="a raw root image with bluez, python3, /opt/bumble (install)")
    ap.add_argument("--kdir")
    ap.add_argument("--run")
    a = ap.parse_args()
    if a.install:
        try:
            install(a.install, a.machine)
        except BleFail as e:
            sys.exit(str(e))
        return
    if not (a.root and a.kdir and a.run):
        ap.error("--root, --kdir and --run are needed for the check")
    os.makedirs(a.run, exist_ok=True)
    logs = os.path.join(a.run, "logs.img")
    with open(logs, "wb") as f:
        f.truncate(64 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-L", "cairnlogs", logs], check=True)
    root = os.path.join(a.run, "root.qcow2")
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-b", os.path.abspath(a.root), "-F", "raw", root], check=True)
    g = Guest("amd64", a.kdir, a.run, root, logs, "ble", smp=2)
    results = {}
    try:
        g.start()
        scenario(g, a.run, lambda s: print("board: " + s, flush=True), results)
    finally:
        g.kill()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
