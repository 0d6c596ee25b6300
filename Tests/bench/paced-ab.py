#!/usr/bin/env python3
"""Several cairn binaries and gpxlogger side by side at real time, on one replay.

    python3 Tests/bench/paced-ab.py [--minutes M] [--runs K] [--apart] [--fake-baro NAME ...] NAME=BINARY [...]

The CPU of a recorder at real time is mostly system calls (fdatasync, poll, recv), and on a shared
virtual machine their cost moves by ±15 % from one 10-minute run to the next (peer-bench's paced
ratio read 0.57-0.73x over six runs of much the same code). Recorders that watch the same private
gpsd at the same time see the same machine, so comparing them inside one run is steadier than
comparing runs. Each run replays a fresh M-minute ride (Tests/tools/make-ride.py, 1 Hz) through
Tests/tools/gpsd-replay.py to every binary (`cairn record --baro none --clock fix`, defaults
otherwise) and to `gpxlogger`, then prints, per recorder, the CPU (user + system from
/proc/PID/task/*/schedstat) and voluntary context switches from the moment all are watching to
the end of the ride, and the ratio to gpxlogger's CPU. Last, the median ratio over the runs.

Recorders that sync at the same moments share the device's flushes, and which of them pays for
a flush depends on their phase: with several cairn binaries in one replay, one of them read
21.9 ms in one run and 35.5 ms in the next. --apart gives each binary its own replay (with its
own gpxlogger), one after the other, which removes that interplay and costs a ride per binary.

--fake-baro NAME gives recorder NAME a barometer: `--baro DIR` for a fake IIO device that this
script makes (a bmp280 with the kernel's file names and formats: in_pressure_input in kPa), in
place of `--baro none`. The same binary may be named twice, once with and once without.

--extra NAME="ARGS" appends ARGS (split on spaces) to recorder NAME's command line, e.g. the loss
window: `--apart --extra s15="--sync 15" s5=BIN s15=BIN` (Tests/bench/sync-window-results.md)."""
import argparse, glob, os, shutil, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from procfs import cpu_ns, watching  # Tests/bench/procfs.py, next to this file


def vcsw(pid):
    n = 0
    for p in glob.glob("/proc/%d/task/*/status" % pid):
        for line in open(p):
            if line.startswith("voluntary_ctxt_switches:"):
                n += int(line.split()[1])
    return n


def fake_barometer(work):
    """A fake IIO pressure sensor as the kernel's bmp280 driver lays it out."""
    d = os.path.join(work, "sys/bus/iio/devices/iio:device0")
    os.makedirs(d, exist_ok=True)
    for name, value in (("name", "bmp280\n"), ("in_pressure_input", "100.123456789\n"), ("in_temp_input", "23450\n")):
        with open(os.path.join(d, name), "w") as f:
            f.write(value)
    return d


def one_run(k, minutes, bins, work, baro, extra):
    d = os.path.join(work, "run%d-%s" % (k, bins[0][0]))
    os.makedirs(d)
    ride = os.path.join(d, "ride.nmea")
    subprocess.run([sys.executable, os.path.join(ROOT, "Tests/tools/make-ride.py"), str(minutes / 60), ride],
                   check=True, stdout=subprocess.DEVNULL)
    n = len(bins) + 1
    rep = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/tools/gpsd-replay.py"), ride, "--port", "0",
                            "--rate", "3", "--clients", str(n), "--wait-client", "60", "--linger", "3600"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = None
    while port is None:
        line = rep.stdout.readline()
        if not line:
            sys.exit("paced-ab: gpsd-replay did not come up")
        if line.startswith("READY"):
            port = int(line.split()[1])
    procs = {}
    # Start in a different order each run: recorders that start together sync together, and the
    # device may favour the first.
    r = (k - 1) % len(bins)
    for name, b in bins[r:] + bins[:r]:
        procs[name] = subprocess.Popen([b, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", os.path.join(d, name),
                                        "--baro", baro.get(name, "none"), "--clock", "fix"] + extra.get(name, []),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs["gpxlogger"] = subprocess.Popen(["gpxlogger", "-f", os.path.join(d, "gpxl.gpx"), "127.0.0.1:%d" % port],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 30
    while watching(port) < n and time.monotonic() < end:
        time.sleep(0.05)
    if watching(port) < n:
        sys.exit("paced-ab: not every recorder connected")
    time.sleep(0.6)
    s0 = {r: (cpu_ns(p.pid), vcsw(p.pid)) for r, p in procs.items()}
    for line in rep.stdout:
        if line.startswith("DONE"):
            break
    time.sleep(6)  # the last batch (5 s) and its sync
    s1 = {r: (cpu_ns(p.pid), vcsw(p.pid)) for r, p in procs.items()}
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
    for p in procs.values():
        p.wait(30)
    rep.terminate()
    rep.wait()
    cpu = {r: (s1[r][0] - s0[r][0]) / 1e6 for r in procs}
    sw = {r: s1[r][1] - s0[r][1] for r in procs}
    return cpu, sw


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--apart", action="store_true", help="one replay per binary, one after the other")
    ap.add_argument("--fake-baro", action="append", default=[], metavar="NAME",
                    help="recorder NAME reads a fake IIO barometer (default: --baro none)")
    ap.add_argument("--extra", action="append", default=[], metavar='NAME="ARGS"',
                    help="more arguments for recorder NAME's `cairn record`")
    ap.add_argument("bins", nargs="+", metavar="NAME=BINARY")
    a = ap.parse_args()
    bins = []
    for s in a.bins:
        name, _, b = s.partition("=")
        if not b or not os.access(b, os.X_OK):
            sys.exit("paced-ab: %s: expected NAME=BINARY with an executable BINARY" % s)
        bins.append((name, os.path.abspath(b)))
    extra = {}
    for s in a.extra:
        name, _, args = s.partition("=")
        extra[name] = args.split()
    unknown = (set(a.fake_baro) | set(extra)) - {n for n, _ in bins}
    if unknown:
        sys.exit("paced-ab: --fake-baro/--extra %s: no recorder of that name" % ", ".join(sorted(unknown)))
    if len({n for n, _ in bins}) != len(bins):
        sys.exit("paced-ab: recorder names must differ")
    if not shutil.which("gpxlogger"):
        sys.exit("paced-ab: gpxlogger is not installed (bash Tests/tools/install-deps.sh)")
    work = tempfile.mkdtemp(prefix="paced-ab-")
    baro = {n: fake_barometer(work) for n in a.fake_baro}
    ratios = {n: [] for n, _ in bins}
    try:
        print("| run | recorder | CPU | voluntary switches | ÷ gpxlogger CPU |")
        print("|---:|---|---:|---:|---:|")
        for k in range(1, a.runs + 1):
            for group in ([[b] for b in bins] if a.apart else [bins]):
                cpu, sw = one_run(k, a.minutes, group, work, baro, extra)
                for r in [n for n, _ in group] + ["gpxlogger"]:
                    q = cpu[r] / cpu["gpxlogger"]
                    if r != "gpxlogger":
                        ratios[r].append(q)
                    print("| %d | %s | %.1f ms | %d | %.2f× |" % (k, r, cpu[r], sw[r], q), flush=True)
        print()
        for n, _ in bins:
            print("%s: median %.2f× of gpxlogger's CPU over %d run(s) of %g min (%s)" % (
                n, statistics.median(ratios[n]), a.runs, a.minutes, ", ".join("%.2f×" % q for q in ratios[n])))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
