#!/usr/bin/env python3
"""Checks a cairn export with independent readers and prints what they saw, as one JSON object.

Usage: check-export.py FORMAT FILE [--gpx-schema XSD]
       check-export.py kml-schema-dir
FORMAT is fit, gpx, geojson, kml or csv. Exit 0 when every reader accepts the file (the JSON
then holds counts and figures for the tests to compare with the trip), 1 with the readers'
complaints on stderr when one rejects it, 2 when a reader is missing (never a silent pass).

Readers (installed by Tests/tools/install-deps.sh, the versions are pinned there):
- fit: Garmin's FIT SDK (`garmin-fit-sdk`: integrity check and decode, zero errors) and
  `fitdecode` (CRC and decoding errors raise), plus these rules: file_id first,
  records chronological with timestamps, cumulative distance never decreasing, timer events
  paired, one activity.
- gpx: xmllint against the GPX 1.1 schema, gpsbabel's point and segment counts, and a streamed
  read of the extensions (gpx.xsd checks them only laxly): TrackPointExtension v1's child order
  and numbers; GDAL's ogrinfo reads the track points without a warning; gpxpy's points,
  heights, atemp and creator.
- kml: xmllint against the OGC KML 2.2 schema with gx (shipped in fastkml's package), fastkml's
  strict parser, gpsbabel's counts, GDAL's ogrinfo (no warning; the geometries it names).
- geojson: geojson-validator (structure with the crs check, geometries), plus RFC 7946 rules it
  does not check: two positions per LineString, ranges, coordinateProperties shaped like the
  coordinates, no geometry mixing 2-D and 3-D positions; gpsbabel's counts (tracks and the
  Points as waypoints); GDAL's ogrinfo (no warning, 3-D only where cairn wrote heights).
- csv: gpsbabel's unicsv reader (counts, speeds read back), and the header.
"""
import json, os, subprocess, sys, warnings
import xml.etree.ElementTree as ET

warnings.filterwarnings("ignore")  # fastkml warns about lxml on import


class Rejected(Exception):
    pass


def need(module):
    try:
        return __import__(module)
    except ImportError:
        print("check-export: python module %s is missing: run Tests/tools/install-deps.sh" % module, file=sys.stderr)
        sys.exit(2)


def run(cmd, check=True):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True)
    except FileNotFoundError:
        print("check-export: %s is missing: run Tests/tools/install-deps.sh" % cmd[0], file=sys.stderr)
        sys.exit(2)
    if check and p.returncode != 0:
        raise Rejected("%s exited %d: %s" % (" ".join(cmd), p.returncode, (p.stderr or p.stdout)[-2000:]))
    return p


def gpsbabel_counts(fmt, path):
    """Points (unicsv rows) and segments (<trkseg> in gpsbabel's GPX) as gpsbabel reads them."""
    rows = run(["gpsbabel", "-t", "-i", fmt, "-f", path, "-o", "unicsv", "-F", "-"]).stdout.splitlines()
    gpx = run(["gpsbabel", "-t", "-i", fmt, "-f", path, "-o", "gpx", "-F", "-"]).stdout
    return {"gpsbabel_points": max(len(rows) - 1, 0), "gpsbabel_segments": gpx.count("<trkseg>"),
            "gpsbabel_header": rows[0] if rows else ""}


def ogr_read(path, layer=None):
    """GDAL's reading (`ogrinfo` from gdal-bin): the features' geometries (WKT) and fields, and
    the layers with their geometry types. Any warning or error GDAL prints rejects the file."""
    cmd = ["ogrinfo", "-ro", "-al", "-q", path] + ([layer] if layer else [])
    p = run(cmd)
    noise = [l for l in (p.stderr + p.stdout).splitlines() if l.startswith(("Warning", "ERROR"))]
    if noise:
        raise Rejected("ogrinfo: %d warning(s)/error(s), first: %s" % (len(noise), noise[0]))
    feats = []
    for line in p.stdout.splitlines():
        if line.startswith("OGRFeature("):
            feats.append({"geometry": None, "fields": {}})
        elif feats and line.startswith("  ") and " (" in line and ") =" in line:
            k, v = line[2:].split(") =", 1)
            feats[-1]["fields"][k.split(" (")[0]] = v.strip()
        elif feats and line.startswith("  ") and line.strip().split(" ")[0].isupper():
            feats[-1]["geometry"] = line.strip()
    summary = run(["ogrinfo", "-ro", path]).stdout.splitlines()
    layers = [l.split(": ", 1)[1] for l in summary if l[:1].isdigit() and ": " in l]
    return feats, layers


def xmllint(schema, path):
    p = run(["xmllint", "--noout", "--stream", "--schema", schema, path], check=False)
    if p.returncode != 0:
        raise Rejected("xmllint (%s): rc %d: %s" % (os.path.basename(schema), p.returncode, p.stderr[-2000:]))


# FIT --------------------------------------------------------------------------------------------

def running_seconds(events):
    """The seconds between each timer start and the stop after it ((event, event_type,
    timestamp) in file order, FIT seconds)."""
    total, since = 0, None
    for e, kind, t in events:
        if e != "timer":
            continue
        if kind == "start" and since is None:
            since = t
        elif kind in ("stop", "stop_all") and since is not None:
            total += t - since
            since = None
    return total


def check_fit(path):
    garmin = need("garmin_fit_sdk")
    fitdecode = need("fitdecode")
    out = {}
    if not garmin.Decoder(garmin.Stream.from_file(path)).is_fit():
        raise Rejected("garmin-fit-sdk: not a FIT file")
    if not garmin.Decoder(garmin.Stream.from_file(path)).check_integrity():
        raise Rejected("garmin-fit-sdk: check_integrity() is False (header or file CRC, or size)")
    messages, errors = garmin.Decoder(garmin.Stream.from_file(path)).read(convert_datetimes_to_dates=False)
    if errors:
        raise Rejected("garmin-fit-sdk: errors %r" % (errors,))
    for k in ("file_id", "device_info", "event", "record", "lap", "session", "activity"):
        out[k] = len(messages.get(k + "_mesgs", []))
    fid = messages["file_id_mesgs"][0]
    out["file_type"] = fid.get("type")
    out["manufacturer"] = fid.get("manufacturer")
    out["serial_number"] = fid.get("serial_number")
    out["product"] = fid.get("product")
    out["device_infos"] = [{k: d.get(k) for k in ("device_index", "device_type", "local_device_type", "source_type", "manufacturer", "product")}
                           for d in messages.get("device_info_mesgs", [])]
    # The board's id (cairn's creator device_info descriptor), when the trip has one.
    out["descriptors"] = [d["descriptor"] for d in messages.get("device_info_mesgs", []) if d.get("descriptor") is not None]

    records = messages.get("record_mesgs", [])
    # A trainer's file (issue 40): cycling, indoor_cycling, and then no record has a position;
    # every other file has one in every record between a leading run without one at most (a
    # trainer ride that went outdoors: its indoor part before the first fix) and a trailing run
    # without one at most (back on the trainer after the last fix, the trip still open).
    sessions = messages.get("session_mesgs", [])
    indoor = bool(sessions) and sessions[0].get("sub_sport") == "indoor_cycling"
    def unplaced(r):
        return r.get("position_lat") is None and r.get("position_long") is None
    lead, tail = 0, len(records)
    if not indoor:
        while lead < len(records) and unplaced(records[lead]):
            lead += 1
        if lead == len(records) and records:
            raise Rejected("no record of an outdoor file has a position")
        while tail > lead and unplaced(records[tail - 1]):
            tail -= 1
    out["records_without_position"] = lead if not indoor else len(records)
    out["records_without_position_after"] = len(records) - tail if not indoor else 0
    last_t, last_d = None, None
    for i, r in enumerate(records):
        t = r.get("timestamp")
        if t is None:
            raise Rejected("record %d has no timestamp" % i)
        if last_t is not None and t < last_t:
            raise Rejected("record %d goes back in time" % i)
        d = r.get("distance")
        if d is None:
            raise Rejected("record %d has no distance" % i)
        if last_d is not None and d < last_d - 1e-9:
            raise Rejected("record %d: distance decreases (%s < %s)" % (i, d, last_d))
        for k in ("position_lat", "position_long"):
            if indoor and r.get(k) is not None:
                raise Rejected("record %d of an indoor file has %s" % (i, k))
            if not indoor and lead <= i < tail and not isinstance(r.get(k), int):
                raise Rejected("record %d has no %s" % (i, k))
        last_t, last_d = t, d
    out["records_with_altitude"] = sum(1 for r in records if r.get("enhanced_altitude") is not None)
    out["records_with_speed"] = sum(1 for r in records if r.get("enhanced_speed") is not None)
    out["records_with_pressure"] = sum(1 for r in records if r.get("absolute_pressure") is not None)
    out["records_with_temperature"] = sum(1 for r in records if r.get("temperature") is not None)
    # The sensors' fields (heart_rate, cadence, power), per record as the SDK reads them; the
    # fitdecode pass below must read the same values.
    for k in ("heart_rate", "cadence", "power"):
        out["record_" + k] = [r.get(k) for r in records]
    if records:
        out["first_record"] = {k: v for k, v in records[0].items() if isinstance(v, (int, float, str))}
        out["last_record"] = {k: v for k, v in records[-1].items() if isinstance(v, (int, float, str))}
        if not indoor:
            out["max_record_lat_semicircles"] = max(abs(r["position_lat"]) for r in records[lead:tail])
    ev = [(e.get("event"), e.get("event_type"), e.get("timestamp")) for e in messages.get("event_mesgs", [])]
    # Every event as the SDK reads it (the rider's lap presses: event lap, marker; the rider's
    # stop: timer stop_all with timer_trigger manual), FIT seconds.
    out["events"] = [{"event": e.get("event"), "event_type": e.get("event_type"), "timestamp": e.get("timestamp"),
                      "timer_trigger": e.get("timer_trigger")} for e in messages.get("event_mesgs", [])]
    out["timer_starts"] = sum(1 for e in ev if e[0] == "timer" and e[1] == "start")
    out["timer_stops"] = sum(1 for e in ev if e[0] == "timer" and e[1] in ("stop_all", "stop"))
    # Timer events alternate start, stop, start, ... stop.
    state = "stopped"
    for e in ev:
        if e[0] != "timer":
            continue
        if e[1] == "start":
            if state != "stopped":
                raise Rejected("timer start while running")
            state = "running"
        else:
            if state != "running":
                raise Rejected("timer stop while stopped")
            state = "stopped"
    if state != "stopped":
        raise Rejected("timer still running at the end")
    # The seconds the timer ran (start to stop spans), what a reader's timer-based moving time is.
    out["timer_running_s"] = running_seconds(ev)
    speeds = [r.get("enhanced_speed") for r in records if r.get("enhanced_speed") is not None]
    out["max_record_speed"] = max(speeds) if speeds else None
    for k in ("session", "lap"):
        if messages.get(k + "_mesgs"):
            s = messages[k + "_mesgs"][0]
            out[k + "_figures"] = {f: s.get(f) for f in (
                "sport", "sub_sport", "start_time", "timestamp", "total_elapsed_time", "total_timer_time",
                "total_moving_time", "total_distance", "avg_speed", "max_speed", "enhanced_avg_speed",
                "enhanced_max_speed", "total_ascent", "total_descent", "num_laps", "first_lap_index",
                "avg_heart_rate", "max_heart_rate", "avg_cadence", "max_cadence", "avg_power", "max_power")}
    laps = messages.get("lap_mesgs", [])
    if laps:
        def total(k):
            vals = [l.get(k) for l in laps]
            return None if any(v is None for v in vals) else sum(vals)
        out["lap_sums"] = {k: total(k) for k in ("total_elapsed_time", "total_timer_time", "total_moving_time",
                                                  "total_distance", "total_ascent", "total_descent")}
        out["lap_triggers"] = [l.get("lap_trigger") for l in laps]
        out["lap_sensor_figures"] = [{k: l.get(k) for k in ("avg_heart_rate", "max_heart_rate", "avg_cadence", "max_cadence",
                                                            "avg_power", "max_power")} for l in laps]
        out["lap_distances"] = [l.get("total_distance") for l in laps]
        out["lap_ascents"] = [l.get("total_ascent") for l in laps]
        out["lap_times"] = [[l.get("start_time"), l.get("timestamp")] for l in laps]
        out["lap_timers"] = [l.get("total_timer_time") for l in laps]
        out["lap_speeds"] = [[l.get("enhanced_avg_speed", l.get("avg_speed")), l.get("enhanced_max_speed", l.get("max_speed"))]
                             for l in laps]
    if messages.get("activity_mesgs"):
        a = messages["activity_mesgs"][0]
        out["activity_figures"] = {f: a.get(f) for f in ("num_sessions", "total_timer_time", "type", "event", "event_type")}
        lt, t = a.get("local_timestamp"), a.get("timestamp")
        out["local_offset_s"] = lt - t if isinstance(lt, int) and isinstance(t, int) else None

    # fitdecode: every CRC checked, errors raise; the message order as written.
    names = []
    sensor_values = {"heart_rate": [], "cadence": [], "power": []}
    fd_events, fd_speeds = [], []
    with fitdecode.FitReader(path, check_crc=fitdecode.CrcCheck.RAISE,
                             error_handling=fitdecode.ErrorHandling.RAISE) as fr:
        for frame in fr:
            if isinstance(frame, fitdecode.FitDataMessage):
                names.append(frame.name)
                if frame.name == "event":
                    t = frame.get_raw_value("timestamp", fallback=None)
                    fd_events.append((frame.get_value("event", fallback=None), frame.get_value("event_type", fallback=None), t))
                if frame.name == "record":
                    v = frame.get_value("enhanced_speed", fallback=None)
                    if v is not None:
                        fd_speeds.append(v)
                if frame.name == "record":
                    for k in sensor_values:
                        sensor_values[k].append(frame.get_value(k, fallback=None))
    for k, vals in sensor_values.items():
        if vals != out["record_" + k]:
            raise Rejected("fitdecode reads record %s differently from the FIT SDK" % k)
    if not names or names[0] != "file_id":
        raise Rejected("fitdecode: the first message is %r, not file_id" % (names[:1],))
    out["fitdecode_messages"] = len(names)
    out["fitdecode_timer_running_s"] = running_seconds(fd_events)
    out["fitdecode_max_record_speed"] = max(fd_speeds) if fd_speeds else None
    out["fitdecode_records"] = names.count("record")
    # Summary messages after the last record, activity last.
    if names[-1] != "activity":
        raise Rejected("fitdecode: the last message is %r, not activity" % names[-1])
    out["order"] = [n for i, n in enumerate(names) if i == 0 or n != names[i - 1]]
    return out


# GPX --------------------------------------------------------------------------------------------

GPX = "{http://www.topografix.com/GPX/1/1}"
# Garmin's TrackPointExtension v1 (what Strava reads atemp from) and its child sequence.
TPX = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v1}"
TPX_ORDER = ["atemp", "wtemp", "depth", "hr", "cad", "Extensions"]
CAIRN = "{urn:x-cairn:gpx:1}"
# Garmin's PowerExtension v1: watts.
PWR = "{http://www.garmin.com/xmlschemas/PowerExtension/v1}"


def check_gpx(path, schema):
    if not schema:
        raise Rejected("gpx needs --gpx-schema")
    xmllint(schema, path)
    creator = None
    for _event, el in ET.iterparse(path, events=("start",)):
        creator = el.get("creator")
        break
    out = {"creator": creator, "points": 0, "segments": 0, "tracks": 0, "with_ele": 0, "with_speed": 0, "with_course": 0,
           "with_pressure": 0, "with_climb": 0, "with_atemp": 0, "namespaces": {}, "src": {}, "interpolated": 0,
           "hr": [], "cad": [], "power": []}
    for _event, el in ET.iterparse(path, events=("end",)):
        tag = el.tag
        if tag == GPX + "trkpt":
            out["points"] += 1
            names = [c.tag for c in el]
            if GPX + "ele" in names:
                out["with_ele"] += 1
            src = el.find(GPX + "src")
            if src is not None:
                out["src"][src.text] = out["src"].get(src.text, 0) + 1
            ext = el.find(GPX + "extensions")
            if ext is not None:
                kids = list(ext)
                tpx = [c for c in kids if c.tag == TPX + "TrackPointExtension"]
                if len(tpx) > 1:
                    raise Rejected("two TrackPointExtension in one trkpt")
                if tpx:
                    order = [c.tag.replace(TPX, "") for c in tpx[0]]
                    idx = [TPX_ORDER.index(n) for n in order]
                    if idx != sorted(idx) or len(set(idx)) != len(idx):
                        raise Rejected("TrackPointExtension children out of order: %r" % order)
                    for n in order:
                        if n != "Extensions":
                            float(tpx[0].find(TPX + n).text)
                    out["with_atemp"] += "atemp" in order
                    for n in ("hr", "cad"):
                        if n in order:
                            out[n].append(int(tpx[0].find(TPX + n).text))
                    if "atemp" in order:
                        out["last_atemp"] = float(tpx[0].find(TPX + "atemp").text)
                for c in kids:
                    if c.tag == CAIRN + "speed":
                        out["with_speed"] += 1
                        float(c.text)
                    if c.tag == CAIRN + "course":
                        out["with_course"] += 1
                        float(c.text)
                    if c.tag.endswith("}pressure"):
                        out["with_pressure"] += 1
                        out["namespaces"]["pressure"] = c.tag[1:].split("}")[0]
                        out["last_pressure_hpa"] = float(c.text)
                    if c.tag.endswith("}climb"):
                        out["with_climb"] += 1
                    if c.tag == PWR + "PowerInWatts":
                        out["power"].append(int(c.text))
                    if c.tag == CAIRN + "interpolated":
                        if c.text != "1" or src is None or src.text != "cairn interpolated":
                            raise Rejected("cairn:interpolated %r on a point whose src is %r" % (c.text, src.text if src is not None else None))
                        out["interpolated"] += 1
            el.clear()
        elif tag == GPX + "trkseg":
            out["segments"] += 1
        elif tag == GPX + "trk":
            out["tracks"] += 1
            el.clear()
    out.update(gpsbabel_counts("gpx", path))
    gpxpy = need("gpxpy")
    with open(path, encoding="utf-8") as f:
        parsed = gpxpy.parse(f)
    pts = [p for t in parsed.tracks for s in t.segments for p in s.points]
    out["gpxpy_points"] = len(pts)
    out["gpxpy_with_ele"] = sum(1 for p in pts if p.elevation is not None)
    out["gpxpy_atemp"] = sum(1 for p in pts for e in p.extensions for x in e.iter() if x.tag == TPX + "atemp")
    out["gpxpy_creator"] = parsed.creator
    feats, _ = ogr_read(path, "track_points")
    out["ogr_points"] = len(feats)
    out["ogr_with_speed"] = sum(1 for f in feats if "cairn_speed" in f["fields"])
    out["ogr_with_ele"] = sum(1 for f in feats if "ele" in f["fields"])
    out["ogr_fields"] = sorted({k for f in feats for k in f["fields"]})
    babel = run(["gpsbabel", "-t", "-i", "gpx", "-f", path, "-o", "unicsv", "-F", "-"]).stdout.splitlines()
    if babel and "Temperature" in babel[0].split(","):
        col = babel[0].split(",").index("Temperature")
        out["gpsbabel_temperatures"] = sum(1 for r in babel[1:] if r.split(",")[col])
    return out


# KML --------------------------------------------------------------------------------------------

def kml_schema_dir():
    fastkml = need("fastkml")
    return os.path.join(os.path.dirname(fastkml.__file__), "schema")


KML = "{http://www.opengis.net/kml/2.2}"
GX = "{http://www.google.com/kml/ext/2.2}"


def check_kml(path):
    xmllint(os.path.join(kml_schema_dir(), "ogckml22.xsd"), path)
    from fastkml import kml
    try:
        kml.KML.parse(path, strict=True, validate=True)
    except Exception as e:  # fastkml raises its own and lxml's errors
        raise Rejected("fastkml: %s: %s" % (type(e).__name__, e))
    out = {"tracks": 0, "whens": 0, "coords": 0, "placemarks": 0, "line_strings": 0, "colours": []}
    for _event, el in ET.iterparse(path, events=("end",)):
        if el.tag == GX + "Track":
            out["tracks"] += 1
            w = len(el.findall(KML + "when"))
            c = el.findall(GX + "coord")
            if w != len(c):
                raise Rejected("gx:Track with %d when and %d gx:coord" % (w, len(c)))
            dims = {len(x.text.split()) for x in c}
            if len(dims) > 1:
                raise Rejected("a gx:Track mixes 2-D and 3-D gx:coords (GDAL gives the 2-D ones z = 0)")
            out["coords_3d" if dims == {3} else "coords_2d"] = out.get("coords_3d" if dims == {3} else "coords_2d", 0) + len(c)
            for arr in el.iter(GX + "SimpleArrayData"):
                values = arr.findall(GX + "value")
                if len(values) != len(c):
                    raise Rejected("gx:SimpleArrayData %s with %d values for %d gx:coord" % (arr.get("name"), len(values), len(c)))
                if arr.get("name") == "height":
                    out["listed_heights"] = out.get("listed_heights", 0) + sum(1 for v in values if v.text)
            for x in c:
                parts = x.text.split()
                if len(parts) not in (2, 3):
                    raise Rejected("gx:coord %r is not 'lon lat [alt]'" % x.text)
                lon, lat = float(parts[0]), float(parts[1])
                if not (-180 <= lon <= 180 and -90 <= lat <= 90):
                    raise Rejected("gx:coord out of range: %r" % x.text)
            out["whens"] += w
            out["coords"] += len(c)
        elif el.tag == KML + "Placemark":
            out["placemarks"] += 1
        elif el.tag == KML + "LineString":
            out["line_strings"] += 1
        elif el.tag == KML + "color" and el.text not in out["colours"]:
            out["colours"].append(el.text)
    out.update(gpsbabel_counts("kml", path))
    feats, layers = ogr_read(path)
    out["ogr_features"] = len(feats)
    out["ogr_layers"] = layers
    out["ogr_geometries"] = sorted({(f["geometry"] or "None").split(" (")[0] for f in feats})
    out["ogr_3d_geometries"] = sum(1 for f in feats if f["geometry"] and " Z " in f["geometry"][:25])
    return out


# GeoJSON ----------------------------------------------------------------------------------------

# Normal in a ride: heights, standing still, loops, long lines. geojson-validator's
# crosses_antimeridian looks at the bounding box, so it also flags a line correctly split at ±180
# (RFC 7946 §3.1.9); check_line below rejects a line that really crosses unsplit.
ALLOWED_PROBLEMS = {"3d_coordinates", "duplicate_nodes", "self_intersection", "excessive_vertices", "crosses_antimeridian"}


def check_geojson(path):
    gv = need("geojson_validator")
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    s = gv.validate_structure(d, check_crs=True)
    if s:
        raise Rejected("geojson-validator structure: %r" % (s,))
    g = gv.validate_geometries(d)
    if g.get("invalid"):
        raise Rejected("geojson-validator invalid: %r" % (g["invalid"],))
    bad = set(g.get("problematic", {})) - ALLOWED_PROBLEMS
    if bad:
        raise Rejected("geojson-validator problematic: %r" % ({k: g["problematic"][k] for k in bad},))
    if "crs" in d:
        raise Rejected("crs member present")
    out = {"features": len(d["features"]), "positions": 0, "lines": 0, "null_geometries": 0,
           "geometry_types": g.get("count_geometry_types", {}), "bands": [], "strokes": []}

    def check_line(coords, times, speeds, others=(), minimum=2):
        if len(coords) < minimum:
            raise Rejected("a LineString with %d position(s)" % len(coords))
        if times is not None and len(times) != len(coords):
            raise Rejected("%d times for %d positions" % (len(times), len(coords)))
        if speeds is not None and len(speeds) != len(coords):
            raise Rejected("%d speeds for %d positions" % (len(speeds), len(coords)))
        for name, values in others:
            if values is not None and len(values) != len(coords):
                raise Rejected("%d %s for %d positions" % (len(values), name, len(coords)))
        for i, p in enumerate(coords):
            if len(p) not in (2, 3) or not (-180 <= p[0] <= 180 and -90 <= p[1] <= 90):
                raise Rejected("bad position %r" % (p,))
            if i and abs(p[0] - coords[i - 1][0]) > 180:
                raise Rejected("a line crosses the antimeridian without a split at %r" % (p,))
        out["positions"] += len(coords)
        out["lines"] += minimum == 2

    prev_end = None
    out["shared_boundaries"] = 0
    out["points_3d"] = 0
    out["points_2d"] = 0
    out["lone_points"] = 0
    out["with_temperature"] = 0
    out["with_height_property"] = 0

    def dimensions(positions, where):
        dims = {len(p) for p in positions}
        if len(dims) > 1:
            raise Rejected("%s mixes 2-D and 3-D positions (GDAL gives the 2-D ones z = 0)" % where)
        key = "points_3d" if dims == {3} else "points_2d"
        out[key] += len(positions)
        return dims

    def count_props(cp):
        for k, name in (("temperatures", "with_temperature"), ("heights", "with_height_property")):
            v = cp.get(k)
            flat = [x for line in v for x in (line if isinstance(line, list) else [line])] if isinstance(v, list) else ([v] if v is not None else [])
            out[name] += sum(1 for x in flat if x is not None)
    for f in d["features"]:
        geom, props = f.get("geometry"), f.get("properties") or {}
        cp = props.get("coordinateProperties") or {}
        if geom is None:
            out["null_geometries"] += 1
            out.setdefault("trips", []).append(props)
            prev_end = None
            continue
        if geom["type"] == "MultiLineString":
            times, speeds = cp.get("times"), cp.get("speeds")
            if times is not None and len(times) != len(geom["coordinates"]):
                raise Rejected("times not nested like the coordinates")
            for k in ("temperatures", "heights", "interpolated"):
                if cp.get(k) is not None and len(cp[k]) != len(geom["coordinates"]):
                    raise Rejected("%s not nested like the coordinates" % k)
            for i, line in enumerate(geom["coordinates"]):
                check_line(line, times[i] if times else None, speeds[i] if speeds else None,
                           [(k, cp[k][i]) for k in ("temperatures", "heights", "interpolated") if cp.get(k) is not None])
                if cp.get("interpolated") is not None:
                    flags = cp["interpolated"][i]
                    if any(not isinstance(x, bool) for x in flags):
                        raise Rejected("interpolated holds a value that is not true or false")
                    out["interpolated"] = out.get("interpolated", 0) + sum(1 for x in flags if x)
            dimensions([p for line in geom["coordinates"] for p in line], "a MultiLineString")
            count_props(cp)
            out.setdefault("trips", []).append({k: v for k, v in props.items() if k != "coordinateProperties"})
        elif geom["type"] in ("Point", "MultiPoint"):
            positions = [geom["coordinates"]] if geom["type"] == "Point" else geom["coordinates"]
            check_line(positions, None, None, minimum=1)
            dimensions(positions, "a " + geom["type"])
            if "trip" in props and "points" not in props:
                out["lone_points"] += len(positions)  # a one-point segment's own Feature
                if props.get("temperature") is not None:
                    out["with_temperature"] += 1
            else:
                if geom["type"] == "Point" and isinstance(cp.get("times"), list):
                    raise Rejected("a Point's times nested as a list")
                count_props(cp)
                if "points" in props:
                    out.setdefault("trips", []).append({k: v for k, v in props.items() if k != "coordinateProperties"})
                prev_end = None
        elif geom["type"] == "LineString":
            check_line(geom["coordinates"], cp.get("times"), cp.get("speeds"))
            dimensions(geom["coordinates"], "a LineString")
            if prev_end is not None and geom["coordinates"][0] == prev_end:
                out["shared_boundaries"] += 1
            prev_end = geom["coordinates"][-1]
            out["bands"].append(props.get("speed_band"))
            out.setdefault("band_speeds", []).append([props.get("speed_band"), props.get("speed_kmh_avg")])
            if props.get("stroke") not in out["strokes"]:
                out["strokes"].append(props.get("stroke"))
            for k in ("speed_band", "speed_band_label", "speed_kmh_avg", "stroke", "stroke-width", "stroke-opacity", "title"):
                if k not in props:
                    raise Rejected("speed feature without %s" % k)
        else:
            raise Rejected("unexpected geometry %s" % geom["type"])
    out["problematic"] = sorted(g.get("problematic", {}))
    out.update(gpsbabel_counts("geojson", path))
    wpts = run(["gpsbabel", "-w", "-i", "geojson", "-f", path, "-o", "unicsv", "-F", "-"]).stdout.splitlines()
    out["gpsbabel_waypoints"] = max(len(wpts) - 1, 0)
    feats, layers = ogr_read(path)
    out["ogr_features"] = len(feats)
    out["ogr_layers"] = layers
    # GDAL's z for every position: a 3-D geometry only where cairn wrote one (never a made-up 0).
    out["ogr_3d_geometries"] = sum(1 for f in feats if f["geometry"] and " Z " in f["geometry"][:25])
    out["ogr_geometries"] = sorted({(f["geometry"] or "None").split(" ")[0] for f in feats})
    return out


# CSV --------------------------------------------------------------------------------------------

def check_csv(path):
    import csv
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    want = "time,lat,lon,ele,speed,course,temp,pressure,climb,segment,trip,board".split(",")
    # `convert --laps` adds the lap column, `--smooth` / `--fill-gaps` the origin column.
    # A trip with sensors adds heartrate, cadence and power, last.
    tail = rows[0][len(want):] if rows else []
    if tail[-3:] == ["heartrate", "cadence", "power"]:
        tail = tail[:-3]
    if rows and tail in ([], ["lap"], ["origin"], ["lap", "origin"]):
        want = rows[0]
    if not rows or rows[0] != want:
        raise Rejected("header is %r" % (rows[:1],))
    out = {"rows": len(rows) - 1}
    lap_col = want.index("lap") if "lap" in want else None
    origin_col = want.index("origin") if "origin" in want else None
    if lap_col is not None:
        if any(not r[lap_col].isdigit() for r in rows[1:] if len(r) == len(want)):
            raise Rejected("a lap cell that is not a number")
        out["laps"] = len({(r[10], r[lap_col]) for r in rows[1:] if len(r) == len(want)})
    for i, r in enumerate(rows[1:]):
        if len(r) != len(want):
            raise Rejected("row %d has %d cells" % (i + 1, len(r)))
        if not r[0].endswith("Z"):
            raise Rejected("row %d: time %r is not UTC ISO 8601" % (i + 1, r[0]))
        if origin_col is not None:
            o = r[origin_col]
            if o not in ("measured", "smoothed", "interpolated"):
                raise Rejected("row %d: origin %r" % (i + 1, o))
            out.setdefault("origins", {})
            out["origins"][o] = out["origins"].get(o, 0) + 1
    out["segments"] = len({(r[10], r[9]) for r in rows[1:]})
    out["with_pressure"] = sum(1 for r in rows[1:] if r[7])
    out["with_temp"] = sum(1 for r in rows[1:] if r[6])
    temps = [float(r[6]) for r in rows[1:] if r[6]]
    if temps:
        out["temp_range"] = [min(temps), max(temps)]
    babel = run(["gpsbabel", "-t", "-i", "unicsv", "-f", path, "-o", "unicsv", "-F", "-"]).stdout.splitlines()
    out["gpsbabel_points"] = max(len(babel) - 1, 0)
    out["gpsbabel_header"] = babel[0] if babel else ""
    # gpsbabel's unicsv reads the sensors' columns by name: the values it read back.
    for name, col in (("Heartrate", "heartrate"), ("Cadence", "cadence"), ("Power", "power")):
        if babel and name in babel[0].split(",") and col in want:
            c = babel[0].split(",").index(name)
            out["gpsbabel_" + col] = [float(r.split(",")[c]) for r in babel[1:]]
    if babel and "Speed" in babel[0].split(","):
        col = babel[0].split(",").index("Speed")
        out["gpsbabel_speeds"] = sum(1 for r in babel[1:] if r.split(",")[col])
    return out


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "kml-schema-dir":
        print(kml_schema_dir())
        return 0
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    fmt, path = sys.argv[1], sys.argv[2]
    schema = sys.argv[sys.argv.index("--gpx-schema") + 1] if "--gpx-schema" in sys.argv else None
    checks = {"fit": check_fit, "geojson": check_geojson, "kml": check_kml, "csv": check_csv,
              "gpx": lambda p: check_gpx(p, schema)}
    if fmt not in checks:
        print("check-export: unknown format %s" % fmt, file=sys.stderr)
        return 2
    try:
        out = checks[fmt](path)
    except Rejected as e:
        print("check-export: %s: %s" % (path, e), file=sys.stderr)
        return 1
    except Exception as e:  # a reader that crashes rejects the file
        print("check-export: %s: %s: %s" % (path, type(e).__name__, e), file=sys.stderr)
        return 1
    print(json.dumps(out, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
