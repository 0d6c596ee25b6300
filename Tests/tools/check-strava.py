#!/usr/bin/env python3
"""Checks a FIT or GPX export against the rules of Strava's upload documentation
(developers.strava.com/docs/uploads) that apply to cairn's files, and the FIT profile's
consistency that Strava and Garmin Connect rely on. Exit 0 and a JSON summary on stdout when every
rule holds; exit 1 naming the first rule broken; exit 2 when a reader is missing.

    check-strava.py fit FILE.fit [--same-id OTHER.fit]
    check-strava.py gpx FILE.gpx [--fit FILE.fit]

FIT (Strava reads file_id manufacturer/product/time_created, session and lap totals, records):
  - a FIT activity (file_id first, type activity), with manufacturer, product, serial_number and
    time_created; --same-id: another conversion of the same trip has the same file_id
  - every record has a time, and record times never go back (FIT times are whole seconds)
  - every record has a position and a distance that never decreases
  - timer events alternate start/stop and the timer is stopped at the end
  - the session spans the records (start_time = first record, timestamp = last, elapsed time
    within a second of theirs, distance within 0.1 m of the last record's); timer <= elapsed;
    average speed = distance / timer and never above the top speed
  - laps: num_laps of them; contiguous (each starts where the one before ended, the first at the
    session's start, the last ending at the session's end); their elapsed and timer times,
    distances, ascents and descents add up to the session's; each lap's distance is what its
    records ran (within 0.11 m); timer <= elapsed, average <= top speed in each lap
  - one activity, num_sessions 1, its timer the session's
GPX (Strava: a time with each trackpoint):
  - every trkpt has lat, lon and a time; times strictly ascending within each track
  - cairn:lap, where present: from 1, each point's lap the last one's or the next
  - --fit: the FIT of the same trip has as many records, the same first and last time (to the
    second) and as many laps as the GPX names
"""
import datetime
import json
import sys
import xml.etree.ElementTree as ET


class Broken(Exception):
    pass


def need(module):
    try:
        return __import__(module)
    except ImportError:
        print("check-strava: python module %s is missing (bash Tests/tools/install-deps.sh)" % module, file=sys.stderr)
        sys.exit(2)


def rule(ok, text):
    if not ok:
        raise Broken(text)


def read_fit(path):
    garmin = need("garmin_fit_sdk")
    dec = garmin.Decoder(garmin.Stream.from_file(path))
    rule(dec.is_fit(), "not a FIT file")
    rule(garmin.Decoder(garmin.Stream.from_file(path)).check_integrity(), "FIT integrity (header, size or CRC) fails")
    messages, errors = garmin.Decoder(garmin.Stream.from_file(path)).read(convert_datetimes_to_dates=False)
    rule(not errors, "garmin-fit-sdk errors: %r" % (errors,))
    return messages


def fit_order(path):
    """(message name, timestamp or None) in file order, by fitdecode."""
    fitdecode = need("fitdecode")
    out = []
    with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE,
                             error_handling=fitdecode.ErrorHandling.RAISE) as fr:
        for frame in fr:
            if isinstance(frame, fitdecode.FitDataMessage):
                t = frame.get_value("timestamp", fallback=None) if frame.has_field("timestamp") else None
                out.append((frame.name, t))
    return out


def file_id(messages):
    f = messages["file_id_mesgs"][0]
    return {k: f.get(k) for k in ("type", "manufacturer", "product", "serial_number", "time_created")}


def check_fit(path, same_id=None):
    m = read_fit(path)
    order = fit_order(path)
    rule(order and order[0][0] == "file_id", "file_id is not the first message")
    fid = file_id(m)
    rule(fid["type"] == "activity", "file_id type is %r, not activity" % fid["type"])
    for k in ("manufacturer", "product", "serial_number", "time_created"):
        rule(fid[k] is not None, "file_id has no %s" % k)

    records = m.get("record_mesgs", [])
    rule(records, "no records")
    last_t = last_d = None
    for i, r in enumerate(records):
        t, d = r.get("timestamp"), r.get("distance")
        rule(t is not None, "record %d has no time" % i)
        rule(last_t is None or t >= last_t, "record %d goes back in time (%s < %s)" % (i, t, last_t))
        rule(isinstance(r.get("position_lat"), int) and isinstance(r.get("position_long"), int), "record %d has no position" % i)
        rule(d is not None, "record %d has no distance" % i)
        rule(last_d is None or d >= last_d - 1e-9, "record %d: distance decreases" % i)
        last_t, last_d = t, d
    rule(fid["time_created"] <= records[0]["timestamp"], "time_created is after the first record")

    # Messages with a time keep to the order of time (records, events, laps, session, activity).
    prev = None
    for name, t in order:
        if t is None:
            continue
        ts = t.timestamp() if isinstance(t, datetime.datetime) else t
        rule(prev is None or ts >= prev[1], "%s at %s follows %s at %s" % (name, t, prev and prev[0], prev and prev[1]))
        prev = (name, ts)

    state = "stopped"
    for e in m.get("event_mesgs", []):
        if e.get("event") != "timer":
            continue
        running = e.get("event_type") == "start"
        rule(running != (state == "running"), "timer %s while %s" % (e.get("event_type"), state))
        state = "running" if running else "stopped"
    rule(state == "stopped", "the timer is still running at the end")

    sessions = m.get("session_mesgs", [])
    rule(len(sessions) == 1, "%d sessions, not 1" % len(sessions))
    s = sessions[0]
    first_t, last_t = records[0]["timestamp"], records[-1]["timestamp"]
    rule(s.get("sport") is not None, "session has no sport")
    rule(s.get("start_time") == first_t, "session start_time %s is not the first record's %s" % (s.get("start_time"), first_t))
    rule(s.get("timestamp") == last_t, "session timestamp %s is not the last record's %s" % (s.get("timestamp"), last_t))
    rule(abs(s["total_elapsed_time"] - (last_t - first_t)) < 1.0, "session elapsed time %s is not the records' %s s" % (s["total_elapsed_time"], last_t - first_t))
    rule(abs(s["total_distance"] - records[-1]["distance"]) <= 0.1 + 1e-9,
         "session distance %s is not the last record's %s" % (s["total_distance"], records[-1]["distance"]))
    figures(s, "session")

    laps = m.get("lap_mesgs", [])
    rule(laps, "no laps")
    rule(s.get("num_laps") == len(laps), "session num_laps %s, but %d laps" % (s.get("num_laps"), len(laps)))
    rule(laps[0].get("start_time") == s.get("start_time"), "the first lap does not start with the session")
    rule(laps[-1].get("timestamp") == s.get("timestamp"), "the last lap does not end with the session")
    for i in range(1, len(laps)):
        rule(laps[i].get("start_time") == laps[i - 1].get("timestamp"),
             "lap %d starts at %s, not where lap %d ended (%s)" % (i, laps[i].get("start_time"), i - 1, laps[i - 1].get("timestamp")))

    def distance_at(t):
        d = 0.0
        for r in records:
            if r["timestamp"] > t:
                break
            d = r["distance"]
        return d

    for i, lap in enumerate(laps):
        figures(lap, "lap %d" % i)
        ran = distance_at(lap["timestamp"]) - distance_at(lap["start_time"])
        rule(abs(lap["total_distance"] - ran) <= 0.11,
             "lap %d: distance %s, but its records ran %.2f m" % (i, lap["total_distance"], ran))
        rule(lap.get("message_index") == i, "lap %d has message_index %s" % (i, lap.get("message_index")))
    for k, tol in (("total_elapsed_time", 0.0015), ("total_timer_time", 0.0015), ("total_distance", 0.015),
                   ("total_ascent", 0), ("total_descent", 0)):
        if s.get(k) is None:
            rule(all(l.get(k) is None for l in laps), "laps have %s, the session none" % k)
            continue
        total = sum(l.get(k) or 0 for l in laps)
        rule(abs(total - s[k]) <= tol * len(laps) + 1e-6, "laps' %s add up to %s, the session's is %s" % (k, total, s[k]))

    acts = m.get("activity_mesgs", [])
    rule(len(acts) == 1, "%d activity messages, not 1" % len(acts))
    rule(acts[0].get("num_sessions") == 1, "activity num_sessions is %s" % acts[0].get("num_sessions"))
    rule(abs(acts[0].get("total_timer_time", -1) - s["total_timer_time"]) < 1e-6, "activity timer is not the session's")
    rule(order[-1][0] == "activity", "the last message is %s, not activity" % order[-1][0])

    if same_id:
        other = file_id(read_fit(same_id))
        rule(other == fid, "file_id differs from %s's: %r vs %r" % (same_id, fid, other))

    return {"records": len(records), "laps": len(laps), "file_id": fid,
            "lap_distances": [l["total_distance"] for l in laps],
            "lap_triggers": [l.get("lap_trigger") for l in laps],
            "session": {k: s.get(k) for k in ("total_elapsed_time", "total_timer_time", "total_distance",
                                              "total_ascent", "total_descent", "avg_speed", "max_speed")},
            "first_time": first_t, "last_time": last_t}


def figures(x, what):
    rule(x.get("total_timer_time") is not None and x.get("total_elapsed_time") is not None, "%s has no times" % what)
    rule(x["total_timer_time"] <= x["total_elapsed_time"] + 1e-6,
         "%s: timer %s over elapsed %s" % (what, x["total_timer_time"], x["total_elapsed_time"]))
    avg, top = x.get("enhanced_avg_speed", x.get("avg_speed")), x.get("enhanced_max_speed", x.get("max_speed"))
    if avg is not None and top is not None:
        rule(avg <= top + 0.001, "%s: average speed %s above the top speed %s" % (what, avg, top))
    if avg is not None and x["total_timer_time"] > 0:
        want = x["total_distance"] / x["total_timer_time"]
        rule(abs(avg - want) <= 0.0015 + want * 1e-4, "%s: average speed %s is not distance/timer %s" % (what, avg, want))


GPX = "{http://www.topografix.com/GPX/1/1}"
CAIRN = "{urn:x-cairn:gpx:1}"


def gpx_time(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def check_gpx(path, fit=None):
    root = ET.parse(path).getroot()
    rule(root.tag == GPX + "gpx", "not GPX 1.1")
    rule(root.get("creator"), "no creator")
    points, laps = 0, []
    first = last = None
    for trk in root.iter(GPX + "trk"):
        prev, lap = None, 0
        for pt in trk.iter(GPX + "trkpt"):
            points += 1
            rule(pt.get("lat") is not None and pt.get("lon") is not None, "trkpt %d has no position" % points)
            t = pt.find(GPX + "time")
            rule(t is not None and t.text, "trkpt %d has no time" % points)
            ts = gpx_time(t.text)
            rule(prev is None or ts > prev, "trkpt %d: time %s is not after the one before" % (points, t.text))
            prev = ts
            first = ts if first is None else first
            last = ts
            ext = pt.find(GPX + "extensions")
            l = ext.find(CAIRN + "lap") if ext is not None else None
            if l is not None:
                n = int(l.text)
                rule(n == lap or n == lap + 1, "trkpt %d: lap %d after lap %d" % (points, n, lap))
                if n != lap:
                    laps.append(n)
                lap = n
    rule(points > 0, "no trackpoints")
    rule(fit is None or not laps or laps[0] == 1, "laps do not start at 1")
    out = {"points": points, "laps": len(laps), "creator": root.get("creator")}
    if fit:
        f = check_fit(fit)
        rule(f["records"] == points, "the FIT has %d records, the GPX %d points" % (f["records"], points))
        rule(int(first) == f["first_time"] + 631065600 or int(first) == f["first_time"],
             "first times differ: GPX %s, FIT %s" % (first, f["first_time"]))
        if laps:
            rule(f["laps"] == len(laps), "the FIT has %d laps, the GPX names %d" % (f["laps"], len(laps)))
        out["fit"] = f
    return out


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ("fit", "gpx"):
        print(__doc__, file=sys.stderr)
        return 2

    def opt(name):
        return args[args.index(name) + 1] if name in args else None
    try:
        if args[0] == "fit":
            out = check_fit(args[1], same_id=opt("--same-id"))
        else:
            out = check_gpx(args[1], fit=opt("--fit"))
    except Broken as e:
        print("check-strava: %s: %s" % (args[1], e), file=sys.stderr)
        return 1
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
