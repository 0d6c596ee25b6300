"""What the benchmarks read from /proc about a recorder: shared by peer-bench.sh and paced-ab.py."""
import glob


def cpu_ns(pid):
    """User + system run time of every live thread of pid, in ns (/proc/PID/schedstat is the
    leader thread only)."""
    total = 0
    for p in glob.glob("/proc/%d/task/*/schedstat" % int(pid)):
        try:
            total += int(open(p).read().split()[0])
        except (OSError, IndexError):
            pass
    return total


def watching(port):
    """Server-side ESTABLISHED connections to a local TCP port: the clients gpsd has accepted."""
    c = 0
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in open(name).readlines()[1:]:
                f = line.split()
                if int(f[1].rsplit(":", 1)[1], 16) == int(port) and f[3] == "01":
                    c += 1
        except OSError:
            pass
    return c
