/* What a durable append costs in CPU when it follows a sleep, as cairn's do at real time (one
 * every 5 s), against the same append back to back (as in sync-cost.py and in a fast replay).
 *
 *     cc -O2 -o wake-cost Tests/bench/wake-cost.c && ./wake-cost DIR GAP_MS TRIALS [busy|direct]
 *
 * Each trial sleeps GAP_MS (or, with `busy`, spins on the clock for GAP_MS, so that the CPU never
 * idles and the caches stay warm while the file's time stamps still move on), then times, on the thread's own CPU clock (CLOCK_THREAD_CPUTIME_ID,
 * which the kernel brings up to date when it is read, unlike /proc/PID/schedstat):
 *   getppid    the cheapest system call: what waking up costs the first kernel entry;
 *   pwrite     45 bytes (one point, as cairn's record at real time) into a file already
 *              written with zeros (cairn's preallocated log);
 *   fdatasync  the data block and the device's cache flush.
 * With `direct`, the pwrite goes through an O_DIRECT descriptor: the 512-byte sectors that hold
 * the new bytes are written whole, from memory aligned for the device, straight to the device
 * (no page cache, one 512-byte write instead of a 4 KiB page), and fdatasync only flushes.
 * Prints the median and quartiles of each, in microseconds. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, long long *v, int n) {
    qsort(v, n, sizeof *v, cmp);
    printf("%-10s median %7.1f us   p25 %7.1f   p75 %7.1f\n", name, v[n / 2] / 1e3, v[n / 4] / 1e3, v[3 * n / 4] / 1e3);
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5 || (argc == 5 && strcmp(argv[4], "busy") != 0 && strcmp(argv[4], "direct") != 0)) {
        fprintf(stderr, "usage: %s DIR GAP_MS TRIALS [busy|direct]\n", argv[0]);
        return 2;
    }
    int gap_ms = atoi(argv[2]), n = atoi(argv[3]);
    int busy = argc == 5 && strcmp(argv[4], "busy") == 0, direct = argc == 5 && strcmp(argv[4], "direct") == 0;
    if (n < 4) { fprintf(stderr, "wake-cost: TRIALS must be at least 4\n"); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/wake-cost.tmp", argv[1]);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) { perror(path); return 1; }
    static char zeros[1 << 20];
    if (write(fd, zeros, sizeof zeros) != (ssize_t)sizeof zeros || fsync(fd) != 0) { perror(path); return 1; }
    int dfd = -1;
    void *sectors = NULL;
    if (direct) {
        dfd = open(path, O_RDWR | O_DIRECT);
        if (dfd < 0) { perror("open with O_DIRECT"); return 1; }
        if (posix_memalign(&sectors, 4096, 4096) != 0) { perror("posix_memalign"); return 1; }
        memset(sectors, 'x', 4096);
    }
    long long *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *c = calloc(n, sizeof *c), *t = calloc(n, sizeof *t);
    char rec[45];
    memset(rec, 'x', sizeof rec);
    struct timespec gap = { gap_ms / 1000, (gap_ms % 1000) * 1000000L };
    for (int i = 0; i < n; i++) {
        if (gap_ms > 0 && busy) {
            struct timespec s, e;
            clock_gettime(CLOCK_MONOTONIC, &s);
            do clock_gettime(CLOCK_MONOTONIC, &e);
            while ((e.tv_sec - s.tv_sec) * 1000 + (e.tv_nsec - s.tv_nsec) / 1000000 < gap_ms);
        } else if (gap_ms > 0) {
            nanosleep(&gap, NULL);
        }
        long long t0 = now_ns();
        (void)getppid();
        long long t1 = now_ns();
        if (direct) {
            off_t start = ((off_t)i * sizeof rec) & ~(off_t)511, end = ((off_t)(i + 1) * sizeof rec + 511) & ~(off_t)511;
            if (pwrite(dfd, sectors, end - start, start) != end - start) { perror("pwrite (O_DIRECT)"); return 1; }
        } else if (pwrite(fd, rec, sizeof rec, (off_t)i * sizeof rec) != (ssize_t)sizeof rec) {
            perror("pwrite");
            return 1;
        }
        long long t2 = now_ns();
        if (fdatasync(direct ? dfd : fd) != 0) { perror("fdatasync"); return 1; }
        long long t3 = now_ns();
        a[i] = t1 - t0; b[i] = t2 - t1; c[i] = t3 - t2; t[i] = t3 - t0;
    }
    close(fd);
    if (dfd >= 0) close(dfd);
    unlink(path);
    printf("after a %s of %d ms, %d trials%s:\n", busy ? "spin" : "sleep", gap_ms, n, direct ? ", O_DIRECT" : "");
    report("getppid", a, n);
    report("pwrite", b, n);
    report("fdatasync", c, n);
    report("all three", t, n);
    return 0;
}
