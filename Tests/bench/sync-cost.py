#!/usr/bin/env python3
"""What one durable append costs the recorder, by the file's shape: the next lever for cairn's
CPU at real time, where fdatasync is about half of it (perf, 2026-11-29).

    python3 Tests/bench/sync-cost.py [DIR] [--syncs N] [--rounds R]

Appends a 45-byte record (one point, as cairn writes it every 5 s) and fdatasyncs it, N times:
  append      the file grows with each record (cairn before its log was preallocated): the new
              size is metadata, so each fdatasync also writes the inode (ext4 without a journal)
              or commits the journal (ext4 with one, as on Raspberry Pi OS);
  prealloc    the same records overwrite a file already written with zeros (1 MiB, synced once),
              as cairn's writer now does: the size and the blocks do not change, so fdatasync
              writes the data block only.
Prints CPU time per sync (/proc/self/schedstat: user + system, ns) and voluntary context
switches per sync (each one a sleep and a wake-up). DIR defaults to the current directory; run it
on the file system that holds the logs."""
import argparse, os, resource, time

ap = argparse.ArgumentParser()
ap.add_argument("dir", nargs="?", default=".")
ap.add_argument("--syncs", type=int, default=1000)
ap.add_argument("--rounds", type=int, default=3)
a = ap.parse_args()


def cpu_ns():
    with open("/proc/self/schedstat") as f:
        return int(f.read().split()[0])


def run(kind):
    path = os.path.join(a.dir, "sync-cost-%s.tmp" % kind)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        if kind == "prealloc":
            os.write(fd, b"\0" * (1 << 20))
            os.fsync(fd)
        record, off = b"x" * 45, 0
        c0, r0, w0 = cpu_ns(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
        for _ in range(a.syncs):
            os.pwrite(fd, record, off)
            off += len(record)
            os.fdatasync(fd)
        c1, r1, w1 = cpu_ns(), resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    finally:
        os.close(fd)
        os.unlink(path)
    n = a.syncs
    print("| %s | %.1f µs | %.2f | %.1f µs |" % (kind, (c1 - c0) / 1e3 / n, (r1.ru_nvcsw - r0.ru_nvcsw) / n, (w1 - w0) * 1e6 / n))


print("| file | CPU per sync | voluntary switches per sync | wall per sync |")
print("|---|---:|---:|---:|")
for _ in range(a.rounds):
    run("append")
    run("prealloc")
