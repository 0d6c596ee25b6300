#!/usr/bin/env python3
"""D1: syscall audit of `cairn record` under strace.

    audit.py --bin CAIRN [--seconds 65] [--sync 5] [--json OUT]

A fake gpsd sends one fix a second in real time; the recorder runs `--sync S` under
`strace -f`; then it is stopped with SIGTERM. Reported: fdatasync per minute (expected 60/S),
bytes written per fdatasync, renames/truncates/unlinks of log files (must be 0), fsyncs of the
log directory per new log file (must be 1), the lock file's fsync and its directory's at the
start (must be 1 each), and any fdatasync or write on a descriptor after an
fdatasync on it failed (must be 0). Exit 1 if a must-be-0 figure is not.

The writer keeps zeros ahead of its data (preallocation) and trims them when it closes a file:
one ftruncate to exactly where its data ends, after which only an fdatasync may touch that
descriptor. Such a trim is counted apart ("close_trims"); any other truncate, or a trim that
cuts into data, counts as a must-be-0 truncate.

Where the file system takes O_DIRECT, the writer opens each log twice: the O_EXCL descriptor
(header, zeros, fdatasync, the trim) and an O_DIRECT one for data, written in whole 512-byte
sectors. Files are therefore followed by path, not descriptor; a direct write's data ends
somewhere in its last sector (strace shows only the first bytes), so a trim is exact when it
falls in that sector and after every byte written through the page cache."""
import argparse, json, os, re, signal, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seconds", type=float, default=65)
    ap.add_argument("--sync", type=int, default=5)
    ap.add_argument("--json")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="cairn-audit-")
    logs = os.path.join(tmp, "logs")
    trace = os.path.join(tmp, "trace.txt")
    fake = subprocess.Popen([sys.executable, os.path.join(ROOT, "Tests/tools/fake-gpsd.py"), "--ride", "--rate", "1"],
                            stdout=subprocess.PIPE, text=True)
    port = int(fake.stdout.readline().split()[1])
    rec = subprocess.Popen(["strace", "-f", "-tt", "-o", trace, "-e",
                            "trace=openat,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2,ftruncate,truncate,fallocate,unlink,unlinkat",
                            a.bin, "record", "--gpsd", "127.0.0.1:%d" % port, "--dir", logs, "--clock", "fix",
                            "--sync", str(a.sync), "--baro", "none"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           # LeakSanitizer cannot run under ptrace (an ASan build would exit 1).
                           env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0"))
    time.sleep(a.seconds)
    # SIGTERM the recorder itself (strace would only detach).
    kids = []
    for task in os.listdir("/proc/%d/task" % rec.pid):
        with open("/proc/%d/task/%s/children" % (rec.pid, task)) as f:
            kids += [int(k) for k in f.read().split()]
    for k in kids:
        os.kill(k, signal.SIGTERM)
    rec.wait(20)
    fake.terminate()
    fake.wait()
    fds = {}          # fd -> path (log files and the log directory)
    direct = set()    # fds opened with O_DIRECT
    failed = set()    # paths whose fdatasync failed
    syncs, sync_times, dir_fsyncs, new_files = 0, [], 0, 0
    bytes_since, bytes_per_sync = 0, []
    bad_after_fail, renames = 0, 0
    data_end = {}     # path -> end of the furthest write of data (not zeros) through the page cache
    direct_end = {}   # path -> end of the furthest direct write (a sector boundary)
    trimmed = set()   # paths trimmed at close: nothing but fdatasync may follow
    trims, zero_bytes, direct_writes, direct_opens = 0, 0, 0, 0
    # The lock file is synced once at the start, then its directory: counted apart from the
    # directory syncs that make new log files durable.
    lock_fsyncs, lock_dir_fsyncs, lock_synced = 0, 0, False
    for line in open(trace):
        m = re.match(r"\d+\s+(\d+):(\d+):([\d.]+) (\w+)\((.*)\)\s+= (-?\d+)", line)
        if not m:
            continue
        h, mi, s, call, args, ret = m.groups()
        t = int(h) * 3600 + int(mi) * 60 + float(s)
        ret = int(ret)
        if call == "openat":
            path = re.search(r'"([^"]*)"', args).group(1)
            if ret >= 0 and (path.endswith(".cairn") or path.endswith("/.cairn.lock") or path.rstrip("/") == logs):
                fds[ret] = path
                direct.discard(ret)
                if path.endswith(".cairn") and "O_CREAT" in args:
                    new_files += 1
                if path.endswith(".cairn") and "O_DIRECT" in args:
                    direct.add(ret)
                    direct_opens += 1
            continue
        if call in ("rename", "renameat", "renameat2", "truncate", "unlink", "unlinkat") and ".cairn" in args:
            renames += 1
            continue
        fd = int(args.split(",")[0]) if args[:1].isdigit() else -1
        if fd not in fds:
            continue
        path = fds[fd]
        if path.endswith("/.cairn.lock"):
            if call == "fsync":
                lock_fsyncs += 1
                lock_synced = ret == 0
            continue
        if path in failed and call in ("write", "fdatasync", "fsync", "pwrite64"):
            bad_after_fail += 1
        if path in trimmed and call != "fdatasync":
            renames += 1  # written or truncated again after its close-time trim
        if call == "ftruncate":
            size = int(args.split(",")[1])
            buffered, d = data_end.get(path, -1), direct_end.get(path, -1)
            exact = size == buffered if d <= buffered else (d - 512 < size <= d and size >= buffered)
            if path not in trimmed and path.endswith(".cairn") and ret == 0 and exact:
                trims += 1
                trimmed.add(path)
            else:
                renames += 1
        elif call == "fallocate":
            renames += 1
        elif call in ("write", "pwrite64") and ret > 0:
            # strace shows the first 32 bytes: a run of zeros is preallocation, not data.
            shown = re.match(r'\s*\d+, "((?:[^"\\]|\\.)*)"', args)
            if shown and re.fullmatch(r'(\\0)+', shown.group(1)):
                zero_bytes += ret
                continue
            offset = int(args.rsplit(",", 1)[1]) if call == "pwrite64" else data_end.get(path, 0)
            if fd in direct:
                direct_writes += 1
                direct_end[path] = max(direct_end.get(path, 0), offset + ret)
            else:
                data_end[path] = max(data_end.get(path, 0), offset + ret)
            bytes_since += ret
        elif call == "fdatasync":
            if ret != 0:
                failed.add(path)
            elif path.endswith(".cairn"):
                syncs += 1
                sync_times.append(t)
                bytes_per_sync.append(bytes_since)
                bytes_since = 0
        elif call == "fsync" and not path.endswith(".cairn"):
            if lock_synced:
                lock_dir_fsyncs += 1
                lock_synced = False
            else:
                dir_fsyncs += 1
    # Cadence: the intervals between the syncs after the header's and before the one at stop.
    gaps = sorted(b - a for a, b in zip(sync_times[1:-1], sync_times[2:-1]))
    data_syncs = bytes_per_sync[1:]  # the first is the header
    res = {
        "seconds": a.seconds, "sync_s": a.sync, "fdatasyncs": syncs,
        "fdatasync_per_min": round(60 / gaps[len(gaps) // 2], 2) if gaps else None,
        "sync_interval_median_s": round(gaps[len(gaps) // 2], 3) if gaps else None,
        "sync_interval_max_s": round(gaps[-1], 3) if gaps else None,
        "expected_per_min": 60 / a.sync,
        "bytes_per_fdatasync_mean": round(sum(data_syncs) / len(data_syncs), 1) if data_syncs else 0,
        "new_log_files": new_files, "dir_fsyncs": dir_fsyncs,
        "lock_fsyncs": lock_fsyncs, "lock_dir_fsyncs": lock_dir_fsyncs,
        "renames_truncates_unlinks_on_logs": renames, "io_after_failed_fdatasync": bad_after_fail,
        "close_trims": trims, "zero_bytes_written": zero_bytes,
        "direct_opens": direct_opens, "direct_writes": direct_writes,
        "recorder_exit": rec.returncode, "trace": trace,
    }
    print(json.dumps(res, indent=1))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    ok = (renames == 0 and bad_after_fail == 0 and dir_fsyncs == new_files and rec.returncode == 0
          and lock_fsyncs == 1 and lock_dir_fsyncs == 1)
    print("audit: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
