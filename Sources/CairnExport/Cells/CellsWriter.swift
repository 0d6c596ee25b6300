/// Writes explored cells as text (one line a cell) or as a GeoJSON FeatureCollection of cell
/// polygons (RFC 7946: exterior rings counter-clockwise, the first position repeated last).
public enum CellsWriter {
    /// `u0qj2yk  3 trips  2026-05-01T08:00:00Z  2026-06-02T17:31:12Z`, then a total line.
    public static func text(_ cells: [ExploredCell], precision: Int, to out: OutputSink) {
        for c in cells {
            out.write(Geohash.string(c.cell, precision: precision))
            out.put("  ")
            out.int(Int64(c.trips))
            out.put(c.trips == 1 ? " trip   " : " trips  ")
            out.isoTime(ms: c.visit.firstMs)
            out.put("  ")
            out.isoTime(ms: c.visit.lastMs)
            out.byte(10)
        }
        out.int(Int64(cells.count))
        out.write(cells.count == 1 ? " cell" : " cells")
        out.write(" at precision \(precision)\n")
    }

    public static func geoJSON(_ cells: [ExploredCell], precision: Int, to out: OutputSink) {
        out.put("{\"type\": \"FeatureCollection\", \"features\": [")
        for (i, c) in cells.enumerated() {
            let b = Geohash.bounds(c.cell, precision: precision)
            out.put(i == 0 ? "\n" : ",\n")
            out.put("{\"type\": \"Feature\", \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[")
            // South-west, south-east, north-east, north-west, back: counter-clockwise.
            let ring = [(b.west, b.south), (b.east, b.south), (b.east, b.north), (b.west, b.north), (b.west, b.south)]
            for (k, p) in ring.enumerated() {
                if k > 0 { out.put(", ") }
                out.byte(91)
                _ = out.decimal(p.0, 6)
                out.put(", ")
                _ = out.decimal(p.1, 6)
                out.byte(93)
            }
            out.put("]]}, \"properties\": {\"geohash\": \"")
            out.write(Geohash.string(c.cell, precision: precision))
            out.put("\", \"trips\": ")
            out.int(Int64(c.trips))
            out.put(", \"first\": \"")
            out.isoTime(ms: c.visit.firstMs)
            out.put("\", \"last\": \"")
            out.isoTime(ms: c.visit.lastMs)
            out.put("\"}}")
        }
        out.put(cells.isEmpty ? "]}\n" : "\n]}\n")
    }
}
