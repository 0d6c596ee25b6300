#!/usr/bin/env python3
"""Runs the fleet recipe (Tests/fleet/<engine>/load.sql, queries.sql) on DuckDB and PostGIS,
times it, and checks the answers against the generator's truth.

Usage: run.py --remote REMOTE [--generate BOARDS DAYS [--geojson]] [--engines duckdb,postgis] [--json OUT]

--generate writes a fleet into REMOTE first (generate.py) with its truth. Boards in REMOTE that
the generator did not write (a real cairn export, say) are answered too and reported under
`extra` in the JSON (their days and cells) for the caller to check; the generated boards'
answers must equal the truth: distance within 1e-8 relative (PostGIS's sphere is 3 cm smaller
than cairn's), moving time, cells and trips exactly. PostGIS: a private cluster (initdb) in a temporary folder, on a free port, run as a
user other than root (`nobody` when this runs as root), stopped at the end. Exit 1 on any
difference, naming it."""
import argparse, csv, io, json, os, pwd, shutil, socket, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
PG_BIN = "/usr/lib/postgresql/15/bin"


def named_queries(path):
    """The queries of a queries.sql: (name, text) in order, split at `-- name:` lines."""
    out, name, lines = [], None, []
    for line in open(path, encoding="utf-8"):
        if line.startswith("-- name:"):
            if name:
                out.append((name, "".join(lines).strip()))
            name, lines = line.split(":", 1)[1].strip(), []
        elif name:
            lines.append(line)
    if name:
        out.append((name, "".join(lines).strip()))
    return out


def run_duckdb(remote, truth):
    import duckdb
    con = duckdb.connect()
    con.execute("SET VARIABLE remote = ?", [remote])
    for k, v in truth["box"].items():
        con.execute("SET VARIABLE %s = %r" % (k, v))
    t0, c0 = time.monotonic(), time.process_time()
    con.execute(open(os.path.join(HERE, "duckdb", "load.sql"), encoding="utf-8").read())
    timing = {"load_s": time.monotonic() - t0, "load_cpu": time.process_time() - c0}
    answers = {}
    for name, sql in named_queries(os.path.join(HERE, "duckdb", "queries.sql")):
        t0, c0 = time.monotonic(), time.process_time()
        rows = con.execute(sql).fetchall()
        timing[name + "_s"] = time.monotonic() - t0
        timing[name + "_cpu"] = time.process_time() - c0
        answers[name] = [tuple(str(c) if not isinstance(c, (int, float)) else c for c in r) for r in rows]
    timing["points"] = con.execute("SELECT count(*) FROM points").fetchone()[0]
    return timing, answers


class Cluster:
    """A private PostgreSQL 15 + PostGIS cluster in a temporary folder, on a free port."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cairn-fleet-pg-")
        os.chmod(self.dir, 0o755)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        # PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody`.
        self.prefix = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
        self.data = os.path.join(self.dir, "data")
        self.sh([PG_BIN + "/initdb", "-D", self.data, "-U", "fleet", "-A", "trust", "-E", "UTF8", "--no-locale"])
        self.sh([PG_BIN + "/pg_ctl", "-D", self.data, "-l", os.path.join(self.dir, "log"), "-w", "-o",
                 "-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c shared_buffers=256MB -c work_mem=256MB "
                 "-c max_parallel_workers_per_gather=2 -c maintenance_work_mem=256MB" % (self.port, self.dir), "start"])

    def sh(self, args, **kw):
        r = subprocess.run(self.prefix + args, capture_output=True, text=True, cwd=self.dir, **kw)
        if r.returncode != 0:
            log = os.path.join(self.dir, "log")
            tail = open(log).read()[-2000:] if os.path.exists(log) else ""
            raise SystemExit("postgis: %s failed (%d): %s%s\n%s" % (args[0], r.returncode, r.stdout[-2000:], r.stderr[-2000:], tail))
        return r.stdout

    def psql(self, variables, sql):
        args = [PG_BIN + "/psql", "-X", "-q", "-h", self.dir, "-p", str(self.port), "-U", "fleet", "-d", "postgres",
                "-v", "ON_ERROR_STOP=1", "--csv"]
        for k, v in variables.items():
            args += ["-v", "%s=%s" % (k, v)]
        return self.sh(args + ["-f", "-"], input=sql)

    def cpu(self):
        """CPU seconds of the server: the postmaster's own, its exited children's and its
        living children's (a psql's backend may still be exiting when psql returns)."""
        pid = open(os.path.join(self.data, "postmaster.pid")).readline().strip()
        ticks = 0
        for p in os.listdir("/proc"):
            try:
                f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if p == pid:
                ticks += sum(int(v) for v in f[11:15])
            elif f[1] == pid:
                ticks += int(f[11]) + int(f[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self):
        subprocess.run(self.prefix + [PG_BIN + "/pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def run_postgis(remote, truth):
    cluster = Cluster()
    try:
        variables = {"remote": remote, "polygon": truth["polygon"], **{k: repr(v) for k, v in truth["box"].items()}}
        t0, c0 = time.monotonic(), cluster.cpu()
        # psql runs as the cluster's user, who may not read this folder: the SQL goes in on stdin.
        cluster.psql(variables, sql=open(os.path.join(HERE, "postgis", "load.sql"), encoding="utf-8").read())
        timing = {"load_s": time.monotonic() - t0, "load_cpu": cluster.cpu() - c0}
        answers = {}
        for name, sql in named_queries(os.path.join(HERE, "postgis", "queries.sql")):
            t0, c0 = time.monotonic(), cluster.cpu()
            text = cluster.psql(variables, sql=sql)
            timing[name + "_s"] = time.monotonic() - t0
            timing[name + "_cpu"] = cluster.cpu() - c0
            rows = list(csv.reader(io.StringIO(text)))[1:]
            answers[name] = [tuple(float(c) if i >= 2 or (name == "cells" and i == 1) else c for i, c in enumerate(r)) for r in rows]
        timing["points"] = int(cluster.psql({}, sql="SELECT count(*) FROM points").split()[1])
        return timing, answers
    finally:
        cluster.stop()


def check(engine, answers, truth):
    """The generated boards' answers against the truth; the other boards' answers, for the caller."""
    problems, extra = [], {"days": {}, "cells": []}
    days = {}
    for board, day, dist, moving in answers["days"]:
        if board in truth["days"] or board in truth["board_ids"]:
            days[(board, str(day))] = (float(dist), float(moving))
        else:
            extra["days"].setdefault(board, {})[str(day)] = {"distance_m": float(dist), "moving_s": float(moving)}
    want = {(b, d): (f["distance_m"], f["moving_s"]) for b, v in truth["days"].items() for d, f in v.items()}
    if set(days) != set(want):
        problems.append("days: board/days %s missing, %s extra" % (sorted(set(want) - set(days))[:5], sorted(set(days) - set(want))[:5]))
    for k in set(days) & set(want):
        (d, m), (wd, wm) = days[k], want[k]
        if abs(d - wd) > 1e-8 * wd + 1e-6 or m != wm:
            problems.append("days: %s/%s distance %r moving %r, truth %r %r" % (k[0], k[1], d, m, wd, wm))
    cells = {c for c, _ in answers["cells"]}
    truth_cells = set(truth["cells"])
    if not truth_cells <= cells:
        missing = sorted(truth_cells - cells)
        problems.append("cells: %d of the truth's %d missing, e.g. %s" % (len(missing), len(truth_cells), missing[:5]))
    extra["cells"] = sorted(cells - truth_cells)
    for name, key in (("box", "box_trips"), ("polygon", "polygon_trips")):
        if name not in answers:
            continue
        got = {"%s/%s" % (b, int(float(t))) for b, t in answers[name]}
        got_generated = {k for k in got if k.split("/")[0] in truth["board_ids"]}
        if got_generated != set(truth[key]):
            problems.append("%s: missing %s, extra %s" % (name, sorted(set(truth[key]) - got_generated)[:5], sorted(got_generated - set(truth[key]))[:5]))
        extra[name] = sorted(got - got_generated)
    return ["%s %s" % (engine, p) for p in problems[:20]], extra


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--remote", required=True)
    ap.add_argument("--generate", nargs=2, type=int, metavar=("BOARDS", "DAYS"))
    ap.add_argument("--geojson", action="store_true", help="--generate writes GeoJSON too")
    ap.add_argument("--truth", help="the generator's truth (default: REMOTE/../fleet-truth.json)")
    ap.add_argument("--engines", default="duckdb,postgis")
    ap.add_argument("--json", help="write the timings and the other boards' answers here")
    a = ap.parse_args()
    remote = os.path.abspath(a.remote)
    truth_path = a.truth or os.path.join(os.path.dirname(remote), "fleet-truth.json")
    if a.generate:
        t0 = time.monotonic()
        subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), remote, "--boards", str(a.generate[0]),
                        "--days", str(a.generate[1]), "--truth", truth_path] + (["--geojson"] if a.geojson else []), check=True)
        print("generate: %.1f s" % (time.monotonic() - t0), file=sys.stderr)
    truth = json.load(open(truth_path, encoding="utf-8"))
    truth["board_ids"] = set(truth["days"]) | {k.split("/")[0] for k in truth["box_trips"] + truth["polygon_trips"]}
    # A board that rode no day still has its folder: the generator's boards are its folders then.
    truth["board_ids"] |= set(truth.get("board_names", []))
    # The server reads the files as its own user (`nobody` under root): the fleet's folders and
    # files must be readable by others, and the folders above it passable (never changed here).
    if os.geteuid() == 0 and "postgis" in a.engines.split(","):
        for root, dirs, files in os.walk(remote):
            os.chmod(root, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        if subprocess.run(["runuser", "-u", "nobody", "--", "test", "-r", remote, "-a", "-x", remote]).returncode != 0:
            sys.exit("run.py: the PostGIS server runs as nobody and cannot reach %s: a folder above it is closed to others" % remote)
    report, problems = {"points": truth["points"], "trips": truth["trips"], "boards": truth["boards"]}, []
    for engine in a.engines.split(","):
        timing, answers = {"duckdb": run_duckdb, "postgis": run_postgis}[engine](remote, truth)
        p, extra = check(engine, answers, truth)
        problems += p
        report[engine] = {"timing": timing, "extra": extra, "cells": len(answers["cells"]),
                          "box_trips": len(answers["box"]), "polygon_trips": len(answers.get("polygon", []))}
        print("%s: %d points loaded in %.2f s (%.2f s CPU); queries (wall, CPU): %s; %d cells, %d trips in the box%s" % (
            engine, timing["points"], timing["load_s"], timing["load_cpu"],
            ", ".join("%s %.2f s %.2f s" % (k[:-2], v, timing[k[:-2] + "_cpu"]) for k, v in timing.items()
                      if k.endswith("_s") and k != "load_s"),
            len(answers["cells"]), len(answers["box"]),
            ", %d meet the polygon" % len(answers["polygon"]) if "polygon" in answers else ""), file=sys.stderr)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    for p in problems:
        print("MISMATCH " + p, file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
