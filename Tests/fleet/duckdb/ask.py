#!/usr/bin/env python3
"""The fleet's questions in DuckDB, printed: loads REMOTE/<board>/csv/*.csv (load.sql), then runs
each query of queries.sql.

Usage: ask.py REMOTE [--box SOUTH,WEST,NORTH,EAST] [--db FILE]

--db keeps the loaded tables in a DuckDB file (default: in memory). Needs `pip install duckdb`."""
import argparse, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("remote")
    ap.add_argument("--box", default="51.330,12.355,51.348,12.392", help="south,west,north,east in degrees")
    ap.add_argument("--db", default=":memory:")
    a = ap.parse_args()
    try:
        box = [float(v) for v in a.box.split(",")]
        if len(box) != 4:
            raise ValueError
    except ValueError:
        sys.exit("ask.py: --box must be SOUTH,WEST,NORTH,EAST in degrees, not %r" % a.box)
    if not os.path.isdir(a.remote):
        sys.exit("ask.py: %s: no such folder" % a.remote)
    import duckdb
    con = duckdb.connect(a.db)
    con.execute("SET VARIABLE remote = ?", [os.path.abspath(a.remote)])
    for name, v in zip(("south", "west", "north", "east"), box):
        con.execute("SET VARIABLE %s = %r" % (name, v))
    con.execute(open(os.path.join(HERE, "load.sql"), encoding="utf-8").read())
    for query in re.split(r"^-- name: ", open(os.path.join(HERE, "queries.sql"), encoding="utf-8").read(), flags=re.M)[1:]:
        print("== " + query.split()[0])
        con.sql(query.split("\n", 1)[1]).show(max_rows=40)


if __name__ == "__main__":
    main()
