#!/usr/bin/env python3
"""diff.py BASE NEW [--corpus DIR] [--only REGEX] [--skip REGEX] [--list] [--findings FILE --label NAME]

Runs two cairn binaries over the same inputs and compares everything a user sees: exit codes,
stdout bytes, stderr (the sandbox path and gpsd's port masked), every file left in the sandbox
(names, modes, bytes), the logs a recording writes (normalised by common.norm_log: salt, CRCs,
record cuts and arrival lags aside), `list`/`verify` of them and the status file. Prints one line
per case (SAME or DIFF with what differs) and a summary; exit 1 when anything differs.
The corpus (corpus.py) is made with BASE on first use and kept in --corpus."""
import argparse, fcntl, json, os, re, shutil, signal, stat, subprocess, sys, time
from common import (KEY, ROOT, env_for, first_diff, fresh, lines_diff, mask_bytes, norm_log_dir, record, rmtree,
                    run, tree, tree_diff, cairnlog, Gps)

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = ["gpx", "fit", "geojson", "kml", "csv"]
ACTIVITIES = ["ride", "run", "walk", "drive"]


class Case:
    """steps: list of argv (without the binary; "@SB@" is the sandbox) run in one sandbox, or a
    callable step(bin, sb) -> (rc, out, err). setup(sb, bin) fills the sandbox; teardown(sb)."""

    def __init__(self, name, steps, inputs=(), setup=None, teardown=None, prefix=(), files=None, stdout_to=None,
                 mask=(), skip_tree=(), loose=False, opaque=()):
        self.name, self.steps, self.inputs = name, steps, inputs
        self.setup, self.teardown, self.prefix = setup, teardown, prefix
        self.stdout_to, self.mask, self.skip_tree, self.loose = stdout_to, mask, skip_tree, loose
        self.opaque = opaque  # base names of files whose bytes are random (a new key): size only
        self.locks = False  # the command takes a directory lock (export, prune, record): see SYNC_SHIFT


def put(sb, rel, data, mode=0o644):
    p = os.path.join(sb, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    os.chmod(p, mode)


def make_sandbox(case, corpus, binp):
    sb = fresh("rd-sb-")
    os.makedirs(sb + "/home")
    put(sb, "key", KEY, 0o600)
    for i, name in enumerate(case.inputs):
        dest = sb + ("/in" if i == 0 else "/in%d" % (i + 1))
        shutil.copytree(os.path.join(corpus, name), dest, ignore=shutil.ignore_patterns(".cairn.lock"))
    if case.setup:
        case.setup(sb, binp)
    return sb


def run_case(case, binp, corpus):
    sb = make_sandbox(case, corpus, binp)
    res = []
    try:
        for st in case.steps:
            if callable(st):
                rc, out, err = st(binp, sb)
            else:
                pre = shifted(case.prefix, binp) if case.locks else list(case.prefix)
                argv = pre + [binp] + [a.replace("@SB@", sb) if isinstance(a, str) else a for a in st]
                if case.stdout_to:
                    with open(case.stdout_to, "wb") as so:
                        p = subprocess.run(argv, cwd=sb + "/home", env=env_for(sb), stdout=so, stderr=subprocess.PIPE,
                                           stdin=subprocess.DEVNULL, timeout=120)
                    rc, out, err = p.returncode, b"", p.stderr
                else:
                    rc, out, err, _ = run(argv, sb + "/home", env_for(sb))
            res.append((rc, mask_bytes(out, sb, case.mask), mask_bytes(err, sb, case.mask)))
        t = tree(sb, skip=("home/.cache",) + tuple(case.skip_tree), content_mask=lambda rel, d: content_mask(rel, d, sb, case))
    finally:
        if case.teardown:
            case.teardown(sb)
        rmtree(sb)
    return res, t


def content_mask(rel, data, sb, case):
    # The cells index keys each log by its inode and times (a copy's differ): its size and name
    # are compared, not those bytes.
    if any(os.path.basename(rel).startswith(o) for o in case.opaque):
        # a key's size is fixed; what a random key cut out of a conversion is not
        return b"random bytes: %d" % len(data) if "key" in rel else b"depends on a random key"
    if os.path.basename(rel).startswith(".cairn-cells"):
        return b"a cells index"
    if os.path.basename(rel) in (".cairn-export.lock", ".cairn.lock") and re.fullmatch(rb"\d+\n?", data):
        return b"@PID@\n"  # the holder's pid
    return mask_bytes(data, sb, case.mask)


def compare(case, a, b):
    (ra, ta), (rb, tb) = a, b
    diffs = []
    for i, (x, y) in enumerate(zip(ra, rb)):
        tag = "step %d" % (i + 1) if len(ra) > 1 else ""
        if x[0] != y[0]:
            diffs.append("%s exit BASE %s NEW %s" % (tag, x[0], y[0]))
        if x[1] != y[1]:
            diffs.append("%s stdout %s" % (tag, first_diff(x[1], y[1])))
        if x[2] != y[2]:
            diffs.append("%s stderr BASE %r | NEW %r" % (tag, x[2][-600:], y[2][-600:]))
    diffs += ["tree " + d for d in tree_diff(ta, tb)]
    return diffs


# ---------------------------------------------------------------------------------------------
# The cases


def first_point(corpus, name):
    d = os.path.join(corpus, name)
    for n in sorted(os.listdir(d)):
        if n.endswith(".cairn"):
            try:
                for seq, typ, pts in cairnlog.LogFile(os.path.join(d, n)).records():
                    if pts:
                        p = pts[len(pts) // 2]
                        return p["lat"] / 1e7, p["lon"] / 1e7
            except cairnlog.Bad:
                pass
    return 47.3769, 8.5417


def conf(text):
    return lambda sb, b: put(sb, "cairn.conf", text)


def read_cases(corpus, dirs):
    cs = []
    for d in dirs:
        cs += [
            Case("list %s" % d, [["list", "@SB@/in"]], [d]),
            Case("list --json %s" % d, [["list", "@SB@/in", "--json"]], [d]),
            Case("verify %s" % d, [["verify", "@SB@/in"]], [d]),
            Case("info %s" % d, [["info", "@SB@/in"], ["info", "@SB@/in", "--json"]], [d]),
            Case("info --why %s" % d, [["info", "@SB@/in", "--why"]], [d]),
            Case("info id %s" % d, [["info", "1", "--dir", "@SB@/in"], ["info", "2", "--dir", "@SB@/in", "--json"]], [d]),
            Case("cells %s" % d, [["cells", "@SB@/in"], ["cells", "@SB@/in", "--to", "geojson", "--precision", "6"],
                                   ["cells", "@SB@/in", "--precision", "5", "-o", "@SB@/cells.txt"]], [d]),
            Case("render %s" % d, [["render", "@SB@/in", "-o", "@SB@/r.svg"], ["render", "@SB@/in", "--trip", "1", "-o", "-"],
                                    ["render", "1", "--dir", "@SB@/in", "--cells", "-o", "@SB@/c.svg"]], [d]),
        ]
        for f in FORMATS:
            out = "@SB@/out" + ("" if f == "fit" else "." + f)
            cs.append(Case("convert %s %s" % (f, d), [["convert", "@SB@/in", "--to", f, "-o", out]], [d]))
    return cs


def option_cases(corpus, dirs):
    cs = []
    for d in dirs:
        lat, lon = first_point(corpus, d)
        z = "%.6f,%.6f,%d" % (lat, lon, 300)
        zfar = "%.6f,%.6f,%d" % (lat + 0.3, lon, 500)
        opts = [
            ["--smooth"], ["--fill-gaps"], ["--smooth", "--fill-gaps"], ["--refilter"],
            ["--refilter", "--close-after", "5"], ["--refilter", "--close-after", "1440"],
            ["--refilter", "--smooth", "--fill-gaps"],
            ["--laps", "1km"], ["--laps", "5mi"], ["--laps", "none"], ["--laps", "pause"], ["--laps", "10km"],
            ["--privacy-zone", z, "--privacy-key", "@SB@/key"],
            ["--privacy-zone", z, "--privacy-zone", zfar, "--privacy-key", "@SB@/key", "--smooth", "--laps", "1km"],
            ["--trip", "1"], ["--trip", "2"], ["--trip", "99"],
        ] + [["--refilter", "--activity", a] for a in ACTIVITIES]
        for o in opts:
            for f in ("gpx", "csv", "fit"):
                out = "@SB@/out" + ("" if f == "fit" else "." + f)
                cs.append(Case("convert %s %s %s" % (f, " ".join(o).replace("@SB@/", ""), d),
                               [["convert", "@SB@/in", "--to", f, "-o", out] + o], [d]))
        for f in ("gpx", "csv"):
            cs.append(Case("convert %s --raw %s" % (f, d), [["convert", "@SB@/in", "--to", f, "--raw", "-o", "-"]], [d]))
        for f in ("geojson", "kml"):
            for o in (["--speed-bands", "auto"], ["--speed-bands", "12,24,36"], ["--smooth", "--fill-gaps", "--laps", "1km"],
                      ["--privacy-zone", z, "--privacy-key", "@SB@/key", "--speed-bands", "auto"]):
                cs.append(Case("convert %s %s %s" % (f, " ".join(o).replace("@SB@/", ""), d),
                               [["convert", "@SB@/in", "--to", f, "-o", "-"] + o], [d]))
        cs += [
            Case("convert fit --utc-offset %s" % d, [["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/f", "--utc-offset", "-05:30"],
                                                      ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/g", "--utc-offset", "+00:00"]], [d]),
            Case("convert fit one file %s" % d, [["convert", "@SB@/in", "--to", "fit", "--trip", "1", "-o", "@SB@/one.fit"]], [d]),
            Case("convert zones from config %s" % d, [["convert", "@SB@/in", "--to", "gpx", "-o", "-", "--config", "@SB@/cairn.conf",
                                                        "--privacy-key", "@SB@/key"]], [d],
                 setup=conf("# zones\nprivacy-zone = %s\nactivity = walk\nsync = 2\n" % z)),
            Case("convert zones key beside input %s" % d, [["convert", "@SB@/in", "--to", "csv", "-o", "-", "--privacy-zone", z]], [d],
                 setup=lambda sb, b: put(sb, "in/privacy-key", KEY, 0o600)),
            # a zone off the track: where a new random key puts its cut must not decide what is written
            Case("convert zones key made %s" % d, [["convert", "@SB@/in", "--to", "csv", "-o", "@SB@/o.csv", "--privacy-zone", zfar]], [d],
                 mask=((rb"left out \d+ points? in \d+ stretch(es)?", b"left out @N@"),), opaque=("privacy-key",),
                 skip_tree=("o.csv",)),
            Case("info zones %s" % d, [["info", "@SB@/in", "--privacy-zone", z, "--privacy-key", "@SB@/key"],
                                        ["info", "1", "--dir", "@SB@/in", "--json", "--privacy-zone", z, "--privacy-key", "@SB@/key"]], [d]),
            Case("cells zones %s" % d, [["cells", "@SB@/in", "--privacy-zone", z, "--privacy-key", "@SB@/key"]], [d]),
            Case("render zones %s" % d, [["render", "1", "--dir", "@SB@/in", "-o", "-", "--privacy-zone", z, "--privacy-key", "@SB@/key",
                                          "--speed-bands", "12,24,36"]], [d]),
            Case("convert exists %s" % d, [["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/o.gpx"],
                                           ["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/o.gpx"],
                                           ["convert", "@SB@/in", "--to", "csv", "-o", "@SB@/o.gpx", "--force"]], [d],
                 setup=lambda sb, b: put(sb, "o.gpx", "old\n", 0o640)),
            Case("convert fit exists %s" % d, [["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/f"],
                                               ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/f"],
                                               ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/f", "--force", "--laps", "1km"]], [d]),
            Case("list fuel %s" % d, [["list", "@SB@/in", "--config", "@SB@/cairn.conf"],
                                      ["list", "@SB@/in", "--json", "--config", "@SB@/cairn.conf"],
                                      ["info", "1", "--dir", "@SB@/in", "--config", "@SB@/cairn.conf"]], [d],
                 setup=conf("fuel_l_per_100km = 6.5\nfuel_price = 1.85\n")),
        ]
    return cs


def multi_cases():
    cs = []
    for f in FORMATS:
        out = "@SB@/out" + ("" if f == "fit" else "." + f)
        cs.append(Case("two copies convert %s" % f, [["convert", "@SB@/in", "@SB@/in2", "--to", f, "-o", out],
                                                     ["convert", "@SB@/in", "@SB@/in2", "--to", f, "-o", "@SB@/t2" + f, "--trip", "2"]],
                       ["rec-ride", "rec-ride"]))
    cs += [
        Case("two copies list info", [["list", "@SB@/in", "@SB@/in2"], ["list", "@SB@/in", "@SB@/in2", "--json"],
                                      ["info", "@SB@/in"], ["verify", "@SB@/in", "@SB@/in2"], ["cells", "@SB@/in", "@SB@/in2"]],
             ["rec-ride", "rec-ride"]),
        Case("two copies in one dir", [["list", "@SB@/in"], ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/f"],
                                       ["export", "--dir", "@SB@/in", "--to", "@SB@/stick", "--format", "fit,gpx"],
                                       ["prune", "--dir", "@SB@/in", "--keep-days", "1"]], ["rec-ride"],
             setup=lambda sb, b: shutil.copy(sb + "/in/00000001.cairn", sb + "/in/00000007.cairn")),
        Case("files as inputs", [["list", "@SB@/in/00000002.cairn", "@SB@/in/00000001.cairn"],
                                 ["convert", "@SB@/in/00000002.cairn", "--to", "csv", "-o", "-"],
                                 ["info", "@SB@/in/00000002.cairn", "--why"]], ["rec-ride"]),
        Case("fit one file, several trips", [["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/x.fit"]], ["rec-ride"]),
        Case("fit dir is a file", [["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/key"]], ["rec-ride"]),
        Case("formats edge", [["export", "--dir", "@SB@/in", "--to", "@SB@/s1", "--format", ",gpx"],
                              ["export", "--dir", "@SB@/in", "--to", "@SB@/s2", "--format", "gpx,"],
                              ["export", "--dir", "@SB@/in", "--to", "@SB@/s3", "--format", "csv,gpx,csv"],
                              ["export", "--dir", "@SB@/in", "--to", "@SB@/s4", "--format", " gpx"],
                              ["export", "--dir", "@SB@/in", "--to", "@SB@/s5", "--format", "none", "--logs", "no"]], ["rec-ride"]),
        Case("mixed dirs", [["convert", "@SB@/in", "@SB@/in2", "@SB@/in3", "--to", "fit", "-o", "@SB@/f", "--smooth", "--fill-gaps"],
                            ["list", "@SB@/in", "@SB@/in2", "@SB@/in3", "--json"],
                            ["convert", "@SB@/in", "@SB@/in2", "@SB@/in3", "--to", "geojson", "-o", "-", "--speed-bands", "auto"],
                            ["convert", "@SB@/in", "@SB@/in2", "@SB@/in3", "--to", "csv", "-o", "-", "--refilter", "--close-after", "5"]],
             ["act-hike", "act-drive_xe9", "rec-drive"]),
        Case("info why json", [["info", "@SB@/in", "--why", "--json"], ["info", "1", "--dir", "@SB@/in", "--why", "--privacy-zone",
                                                                         "47.3769,8.5417,300", "--privacy-key", "@SB@/key"]], ["rec-ride"]),
    ]
    return cs


def weird_dir(sb, b):
    """A log directory holding what a card collects: hidden and foreign files, a subdirectory,
    links (good and dangling), a directory and a FIFO under log names, an empty and a short log."""
    d = sb + "/in"
    put(sb, "in/.hidden.cairn", open(d + "/00000001.cairn", "rb").read())
    put(sb, "in/notes.txt", "hello\n")
    put(sb, "in/00000010.cairn", b"")
    put(sb, "in/00000011.cairn", b"CAIRNLOG\x02\x00")
    put(sb, "in/00000012.CAIRN", open(d + "/00000001.cairn", "rb").read())
    put(sb, "in/sub/00000001.cairn", open(d + "/00000002.cairn", "rb").read())
    os.mkdir(d + "/00000013.cairn")
    os.mkfifo(d + "/00000014.cairn")
    os.symlink("00000002.cairn", d + "/00000015.cairn")
    os.symlink("/nonexistent/x.cairn", d + "/00000016.cairn")
    os.symlink("../in2", d + "/linkdir")


def weird_cases():
    R = "@SB@/in"
    steps = [["list", R], ["list", R, "--json"], ["verify", R], ["info", R], ["info", "2", "--dir", R],
             ["convert", R, "--to", "gpx", "-o", "@SB@/o.gpx"], ["convert", R, "--to", "fit", "-o", "@SB@/fit"],
             ["cells", R], ["render", "1", "--dir", R, "-o", "@SB@/r.svg"],
             ["export", "--dir", R, "--to", "@SB@/stick", "--format", "csv"], ["prune", "--dir", R, "--keep-days", "1", "--dry-run"],
             ["prune", "--dir", R, "--max-mb", "0"], ["list", R + "/sub", R + "/00000015.cairn", R + "/linkdir"],
             ["verify", R + "/00000013.cairn"], ["verify", R + "/00000016.cairn"], ["list", R + "/00000011.cairn"]]
    cs = []
    for i, st in enumerate(steps):
        cs.append(Case("weird dir %d: %s" % (i, " ".join(st).replace("@SB@/", "")), [st], ["rec-ride", "rec-walk"], setup=weird_dir))
    return cs


STATUS_LIVE = '# cairn live status (cairn status FILE)\nstate=recording\ngpsd=connected\nfix=3d\naccuracy_m=1.0\nfix_age_s=0\nspeed_kmh=50.8\ntrip_file=/var/lib/cairn/00000001.cairn\ndistance_m=5649\nmoving_time_s=400\nascent_m=29\ndescent_m=0\npoints=401\nsegments=1\ndropped=-\nbaro=none\nsynced_seq=17\nsync_age_s=0\nupdated=2026-12-03T13:20:44Z\nseq=3\nrefresh_s=1\npid=10584\n'


def status_cases():
    """`cairn status` on files a recorder writes and on damaged ones; updated/pid made fresh,
    stale or gone when the case runs (both binaries run within the same seconds)."""
    def variant(fn):
        def setup(sb, b):
            now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            text = re.sub(r"updated=.*", "updated=" + now, STATUS_LIVE)
            text = re.sub(r"pid=\d+", "pid=%d" % os.getpid(), text)
            put(sb, "status", fn(text))
        return setup
    old = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    vs = {
        "fresh": lambda t: t, "stale": lambda t: re.sub(r"updated=.*", "updated=" + old, t),
        "pid gone": lambda t: re.sub(r"pid=\d+", "pid=4194303", t), "no pid line": lambda t: t[:t.index("pid=")],
        "stopped": lambda t: t.replace("state=recording", "state=stopped"),
        "waiting dashes": lambda t: re.sub(r"(speed_kmh|ascent_m|descent_m|accuracy_m|sync_age_s)=.*", r"\1=-", t).replace("state=recording", "state=waiting"),
        "crlf": lambda t: t.replace("\n", "\r\n"), "empty": lambda t: "", "garbage": lambda t: "\x00\xff garbage\n",
        "unknown key": lambda t: t.replace("baro=none", "baro=none\nfuture_key=1"), "missing field": lambda t: t.replace("gpsd=connected\n", ""),
        "bad numbers": lambda t: t.replace("distance_m=5649", "distance_m=1e99").replace("refresh_s=1", "refresh_s=0x10"),
        "huge": lambda t: t + "# " + "x" * 2_000_000 + "\n", "refresh 60": lambda t: t.replace("refresh_s=1", "refresh_s=60"),
        "no updated": lambda t: re.sub(r"updated=.*\n", "", t), "future": lambda t: re.sub(r"updated=.*", "updated=2099-01-01T00:00:00Z", t),
        "non-utf8 state": lambda t: t.replace("state=recording", "state=rec\udcffording"),
    }
    cs = []
    for name, fn in vs.items():
        def enc(fn=fn):
            return lambda t: fn(t).encode("utf-8", "surrogateescape")
        cs.append(Case("status " + name, [["status", "@SB@/status"], ["status", "@SB@/status", "--raw"]], setup=variant(enc()),
                       mask=((rb"updated: +\S+ ", b"updated: @T "), (rb"updated=[0-9TZ:-]+", b"updated=@T"))))
    return cs


def cells_cases():
    def add_log(b, sb):
        shutil.copy(sb + "/in2/00000001.cairn", sb + "/in/00000005.cairn")
        return 0, b"", b""

    def grow_log(b, sb):
        with open(sb + "/in/00000002.cairn", "ab") as f:
            f.write(b"\0" * 4096)
        return 0, b"", b""

    def drop_log(b, sb):
        os.unlink(sb + "/in/00000001.cairn")
        return 0, b"", b""

    def bad_index(b, sb):
        for n in os.listdir(sb + "/in"):
            if n.startswith(".cairn-cells"):
                with open(sb + "/in/" + n, "r+b") as f:
                    f.seek(30); f.write(b"\xff\xff\xff")
        return 0, b"", b""
    C = ["cells", "@SB@/in"]
    return [
        Case("cells incremental", [C, add_log, C, grow_log, C + ["--precision", "6"], drop_log, C, bad_index, C,
                                   C + ["--prefix", "9q9"], C + ["--prefix", "u0qj", "--to", "geojson"],
                                   ["render", "1", "--dir", "@SB@/in", "--cells", "--precision", "5", "-o", "-"]],
             ["rec-ride", "rec-walk"]),
        Case("cells zones incremental", [C + ["--privacy-zone", "47.3769,8.5417,300", "--privacy-key", "@SB@/key"], add_log,
                                         C + ["--privacy-zone", "47.3769,8.5417,300", "--privacy-key", "@SB@/key"], C],
             ["rec-ride", "rec-walk"]),
    ]


def help_cases():
    subs = ["record", "list", "info", "convert", "verify", "status", "export", "prune", "cells", "render"]
    cs = [Case("top", [[], ["--help"], ["-h"], ["--version"], ["help"], ["help", "nope"], ["nope"], ["help", "help"]])]
    for s in subs:
        cs.append(Case("help " + s, [["help", s], [s, "--help"], [s, "-h"], [s, "--help", "--nope"]]))
    return cs


BAD_NUMBERS = ["0x10", "1e1", "+5", "-1", "", " 5", "5 ", "05", "5.", ".5", "abc", "99999999999999999999", "nan", "\u0665"]


def bad_option_cases():
    R = "@SB@/in"
    bad = [
        ["list", R, "--nope"], ["list", R, "--json=1"], ["list", "@SB@/missing"], ["list", R, "--config"],
        ["verify"], ["verify", "@SB@/missing"], ["verify", R, "--json"],
        ["info"], ["info", "0", "--dir", R], ["info", "abc", "--dir", R], ["info", "99", "--dir", R], ["info", "1", "2"],
        ["info", "1", "--dir", R, "--privacy-zone", "47,8"], ["info", "1", "--dir", R, "--privacy-key", "@SB@/missing-key",
                                                             "--privacy-zone", "47,8,100"],
        ["convert", R], ["convert", "--to", "gpx"], ["convert", R, "--to", "xml"], ["convert", R, "--to", "GPX"],
        ["convert", R, "--to", "gpx", "--to", "csv", "-o", "-"],
        ["convert", R, "--to", "fit", "-o", "-"], ["convert", R, "--to", "gpx", "--raw", "--refilter", "-o", "-"],
        ["convert", R, "--to", "fit", "--raw", "-o", "@SB@/f"], ["convert", R, "--to", "kml", "--raw", "-o", "-"],
        ["convert", R, "--to", "gpx", "--activity", "walk", "-o", "-"], ["convert", R, "--to", "gpx", "--close-after", "5", "-o", "-"],
        ["convert", R, "--to", "gpx", "--refilter", "--activity", "jog", "-o", "-"],
        ["convert", R, "--to", "gpx", "--refilter", "--activity", "Walk", "-o", "-"],
        ["convert", R, "--to", "gpx", "--laps", "2km", "-o", "-"], ["convert", R, "--to", "gpx", "--laps", "", "-o", "-"],
        ["convert", R, "--to", "gpx", "--speed-bands", "auto", "-o", "-"], ["convert", R, "--to", "geojson", "--speed-bands", "30,20", "-o", "-"],
        ["convert", R, "--to", "geojson", "--speed-bands", "a,b", "-o", "-"], ["convert", R, "--to", "kml", "--speed-bands", "", "-o", "-"],
        ["convert", R, "--to", "fit", "--utc-offset", "2", "-o", "@SB@/f"], ["convert", R, "--to", "fit", "--utc-offset", "+25:00", "-o", "@SB@/f"],
        ["convert", R, "--to", "gpx", "--utc-offset", "+02:00", "-o", "-"],
        ["convert", R, "--to", "gpx", "--privacy-zone", "91,8,100", "-o", "-"], ["convert", R, "--to", "gpx", "--privacy-zone", "47,8,-1", "-o", "-"],
        ["convert", R, "--to", "gpx", "--privacy-zone", "47,8,0", "-o", "-"], ["convert", R, "--to", "gpx", "--privacy-zone", "x", "-o", "-"],
        ["convert", R, "--to", "gpx", "--config", "@SB@/missing.conf", "-o", "-"], ["convert", R, "--to", "gpx", "--config", "none", "-o", "-"],
        ["convert", R, "--to", "gpx", "--config", "@SB@", "-o", "-"],
        ["convert", R, "--to", "gpx", "--privacy-key", "@SB@/missing-key", "--privacy-zone", "47,8,100", "-o", "-"],
        ["convert", R, "--to", "gpx", "--privacy-key", "@SB@/cairn-short-key", "--privacy-zone", "47,8,100", "-o", "-"],
        ["convert", R, "--to", "gpx", "-o", "@SB@/nodir/x/o.gpx"], ["convert", R, "--to", "gpx", "-o", "@SB@"],
        ["convert", R, "--to", "gpx", "--trip", "0", "-o", "-"], ["convert", R, "--to", "gpx", "--trip", "x", "-o", "-"],
        ["convert", "@SB@/empty", "--to", "gpx", "-o", "@SB@/e.gpx"], ["convert", R, "--to", "gpx", "-o", "-", "--smooth=yes"],
        ["convert", R, "\xff"], ["convert", R, "--to", "gpx", "-o", "-", "--privacy-zone"],
        ["export"], ["export", "--dir", R], ["export", "--dir", R, "--to", R + "/sub"], ["export", "--dir", R, "--to", R],
        ["export", "--dir", R, "--to", "@SB@"], ["export", "--dir", R, "--to", "@SB@/no/such/stick"],
        ["export", "--dir", R, "--to", "@SB@/s", "--format", "xml"], ["export", "--dir", R, "--to", "@SB@/s", "--format", "gpx,,fit"],
        ["export", "--dir", R, "--to", "@SB@/s", "--format", ""], ["export", "--dir", R, "--to", "@SB@/s", "--format", "none,gpx"],
        ["export", "--dir", R, "--to", "@SB@/s", "--format", "gpx,gpx"], ["export", "--dir", R, "--to", "@SB@/s", "--logs", "maybe"],
        ["export", "--dir", R, "--to", "@SB@/s", "--laps", "3km"], ["export", "--dir", "@SB@/missing", "--to", "@SB@/s"],
        ["export", "--dir", R, "--to", "@SB@/s", "--format", "GPX"], ["export", "--dir", R, "--to", "@SB@/s", "--logs", "YES"],
        ["prune", "--dir", R], ["prune", "--dir", "@SB@/missing", "--keep-days", "1"], ["prune", "--dir", R, "--force"],
        ["prune", "--dir", R, "--dry-run"],
        ["status", "@SB@/missing"], ["status", "@SB@"], ["status", "@SB@/key"], ["status", "--raw", "@SB@/missing"],
        ["status", "a", "b"],
        ["cells", R, "--precision", "8"], ["cells", R, "--precision", "4"], ["cells", R, "--prefix", "u0qjXYZ"],
        ["cells", R, "--prefix", "ailo"], ["cells", R, "--prefix", "u0qjd1234"], ["cells", R, "--to", "kml"],
        ["cells", R, "-o", "@SB@/nodir/x"], ["cells", "@SB@/missing"],
        ["render"], ["render", "1", "--dir", R], ["render", R, "-o", "-", "--trip", "99"], ["render", R, "-o", "-", "--precision", "9"],
        ["render", R, "-o", "-", "--speed-bands", "1"], ["render", "x", "--dir", R, "-o", "-"],
        ["record", "--gpsd", "example.com", "--check"], ["record", "--gpsd", "1.2.3.4:0", "--check"],
        ["record", "--gpsd", "1.2.3.4:65536", "--check"], ["record", "--gpsd", "::1:2947", "--check"],
        ["record", "--gpsd", "[::1]", "--check"], ["record", "--gpsd", "[::1]:2947", "--check"], ["record", "--gpsd", "localhost:1", "--check"],
        ["record", "--gpsd", "", "--check"], ["record", "--activity", "jog", "--check"], ["record", "--clock", "gps", "--check"],
        ["record", "--raw", "yes", "--check"], ["record", "--baro", "@SB@/nobaro", "--check"], ["record", "--timezone", "Mars/Base", "--check"],
        ["record", "--timezone", "+14:30", "--check"], ["record", "--timezone", "UTC", "--check"],
        ["record", "--timezone", "Europe/Zurich", "--check"], ["record", "--timezone", "@SB@/key", "--check"],
        ["record", "--read-every", "6", "--check"], ["record", "--sync", "60", "--check"], ["record", "--sync", "7", "--check"],
        ["record", "--sync", "2", "--read-every", "3", "--check"], ["record", "--status", "@SB@/no/dir/status", "--check"],
        ["record", "--dir", "@SB@/key", "--check"], ["record", "--check", "--verbose", "--dir", "@SB@/d", "--keep-days", "3", "--max-mb", "10"],
        ["record", "--config", "@SB@/missing.conf", "--check"], ["record", "--config", "@SB@", "--check"],
        ["record", "--nope"], ["record", "extra"],
    ]
    for v in ("1KM", "01km", "1.0km", "1 km", "km", "-1km", "5MI", "pause,1km", "None", "0km"):
        bad.append(["convert", R, "--to", "csv", "--laps", v, "-o", "-"])
        bad.append(["export", "--dir", R, "--to", "@SB@/s", "--laps", v])
    for v in ("47,8,100,5", " 47,8,100", "47;8;100", "47,8", "47.0,8.0,1e3", "-91,8,100", "47,181,100", "47,8,100000000"):
        bad.append(["convert", R, "--to", "csv", "--privacy-zone", v, "--privacy-key", "@SB@/key", "-o", "-"])
        bad.append(["export", "--dir", R, "--to", "@SB@/s", "--privacy-zone", v, "--privacy-key", "@SB@/key"])
    for v in ("+2:00", "+02", "02:00", "-00:00", "+14:00", "+14:01", "-12:00", "-12:01", "Z", "UTC", "+02:60", "+0200"):
        bad.append(["convert", R, "--to", "fit", "--utc-offset", v, "-o", "@SB@/f"])
        bad.append(["record", "--timezone", v, "--check"])
    for v in ("10,10,20", "0,5", "5", "1,2,3,4,5,6,7,8,9,10,11", "10,20,", ",10", "10.5,20.25", "-5,10", "AUTO"):
        bad.append(["convert", R, "--to", "kml", "--speed-bands", v, "-o", "-"])
        bad.append(["render", "1", "--dir", R, "--speed-bands", v, "-o", "-"])
    for opt in ("--close-after", "--sync", "--read-every", "--keep-days", "--max-mb"):
        for v in BAD_NUMBERS + ["0", "1441", "5", "30"]:
            bad.append(["record", opt, v, "--check"])
    for v in BAD_NUMBERS + ["0", "4", "5", "1440", "1441", "30"]:
        bad.append(["convert", R, "--to", "gpx", "--refilter", "--close-after", v, "-o", "-"])
    for v in BAD_NUMBERS + ["0", "1"]:
        bad.append(["prune", "--dir", R, "--keep-days", v, "--dry-run"])
        bad.append(["prune", "--dir", R, "--max-mb", v, "--dry-run"])
        bad.append(["convert", R, "--to", "gpx", "--trip", v, "-o", "-"])
        bad.append(["info", v, "--dir", R])
        bad.append(["cells", R, "--precision", v])
        bad.append(["convert", R, "--to", "geojson", "--speed-bands", v, "-o", "-"])
        bad.append(["convert", R, "--to", "gpx", "--privacy-zone", "47.3,8.5," + v, "--privacy-key", "@SB@/key", "-o", "-"])
    cs = []

    def setup(sb, b):
        os.makedirs(sb + "/empty")
        put(sb, "cairn-short-key", b"short", 0o600)
    for i, a in enumerate(bad):
        cs.append(Case("bad %d: %s" % (i, " ".join(a).replace("@SB@/", "")), [a], ["rec-plain"], setup=setup))
    return cs


BAD_LINES = [
    "activity = jog", "sync = 0", "sync = 61", "sync = 1e1", "sync =", "sync=3", "= 5", "nonsense", "unknown-key = 1",
    "gpsd = host.example:2947", "gpsd = [::1]:99999", "privacy-zone = 91,0,100", "privacy-zone = 47,8",
    "privacy-zone = 47,8,-5", "keep-days = -1", "max-mb = 0", "close-after = 4", "close-after = +30", "read-every = 7",
    "timezone = Mars/Base", "timezone = +25:00", "raw = maybe", "baro = /nonexistent/baro", "fuel_l_per_100km = abc",
    "fuel_price = -1", "fuel_price = 1.5", "sync = 2\nsync = 3", "activity = ride\xff", "\tsync\t=\t2", "sync = 2\r",
    "# comment\n\n   \nactivity = walk", "dir =", "status = /nonexistent/dir/status", "verbose = yes", "verbose = no",
    "check = yes", "config = /etc/x", "help = 1", "--sync = 2", "SYNC = 2", "sync = 2 # comment", "activity = \"walk\"",
    "privacy-zone = 47.1,8.1,100\nprivacy-zone = 47.2,8.2,200", "clock = fix", "raw = off", "sysfs-root = /nonexistent",
    "fuel_l_per_100km = 7", "max-mb = 4000\nkeep-days = 60", "a" * 5000 + " = 1",
]


def config_cases():
    cs = []
    for i, line in enumerate(BAD_LINES):
        text = line.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff") + b"\n"
        steps = [["record", "--config", "@SB@/c.conf", "--check"],
                 ["record", "--config", "@SB@/c.conf", "--check", "--sync", "4", "--activity", "run"],
                 ["convert", "@SB@/in", "--to", "gpx", "-o", "-", "--config", "@SB@/c.conf", "--privacy-key", "@SB@/key", "--trip", "1"],
                 ["list", "@SB@/in", "--config", "@SB@/c.conf"],
                 ["info", "1", "--dir", "@SB@/in", "--config", "@SB@/c.conf", "--privacy-key", "@SB@/key"],
                 ["export", "--dir", "@SB@/in", "--to", "@SB@/stick", "--config", "@SB@/c.conf", "--privacy-key", "@SB@/key",
                  "--format", "csv"],
                 ["cells", "@SB@/in", "--config", "@SB@/c.conf", "--privacy-key", "@SB@/key"]]
        cs.append(Case("config %d: %r" % (i, line[:40]), steps, ["rec-plain"],
                       setup=(lambda t: lambda sb, b: put(sb, "c.conf", t))(text)))
    cs.append(Case("config too big", [["record", "--config", "@SB@/c.conf", "--check"]], [],
                   setup=lambda sb, b: put(sb, "c.conf", b"# x\n" * 300000)))

    def fifo(sb, b):
        os.mkfifo(sb + "/c.conf")
    cs.append(Case("config fifo", [["record", "--config", "@SB@/c.conf", "--check"],
                                   ["convert", "@SB@/in", "--to", "gpx", "-o", "-", "--config", "@SB@/c.conf"]], ["rec-plain"], setup=fifo))

    def unreadable(sb, b):
        put(sb, "c.conf", "sync = 2\n", 0o000)
    # root reads a 000 file anyway; kept for the message when it does not.
    cs.append(Case("config mode 000", [["record", "--config", "@SB@/c.conf", "--check"]], [], setup=unreadable))
    return cs


def export_cases():
    X = lambda *a: ["export", "--dir", "@SB@/in", "--to", "@SB@/stick"] + list(a)
    P = lambda *a: ["prune", "--dir", "@SB@/in"] + list(a)
    L = ["list", "@SB@/in"]
    zone = conf("privacy-zone = 47.3769,8.5417,300\n")
    cs = [
        Case("export twice, prune by age", [X(), X(), P("--keep-days", "1", "--dry-run"), P("--keep-days", "1"), L, X()], ["rec-ride"]),
        Case("export none, prune by size", [X("--format", "none"), P("--max-mb", "0", "--dry-run"), P("--max-mb", "0"), L], ["rec-ride"]),
        Case("export all formats laps", [X("--format", "gpx,fit,geojson,kml,csv", "--laps", "1km"), P("--keep-days", "1")], ["rec-ride"]),
        Case("export several dirs", [X("--format", "kml,csv"), P("--keep-days", "1"), P("--max-mb", "0")], ["rec-hostile-time"]),
        Case("export zones no logs", [X("--config", "@SB@/cairn.conf", "--privacy-key", "@SB@/key"), P("--keep-days", "1"),
                                      X("--config", "@SB@/cairn.conf", "--privacy-key", "@SB@/key", "--logs", "yes"),
                                      P("--keep-days", "1", "--dry-run"), P("--max-mb", "0")], ["rec-ride"], setup=zone),
        Case("export zones key in dir", [X("--privacy-zone", "47.3769,8.5417,300"), P("--keep-days", "1")], ["rec-ride"],
             setup=lambda sb, b: put(sb, "in/privacy-key", KEY, 0o600)),
        Case("export logs no", [X("--logs", "no"), P("--keep-days", "1"), P("--keep-days", "1", "--force", "--dry-run")], ["rec-ride"]),
        Case("prune not exported", [P("--keep-days", "1"), P("--keep-days", "1", "--force", "--dry-run"), P("--max-mb", "0", "--force"), L],
             ["rec-ride"]),
        Case("prune keep-days large", [X(), P("--keep-days", "100000"), P("--max-mb", "100000")], ["rec-ride"]),
        Case("export name taken", [X(), L], ["rec-ride"], setup=lambda sb, b: put(sb, "stick/logs/00000001.cairn", "another file\n")),
        Case("export prefix copy", [X("--format", "none")], ["rec-ride"],
             setup=lambda sb, b: put(sb, "stick/logs/00000001.cairn", open(sb + "/in/00000001.cairn", "rb").read()[:100])),
        Case("export garbage state", [X(), P("--keep-days", "1")], ["rec-ride"], setup=lambda sb, b: put(sb, "in/exported", b"\x00garbage\nx y z\n")),
        Case("export old state format", [X(), P("--keep-days", "1")], ["rec-ride"],
             setup=lambda sb, b: put(sb, "in/exported", b"1\n2\n")),
        Case("export fit conversion", [X("--format", "fit", "--laps", "none"), X("--format", "fit")], ["rec-edge"]),
        Case("export walk drive", [X("--format", "gpx,csv")], ["rec-walk"]),
        Case("export hostile", [X("--format", "gpx,fit,geojson,kml,csv"), P("--keep-days", "1")], ["hostile-00"]),
        Case("export format1", [X(), P("--keep-days", "1")], ["fx-format1"]),
    ]

    def mixed_ages(sb, b):  # a 2033 trip (the Edge's week rollover) beside 2025 ones: the clock is behind it
        shutil.copy(sb + "/in2/00000001.cairn", sb + "/in/00000009.cairn")
    def padded(sb, b):  # 1.5 MB of zeros after the records (preallocated space) in the oldest file
        with open(sb + "/in/00000001.cairn", "ab") as f:
            f.write(b"\0" * 1_500_000)
    ages = [X("--format", "none")]
    for k in ("1", "549", "550", "551", "552", "100000"):
        ages.append(P("--keep-days", k, "--dry-run"))
    cs += [
        Case("export all inside a zone", [X("--format", "gpx,fit,csv", "--privacy-zone", "47.3769,8.5417,50000", "--privacy-key", "@SB@/key",
                                            "--logs", "yes"), P("--keep-days", "1", "--dry-run"),
                                          X("--format", "gpx,fit,csv", "--privacy-zone", "47.3769,8.5417,50000", "--privacy-key", "@SB@/key")],
             ["rec-ride"]),
        Case("export again other options", [X("--format", "gpx,fit", "--laps", "none"), X("--format", "gpx,fit", "--laps", "1km"),
                                            X("--format", "gpx,kml"), X("--format", "none", "--logs", "no")], ["rec-ride"]),
        Case("export conversion name taken", [X("--format", "gpx,fit")], ["rec-ride"],
             setup=lambda sb, b: [put(sb, "stick/gpx/20250601-080000-trip1.gpx", "mine\n"), os.makedirs(sb + "/stick/fit/20250601-080000-trip1.fit")]),
        Case("export stick is a file", [X()], ["rec-ride"], setup=lambda sb, b: put(sb, "stick", "a file\n")),
        Case("export zones default key made", [X("--privacy-zone", "47.3769,8.5417,300", "--format", "csv")], ["rec-ride"],
             opaque=("privacy-key",), mask=((rb"left out \d+ points? in \d+ stretch(es)?", b"left out @N@"),), skip_tree=("stick/csv",)),
        Case("key readable by others", [["convert", "@SB@/in", "--to", "csv", "-o", "-", "--privacy-zone", "47.3769,8.5417,300",
                                          "--privacy-key", "@SB@/k644"],
                                         X("--privacy-zone", "47.3769,8.5417,300", "--privacy-key", "@SB@/k644"),
                                         ["convert", "@SB@/in", "--to", "csv", "-o", "-", "--privacy-zone", "47.3769,8.5417,300",
                                          "--privacy-key", "@SB@/kdir"],
                                         ["convert", "@SB@/in", "--to", "csv", "-o", "-", "--privacy-zone", "47.3769,8.5417,300",
                                          "--privacy-key", "@SB@/klink"]], ["rec-ride"],
             setup=lambda sb, b: [put(sb, "k644", KEY, 0o644), os.makedirs(sb + "/kdir"), os.symlink("k644", sb + "/klink")]),
        Case("prune ages around now", ages + [P("--keep-days", "1"), L], ["rec-ride"]),
        Case("prune a future trip", [X("--format", "none"), P("--keep-days", "1", "--dry-run"), P("--keep-days", "1"),
                                      P("--max-mb", "0", "--dry-run"), L], ["rec-ride", "rec-edge"], setup=mixed_ages),
        Case("prune by size, padded", [X("--format", "none"), P("--max-mb", "2", "--dry-run"), P("--max-mb", "1", "--dry-run"),
                                        P("--max-mb", "1"), L], ["rec-ride"], setup=padded),
        Case("prune three trips by size", [X("--format", "csv"), P("--max-mb", "1", "--dry-run"), P("--max-mb", "0", "--dry-run"),
                                            P("--keep-days", "600", "--max-mb", "1")], ["rec-hostile-time"],
             setup=lambda sb, b: [padded(sb, b), open(sb + "/in/00000002.cairn", "ab").write(b"\0" * 900_000)]),
    ]

    def grow(b, sb):
        with open(sb + "/in/00000002.cairn", "ab") as f:
            f.write(b"\0" * 512)
        return 0, b"", b""
    cs.append(Case("export after a log grew", [X(), grow, X(), P("--keep-days", "1", "--dry-run")], ["rec-ride"]))

    def touch_newer(b, sb):
        with open(sb + "/in/00000001.cairn", "r+b") as f:
            f.seek(200); c = f.read(1); f.seek(200); f.write(bytes([c[0] ^ 0xFF]))
        return 0, b"", b""
    cs.append(Case("export after a log changed", [X(), touch_newer, X(), P("--keep-days", "1"), ["verify", "@SB@/stick/logs"]], ["rec-ride"]))
    return cs


def stdout_cases():
    cs = []
    for a in (["list", "@SB@/in"], ["list", "@SB@/in", "--json"], ["info", "@SB@/in"], ["verify", "@SB@/in"],
              ["convert", "@SB@/in", "--to", "gpx", "-o", "-"], ["convert", "@SB@/in", "--to", "csv"],
              ["cells", "@SB@/in"], ["render", "1", "--dir", "@SB@/in", "-o", "-"], ["record", "--check"], ["help", "convert"],
              ["status", "@SB@/status"]):
        cs.append(Case("dev/full " + a[0] + " " + " ".join(a[1:]).replace("@SB@/", ""), [a], ["rec-ride"], stdout_to="/dev/full",
                       setup=lambda sb, b: put(sb, "status", STATUS_SAMPLE)))
    return cs


STATUS_SAMPLE = None  # filled from a recording by status_sample()


# --- faults ------------------------------------------------------------------------------------


def tmpfs(opts):
    def setup(sb, b):
        os.makedirs(sb + "/mnt")
        subprocess.check_call(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", sb + "/mnt"])
        if "size=" in opts:
            try:
                with open(sb + "/mnt/filler", "wb") as f:
                    f.write(b"x" * (1 << 22))
            except OSError:
                pass
            os.makedirs(sb + "/mnt/d", exist_ok=True) if not opts.startswith("ro") else None
            with open(sb + "/mnt/filler", "r+b") as f:  # leave a few KB
                f.truncate(max(0, os.path.getsize(sb + "/mnt/filler") - 12 * 1024))
    return setup


def untmpfs(sb):
    subprocess.run(["umount", "-l", sb + "/mnt"], stderr=subprocess.DEVNULL)


def ro_setup(sb, b):
    os.makedirs(sb + "/mnt")
    subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", sb + "/mnt"])
    os.makedirs(sb + "/mnt/fit"); os.makedirs(sb + "/mnt/stick")
    put(sb, "mnt/old.gpx", "old\n")
    shutil.copytree(sb + "/in", sb + "/mnt/logs")
    subprocess.check_call(["mount", "-o", "remount,ro", sb + "/mnt"])


def dynamic(binp):
    """A dynamically linked binary: its loader's opens, closes and fstats come first and would
    shift strace's counts (the baseline is static)."""
    try:
        with open(binp, "rb") as f:
            return b"ld-linux" in f.read(4096)
    except OSError:
        return False


DYNAMIC = False
NEW_BIN = None
SYNC_SHIFT = 0  # --sync-shift: NEW makes this many more fsyncs first where it takes a directory lock


def shifted(argv, binp):
    """argv with an fsync-family fault's count moved by SYNC_SHIFT for the NEW binary."""
    if not SYNC_SHIFT or binp != NEW_BIN:
        return list(argv)
    out = []
    for a in argv:
        m = re.match(r"inject=(\S+):error=(\w+):when=(\d+)(\+?)$", a)
        calls = m.group(1).split(",") if m else []
        if "fsync" in calls:
            # strace counts each syscall on its own: only fsync's count moves (the lock's file and
            # directory); fdatasync and the rest keep theirs
            rest = [c for c in calls if c != "fsync"]
            out.append("inject=fsync:error=%s:when=%d%s" % (m.group(2), int(m.group(3)) + SYNC_SHIFT, m.group(4)))
            if rest:
                out += ["-e", "inject=%s:error=%s:when=%s%s" % (",".join(rest), m.group(2), m.group(3), m.group(4))]
            continue
        out.append(a)
    return out


def fault_cases():
    cmds = [
        ["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/mnt/o.gpx"],
        ["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/mnt/old.gpx", "--force"],
        ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/mnt/fit"],
        ["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/mnt/newfit"],
        ["export", "--dir", "@SB@/in", "--to", "@SB@/mnt/stick"],
        ["export", "--dir", "@SB@/mnt/logs", "--to", "@SB@/stick2"],
        ["prune", "--dir", "@SB@/mnt/logs", "--keep-days", "1", "--force"],
        ["cells", "@SB@/mnt/logs"],
        ["cells", "@SB@/in", "-o", "@SB@/mnt/cells.txt"],
        ["render", "1", "--dir", "@SB@/in", "-o", "@SB@/mnt/r.svg"],
        ["convert", "@SB@/mnt/logs", "--to", "csv", "-o", "-", "--privacy-zone", "47.3769,8.5417,300", "--privacy-key", "@SB@/key"],
        ["record", "--dir", "@SB@/mnt/newlogs", "--gpsd", "127.0.0.1:1", "--check"],
    ]
    cs = []
    for a in cmds:
        cs.append(Case("read-only fs: " + " ".join(a).replace("@SB@/", ""), [a], ["rec-ride"], setup=ro_setup, teardown=untmpfs))

    def full_setup(sb, b):
        os.makedirs(sb + "/mnt")
        subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", sb + "/mnt"])
        shutil.copytree(sb + "/in", sb + "/mnt/logs")
        os.makedirs(sb + "/mnt/fit"); os.makedirs(sb + "/mnt/stick")
        put(sb, "mnt/old.gpx", "old\n")
        try:
            with open(sb + "/mnt/filler", "wb") as f:
                while True:
                    f.write(b"x" * 4096); f.flush()
        except OSError:
            pass
    for a in cmds[:10]:
        cs.append(Case("full fs: " + " ".join(a).replace("@SB@/", ""), [a], ["rec-edge"], setup=full_setup, teardown=untmpfs))
    # syscall faults through strace: families, so a call renamed in the refactor (rename ->
    # renameat) meets the same fault.
    fams = {
        "sync": "fsync,fdatasync,syncfs,sync_file_range", "rename": "rename,renameat,renameat2",
        "open": "open,openat,creat,openat2", "unlink": "unlink,unlinkat,rmdir", "mkdir": "mkdir,mkdirat",
        "link": "link,linkat", "trunc": "ftruncate,truncate", "falloc": "fallocate", "getdents": "getdents64,getdents",
        "stat": "statfs,fstatfs", "pwrite": "pwrite64,pwritev,pwritev2", "fchmod": "fchmod,fchmodat,chmod", "flock": "flock,fcntl",
        "close": "close",
    }
    sys_cmds = [
        (["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/o.gpx"], "conv-gpx"),
        (["convert", "@SB@/in", "--to", "fit", "-o", "@SB@/fit"], "conv-fit"),
        (["convert", "@SB@/in", "--to", "gpx", "-o", "@SB@/old.gpx", "--force"], "conv-force"),
        (["export", "--dir", "@SB@/in", "--to", "@SB@/stick", "--format", "gpx"], "export"),
        (["prune", "--dir", "@SB@/in", "--keep-days", "1", "--force"], "prune"),
        (["cells", "@SB@/in", "-o", "@SB@/c.txt"], "cells"),
        (["render", "1", "--dir", "@SB@/in", "-o", "@SB@/r.svg"], "render"),
        (["list", "@SB@/in"], "list"),
        (["convert", "@SB@/in", "--to", "csv", "-o", "@SB@/o.csv", "--privacy-zone", "47.3769,8.5417,300"], "key-made"),
    ]
    for a, tag in sys_cmds:
        for fam, calls in fams.items():
            if DYNAMIC and fam in ("open", "close", "stat", "flock"):
                continue
            for err in ("EIO", "ENOSPC"):
                for when in ("1", "2", "1+"):
                    if err == "ENOSPC" and fam not in ("sync", "pwrite", "falloc", "mkdir", "open", "link", "rename"):
                        continue
                    pre = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + calls,
                           "-e", "inject=%s:error=%s:when=%s" % (calls, err, when)]
                    setup = (lambda sb, b: put(sb, "old.gpx", "old\n", 0o640)) if tag == "conv-force" else \
                        (lambda sb, b: subprocess.run([b, "export", "--dir", sb + "/in", "--to", sb + "/stick0"],
                                                      capture_output=True, env=env_for(sb))) if tag == "prune" else None
                    cs.append(Case("strace %s %s=%s when %s" % (tag, fam, err, when), [a], ["rec-ride"], prefix=pre, setup=setup,
                                   opaque=("privacy-key", ".o.csv.part") if tag == "key-made" else (),
                                   mask=((rb"left out \d+ points? in \d+ stretch(es)?", b"left out @N@"),), 
                                   skip_tree=("o.csv",) if tag == "key-made" else ()))
                    cs[-1].locks = tag == "export"
    return cs


# --- recordings --------------------------------------------------------------------------------


def status_mask(data):
    out = []
    for line in data.split(b"\n"):
        k = line.split(b"=", 1)[0]
        if k in (b"updated", b"pid", b"seq", b"fix_age_s", b"sync_age_s"):  # clocks and counters of writes
            line = k + b"=@"
        out.append(line)
    return b"\n".join(out)


def rec_step(src_name, extra, during=None, status=False, keep_raw_status=False):
    def step(binp, sb):
        corpus = step.corpus  # step.loose: set by the case
        kind, arg, rate = src_name
        arg = arg.replace("@CORPUS@", corpus).replace("@ROOT@", ROOT)
        ex = [e.replace("@SB@", sb) for e in extra]
        rc, err = record(binp, (kind, arg, rate), sb + "/logs", ex, env=env_for(sb), errpath=sb + "/rec.err",
                         during=(lambda p: during(p, sb)) if during else None)
        err = err.replace(b"\r", b"")
        os.unlink(sb + "/rec.err")
        out = []
        if step.loose:
            # where a fault cut the trip into files, and how many records waited, is timing: what
            # the trip holds in the end (every point and raw fix, across its files) is not
            pts, raws = [], []
            for n, lines in norm_log_dir(sb + "/logs").items():
                pts += [x for x in lines if x.startswith("  pt ")]
                raws += [x for x in lines if x.startswith("  raw ")]
            out += ["merged points %d" % len(pts)] + pts + ["merged raw fixes %d" % len(raws)] + raws
            err = re.sub(rb"\d+", b"@N", mask_bytes(err, sb))
            for n in list(os.listdir(sb + "/logs")) if os.path.isdir(sb + "/logs") else []:
                if n.endswith(".cairn"):
                    os.unlink(sb + "/logs/" + n)
            if os.path.exists(sb + "/status"):
                os.unlink(sb + "/status")
            return rc, "\n".join(out).encode(), err
        for n, lines in norm_log_dir(sb + "/logs").items():
            out.append("== %s" % n)
            out.extend(mask_bytes(x.encode(), sb).decode() for x in lines)
        for c in (["list", sb + "/logs"], ["list", sb + "/logs", "--json"], ["verify", sb + "/logs"],
                  ["info", sb + "/logs", "--why"]):
            r = run([binp] + c, sb, env_for(sb))
            out.append("$ %s -> %s" % (" ".join(c[:1] + c[2:]), r[0]))
            text = mask_bytes(r[1] + r[2], sb)
            if c[0] == "verify":  # how many records a recording cut its points into is timing
                text = re.sub(rb"\d+ records", b"@N records", text)
            out.append(text.decode("utf-8", "replace"))
        if os.path.exists(sb + "/logs"):
            out.append("files: %s" % sorted(os.listdir(sb + "/logs")))
            for n in os.listdir(sb + "/logs"):
                if n.endswith(".cairn"):  # compared above, normalised; the rest of the tree as is
                    os.unlink(sb + "/logs/" + n)
        if os.path.exists(sb + "/status"):
            out.append("status (mode %o): " % stat.S_IMODE(os.stat(sb + "/status").st_mode)
                       + status_mask(open(sb + "/status", "rb").read()).decode("utf-8", "replace"))
            os.unlink(sb + "/status")
        return rc, "\n".join(out).encode(), err
    return step


def rec_cases(corpus):
    inp = "@CORPUS@/inputs/"
    S = ["--status", "@SB@/status"]
    cs = []

    def R(name, src, extra=(), inputs=(), setup=None, during=None, teardown=None, loose=False):
        st = rec_step(src, list(extra), during)
        st.corpus, st.loose = corpus, loose
        cs.append(Case("record " + name, [st], inputs, setup=setup, teardown=teardown, loose=loose))
    R("plain", ("lines", inp + "plain", 300), S)
    R("garbage", ("lines", inp + "garbage", 300), S)
    R("hostile-time", ("lines", inp + "hostile-time", 300), S + ["--close-after", "5"], loose=True)
    R("plain raw off walk", ("lines", inp + "plain", 300), ["--raw", "off", "--activity", "walk", "--timezone", "-05:30"])
    R("plain read-every 0 sync 2 verbose", ("lines", inp + "plain", 300), ["--sync", "2", "--read-every", "0", "--verbose"] + S,
      loose=True)
    R("plain drive", ("lines", inp + "plain", 300), ["--activity", "drive", "--timezone", "Europe/Zurich"])
    R("ride nmea close-after 5", ("replay", inp + "ride.nmea", 600), ["--close-after", "5"] + S)
    R("spiky nmea", ("replay", inp + "spiky.nmea", 600), ["--close-after", "5"])
    R("edge810", ("replay", "@ROOT@/Tests/Fixtures/real/edge810.nmea", 1200), [])
    R("fake ride reconnects", ("ride-drop", "700", 300), S)
    for act in ACTIVITIES:
        R("rules stream " + act, ("lines", inp + "rules", 300), ["--close-after", "5", "--activity", act] + S)
    R("standing before the ride", ("lines", inp + "prestand", 400), ["--close-after", "5"] + S)
    R("standing before the ride, raw off", ("lines", inp + "prestand", 400), ["--close-after", "10", "--raw", "off"])
    G = "@ROOT@/Tests/Fixtures/gpsd/"
    R("gpsd zeus", ("replay", G + "bundg_zeus_9.log", 1000), ["--activity", "walk"])
    def baro(sb, b):
        put(sb, "iio/iio:device0/name", "bmp280\n")
        put(sb, "iio/iio:device0/in_pressure_input", "95.000000000\n")
        put(sb, "iio/iio:device0/in_temp_input", "23450\n")
        os.makedirs(sb + "/emptysys")
    R("barometer constant", ("lines", inp + "plain", 300), ["--baro", "@SB@/iio/iio:device0"] + S, setup=baro)
    R("barometer missing path", ("lines", inp + "plain", 300), ["--baro", "@SB@/nobaro"] + S, setup=baro)
    R("barometer auto none found", ("lines", inp + "plain", 300), ["--baro", "auto", "--sysfs-root", "@SB@/emptysys"] + S, setup=baro)
    R("pixel6 hike", ("replay", "@ROOT@/Tests/Fixtures/real/pixel6-walk.nmea", 200), ["--activity", "hike"])
    R("pixel6 walk", ("replay", "@ROOT@/Tests/Fixtures/real/pixel6-walk.nmea", 200), ["--activity", "walk"])
    R("dashcam drive", ("replay", "@ROOT@/Tests/Fixtures/real/dashcam-spb.nmea", 800), ["--activity", "drive"])
    R("into existing dir", ("lines", inp + "plain", 300), [], ["rec-ride"],
      setup=lambda sb, b: shutil.copytree(sb + "/in", sb + "/logs"))
    R("with config", ("lines", inp + "plain", 300), ["--config", "@SB@/c.conf"],
      setup=lambda sb, b: put(sb, "c.conf", "activity = run\nsync = 2\nclose-after = 10\nraw = on\nprivacy-zone = 47.1,8.1,100\n"))

    def exported(sb, b):
        shutil.copytree(sb + "/in", sb + "/logs")
        subprocess.run([b, "export", "--dir", sb + "/logs", "--to", sb + "/stick", "--format", "none"], capture_output=True,
                       env=env_for(sb))
    R("retention keep-days at start", ("lines", inp + "plain", 300), ["--keep-days", "1"], ["rec-ride"], setup=exported)
    R("retention max-mb at start", ("lines", inp + "plain", 300), ["--max-mb", "0"], ["rec-hostile-time"], setup=exported)
    R("retention after trip close", ("replay", inp + "ride.nmea", 600), ["--close-after", "5", "--max-mb", "0"], ["rec-hostile-time"],
      setup=exported)
    R("retention not exported", ("lines", inp + "plain", 300), ["--keep-days", "1", "--max-mb", "0"], ["rec-ride"],
      setup=lambda sb, b: shutil.copytree(sb + "/in", sb + "/logs"))

    def locked(sb, b):
        os.makedirs(sb + "/logs")
        fd = os.open(sb + "/logs/.cairn.lock", os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, b"4242\n")
        locked.fds[sb] = fd
    locked.fds = {}
    R("lock held", ("lines", inp + "plain", 300), [], setup=locked, teardown=lambda sb: os.close(locked.fds.pop(sb)))
    R("config missing", ("lines", inp + "plain", 300), ["--config", "@SB@/nope.conf"])
    R("dir is a file", ("lines", inp + "plain", 300), ["--dir", "@SB@/key"])
    R("status dir missing", ("lines", inp + "plain", 300), ["--status", "@SB@/no/status"])

    def rm_mid(p, sb):
        time.sleep(1.5); shutil.rmtree(sb + "/logs", ignore_errors=True)
    R("log dir removed mid-ride", ("lines", inp + "plain", 100), S, during=rm_mid, loose=True)

    def full_rec(sb, b):
        os.makedirs(sb + "/logs")
        subprocess.check_call(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", sb + "/logs"])
        with open(sb + "/logs/filler", "wb") as f:
            f.write(b"x" * (96 * 1024 - 16 * 1024))
    R("full card", ("lines", inp + "plain", 300), [], setup=full_rec,
      teardown=lambda sb: subprocess.run(["umount", "-l", sb + "/logs"]), loose=True)

    def ro_rec(sb, b):
        os.makedirs(sb + "/logs")
        subprocess.check_call(["mount", "-t", "tmpfs", "-o", "ro,size=96k", "tmpfs", sb + "/logs"])
    R("read-only dir", ("lines", inp + "plain", 300), [], setup=ro_rec,
      teardown=lambda sb: subprocess.run(["umount", "-l", sb + "/logs"]))
    for fam, calls, when in (("fsync EIO first", "fsync,fdatasync", "1"), ("fsync EIO from start", "fsync,fdatasync", "1+"),
                             ("fdatasync EIO", "fsync,fdatasync", "3"), ("fdatasync EIO all", "fsync,fdatasync", "3+"),
                             ("fallocate ENOSPC", "fallocate", "1+"), ("pwrite EIO", "pwrite64,pwritev", "2"),
                             ("rename EIO", "rename,renameat,renameat2", "1+"), ("openat EIO late", "openat", "6")):
        err = "ENOSPC" if "ENOSPC" in fam else "EIO"
        pre = ["strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + calls, "-e", "inject=%s:error=%s:when=%s" % (calls, err, when)]
        if DYNAMIC and "openat" in calls:
            continue
        st = rec_step(("lines", inp + "plain", 300), S, None)
        st.corpus, st.loose = corpus, True

        def wrapped(binp, sb, st=st, pre=pre):
            shim = sb + "/strace-cairn"
            put(sb, "strace-cairn", "#!/bin/sh\nexec %s \"$@\"\n" % " ".join(shifted(pre, binp) + [binp]), 0o755)
            r = st(shim, sb)
            os.unlink(shim)
            return r
        cs.append(Case("record strace " + fam, [wrapped], loose=True))
    # the same fault on the same file, whatever else either binary opens or syncs first (-P)
    for fam, path, calls, when, err in (("status.tmp create", "@SB@/status.tmp", "openat", "1", "EIO"),
                                        ("status rename", "@SB@/status.tmp", "rename,renameat,renameat2", "2", "EIO"),
                                        ("first log fdatasync", "@SB@/logs/00000001.cairn", "fdatasync,fsync", "2", "EIO"),
                                        ("first log every sync", "@SB@/logs/00000001.cairn", "fdatasync,fsync", "1+", "EIO"),
                                        ("log dir sync", "@SB@/logs", "fsync", "2+", "EIO"),
                                        ("first log pwrite", "@SB@/logs/00000001.cairn", "pwrite64,pwritev,write", "3", "ENOSPC")):
        st = rec_step(("lines", inp + "plain", 300), S, None)
        st.corpus, st.loose = corpus, True

        def wrapped(binp, sb, st=st, path=path, calls=calls, when=when, err=err):
            if SYNC_SHIFT and binp == NEW_BIN and path.endswith("/logs"):
                when = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), when)  # the lock's directory sync
            pre = ["strace", "-f", "-qq", "-o", "/dev/null", "-P", path.replace("@SB@", sb), "-e", "trace=" + calls,
                   "-e", "inject=%s:error=%s:when=%s" % (calls, err, when)]
            put(sb, "strace-cairn", "#!/bin/sh\nexec %s \"$@\"\n" % " ".join(pre + [binp]), 0o755)
            r = st(sb + "/strace-cairn", sb)
            os.unlink(sb + "/strace-cairn")
            return r
        cs.append(Case("record strace -P " + fam, [wrapped], loose=True))
    return cs


def status_sample():
    # what a finished recording leaves in --status, for `status` on a stopped recorder
    return ("state=stopped\n")


def all_cases(corpus):
    global STATUS_SAMPLE
    STATUS_SAMPLE = status_sample()
    dirs = sorted(n for n in os.listdir(corpus) if n.startswith(("rec-", "fx-", "hostile-", "act-")) and os.path.isdir(os.path.join(corpus, n)))
    main = [d for d in ("rec-ride", "rec-walk", "rec-drive", "rec-edge", "rec-hostile-time", "rec-rules", "rec-rules-walk",
                        "rec-gp320", "rec-telit", "rec-m9n", "rec-zeus") if d in dirs]
    main += [d for d in dirs if d.startswith("hostile-")][:2] + [d for d in dirs if d.startswith("act-")]
    return (help_cases() + cells_cases() + status_cases() + multi_cases() + weird_cases() + read_cases(corpus, dirs) + option_cases(corpus, main) + bad_option_cases() + config_cases()
            + export_cases() + stdout_cases() + rec_cases(corpus) + fault_cases())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base"); ap.add_argument("new")
    ap.add_argument("--corpus", default="/tmp/refactor-diff-corpus")
    ap.add_argument("--only"); ap.add_argument("--skip")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--findings"); ap.add_argument("--label", default="")
    ap.add_argument("--json")
    ap.add_argument("--sync-shift", type=int, default=0,
                    help="NEW fsyncs this many times more first where it takes a directory lock (export, prune, record)")
    a = ap.parse_args()
    base, new = os.path.abspath(a.base), os.path.abspath(a.new)
    if not os.path.isdir(a.corpus + "/rec-zeus"):
        subprocess.check_call(["python3", HERE + "/corpus.py", base, a.corpus])
    os.umask(0o022)
    global DYNAMIC, NEW_BIN, SYNC_SHIFT
    DYNAMIC = dynamic(base) or dynamic(new)
    NEW_BIN, SYNC_SHIFT = new, a.sync_shift
    if DYNAMIC:
        print("a dynamically linked binary: the open, close, stat and flock strace families are left out")
    cases = all_cases(a.corpus)
    if a.only:
        cases = [c for c in cases if re.search(a.only, c.name)]
    if a.skip:
        cases = [c for c in cases if not re.search(a.skip, c.name)]
    if a.list:
        for c in cases:
            print(c.name)
        print(len(cases), "cases")
        return 0
    ndiff, found, t0 = 0, [], time.monotonic()
    for c in cases:
        try:
            ra = run_case(c, base, a.corpus)
            rb = run_case(c, new, a.corpus)
            d = compare(c, ra, rb)
        except Exception as e:  # a harness failure is reported, never hidden
            d = ["HARNESS ERROR %r" % e]
        if d:
            ndiff += 1
            print("DIFF%s %s" % (" (loose)" if c.loose else "", c.name))
            for x in d:
                print("    " + x[:1500])
            found.append({"case": c.name, "loose": c.loose, "diffs": d})
            if a.findings:
                with open(a.findings, "a") as f:
                    f.write("\n### %s: %s%s\n" % (a.label or new, c.name, " (timing-dependent case)" if c.loose else ""))
                    f.write("- command: `%s`\n" % (" ; ".join(" ".join(s) if isinstance(s, list) else "record/step" for s in c.steps)))
                    for x in d:
                        f.write("- %s\n" % x[:1500].replace("\n", "\\n"))
        else:
            print("SAME %s" % c.name, flush=True)
        sys.stdout.flush()
    print("%d cases, %d differ (%.0f s)" % (len(cases), ndiff, time.monotonic() - t0))
    if a.json:
        json.dump(found, open(a.json, "w"), indent=1)
    return 1 if ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
