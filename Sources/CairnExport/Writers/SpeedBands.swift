import CairnCore

/// Speed bands for speed-coloured tracks (GeoJSON, KML): `limitsKmh` splits speeds into
/// `limitsKmh.count + 1` bands, slow (blue) to fast (red).
public struct SpeedBands: Sendable, Equatable {
    public let limitsKmh: [Double]

    public static let maxBands = 9

    /// A bike is not a car: the iOS tracker's car bands (50, 90, 110 km/h) would paint a whole
    /// ride one colour. Each activity gets bands around its usual speeds.
    public static func defaults(activity: String?) -> SpeedBands {
        switch Activity(name: activity) {
        case .run: return SpeedBands(checked: [8, 10, 12])  // ~7:30, 6:00, 5:00 min/km
        case .walk: return SpeedBands(checked: [3, 5, 6])
        case .drive: return SpeedBands(checked: [50, 90, 110])  // the iOS tracker's bands
        case .ride, nil: return SpeedBands(checked: [10, 20, 30])  // ride, and anything unknown
        }
    }

    /// Parses `10,20,30` (km/h, strictly increasing, positive, at most 8 limits).
    public static func parse(_ text: String) throws(ExportError) -> SpeedBands {
        var limits: [Double] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let s = part.trimmingSpaces
            guard let v = Double(s), v.isFinite, v > 0 else {
                throw ExportError("--speed-bands: '\(s)' is not a positive speed in km/h (use e.g. 10,20,30)")
            }
            if let last = limits.last, v <= last {
                throw ExportError(
                    "--speed-bands: limits must increase (\(TextFormat.trimmed(last, 3) ?? "?") then \(TextFormat.trimmed(v, 3) ?? "?"))")
            }
            limits.append(v)
        }
        guard limits.count + 1 <= maxBands else {
            throw ExportError("--speed-bands: at most \(maxBands - 1) limits (\(maxBands) bands), got \(limits.count)")
        }
        return SpeedBands(checked: limits)
    }

    init(checked limits: [Double]) { limitsKmh = limits }

    public var count: Int { limitsKmh.count + 1 }

    /// The band of a speed in m/s (a speed exactly on a limit belongs to the faster band).
    @inline(__always)
    public func band(speedMps: Double) -> Int {
        let kmh = speedMps * 3.6
        var b = 0
        while b < limitsKmh.count && kmh >= limitsKmh[b] { b += 1 }
        return b
    }

    public func label(_ band: Int) -> String {
        func n(_ v: Double) -> String { TextFormat.trimmed(v, 1) ?? "?" }
        if limitsKmh.isEmpty { return "all speeds" }
        if band == 0 { return "< \(n(limitsKmh[0])) km/h" }
        if band >= limitsKmh.count { return ">= \(n(limitsKmh[limitsKmh.count - 1])) km/h" }
        return "\(n(limitsKmh[band - 1]))-\(n(limitsKmh[band])) km/h"
    }

    /// ColorBrewer RdYlBu, reversed (slow blue, fast red), for 2 to 9 bands; 4 bands are the
    /// notes' #2c7bb6 #abd9e9 #fdae61 #d7191c.
    private static let palettes: [[UInt32]] = [
        [0x2c7bb6],
        [0x2c7bb6, 0xd7191c],
        [0x91bfdb, 0xffffbf, 0xfc8d59],
        [0x2c7bb6, 0xabd9e9, 0xfdae61, 0xd7191c],
        [0x2c7bb6, 0xabd9e9, 0xffffbf, 0xfdae61, 0xd7191c],
        [0x4575b4, 0x91bfdb, 0xe0f3f8, 0xfee090, 0xfc8d59, 0xd73027],
        [0x4575b4, 0x91bfdb, 0xe0f3f8, 0xffffbf, 0xfee090, 0xfc8d59, 0xd73027],
        [0x4575b4, 0x74add1, 0xabd9e9, 0xe0f3f8, 0xfee090, 0xfdae61, 0xf46d43, 0xd73027],
        [0x4575b4, 0x74add1, 0xabd9e9, 0xe0f3f8, 0xffffbf, 0xfee090, 0xfdae61, 0xf46d43, 0xd73027]
    ]

    public func rgb(_ band: Int) -> UInt32 {
        let p = Self.palettes[min(count, Self.maxBands) - 1]
        return p[min(max(band, 0), p.count - 1)]
    }

    private static let hex: [Character] = Array("0123456789abcdef")

    /// `#rrggbb` (simplestyle `stroke`).
    public func cssColour(_ band: Int) -> String {
        let c = rgb(band)
        var s = "#"
        for shift in stride(from: 20, through: 0, by: -4) { s.append(Self.hex[Int((c >> UInt32(shift)) & 0xF)]) }
        return s
    }

    /// KML `aabbggrr`, opaque.
    public func kmlColour(_ band: Int) -> String {
        let c = rgb(band)
        let r = (c >> 16) & 0xFF, g = (c >> 8) & 0xFF, b = c & 0xFF
        var s = "ff"
        for v in [b, g, r] { s.append(Self.hex[Int(v >> 4)]); s.append(Self.hex[Int(v & 0xF)]) }
        return s
    }
}

/// Splits a segment's points into runs of one speed band for the coloured writers. The line from
/// one point to the next takes the band of the later point's speed (the receiver's doppler
/// speed, or distance over time where it sent none); neighbouring runs share their boundary
/// point. A segment of one point becomes a run of that point twice (a line of zero length), so
/// every line has the two positions GeoJSON requires. Holds two points, whatever the trip length.
struct BandRunner {
    enum Step {
        /// Nothing to write yet (the segment's first point is held).
        case hold
        /// Append the point to the open run.
        case extend
        /// Close the open run (when there is one: `closedKmh` is its average speed), open one in
        /// `band` starting at `from`, then append the point.
        case open(band: Int, from: Fix, closedKmh: Double?)
    }

    let bands: SpeedBands
    private(set) var prev: Fix?
    private(set) var band: Int?
    private(set) var runSpeedSum = 0.0
    private(set) var runLines = 0

    init(bands: SpeedBands) { self.bands = bands }

    static func speed(from prev: Fix?, to fix: Fix) -> Double? {
        if let s = fix.speed, s.isFinite { return s }
        guard let p = prev else { return nil }
        let dt = (Double(fix.timeMs) - Double(p.timeMs)) / 1000
        return dt > 0 ? Geodesy.distance(p, fix) / dt : nil
    }

    mutating func add(_ fix: Fix) -> Step {
        defer { prev = fix }
        guard let p = prev else { return .hold }
        let speed = Self.speed(from: p, to: fix)
        let b = speed.map { bands.band(speedMps: $0) } ?? band ?? 0
        if let open = band, open == b {
            runLines += 1
            runSpeedSum += speed ?? 0
            return .extend
        }
        let closedKmh: Double? = band != nil ? runAverageKmh : nil
        band = b
        runLines = 1
        runSpeedSum = speed ?? 0
        return .open(band: b, from: p, closedKmh: closedKmh)
    }

    /// The average speed of the open run's lines, km/h.
    var runAverageKmh: Double { runLines > 0 ? runSpeedSum / Double(runLines) * 3.6 : 0 }

    /// Ends the segment. Returns the lone point when the segment had only one (no run opened),
    /// with its band and speed (km/h); the caller writes it as a run of that point twice.
    mutating func endSegment() -> (fix: Fix, band: Int, kmh: Double)? {
        defer { prev = nil; band = nil; runLines = 0; runSpeedSum = 0 }
        if band == nil, let p = prev {
            let s = PointValues.finite(p.speed) ?? 0
            return (p, bands.band(speedMps: s), s * 3.6)
        }
        return nil
    }

    /// Whether a run is open (so the caller must close it at the segment's end).
    var runIsOpen: Bool { band != nil }
}

extension Substring {
    var trimmingSpaces: String {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return String(s)
    }
}
