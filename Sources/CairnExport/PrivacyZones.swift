import CairnCore

/// A circle around a place the export must not show (home, work): `LAT,LON,RADIUS_M`.
public struct PrivacyZone: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var radiusM: Double

    public init(lat: Double, lon: Double, radiusM: Double) {
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
    }

    /// The largest radius taken: a bigger circle hides whole rides, which is a mistake.
    public static let maxRadiusM = 50_000.0

    /// Parses `LAT,LON,RADIUS_M` (decimal degrees, a sign allowed; metres, more than 0 and at
    /// most 50 km). Returns the reason when the text is not one.
    public static func parse(_ text: String) -> Result<PrivacyZone, ParseError> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { trim($0) }
        guard parts.count == 3 else {
            return .failure(ParseError("expected LAT,LON,RADIUS_M (e.g. 47.3769,8.5417,300), got '\(text)'"))
        }
        guard let lat = number(parts[0], signed: true), lat >= -90, lat <= 90 else {
            return .failure(ParseError("latitude '\(parts[0])' is not a number of degrees from -90 to 90"))
        }
        guard let lon = number(parts[1], signed: true), lon >= -180, lon <= 180 else {
            return .failure(ParseError("longitude '\(parts[1])' is not a number of degrees from -180 to 180"))
        }
        guard let r = number(parts[2], signed: false), r > 0, r <= maxRadiusM else {
            return .failure(ParseError("radius '\(parts[2])' is not a number of metres above 0 and up to 50000"))
        }
        return .success(PrivacyZone(lat: lat, lon: lon, radiusM: r))
    }

    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ d: String) { description = d }
    }

    @inline(__always)
    public func contains(_ fix: Fix) -> Bool {
        Geodesy.distance(lat1: lat, lon1: lon, lat2: fix.lat, lon2: fix.lon) <= radiusM
    }

    /// Plain decimal digits with an optional fraction and, for degrees, a leading minus:
    /// no exponent, hex, `inf` or `nan`.
    static func number(_ s: String, signed: Bool) -> Double? {
        var u = Array(s.utf8)[...]
        if signed, u.first == 45 { u = u.dropFirst() }
        guard !u.isEmpty, u.count <= 20, u.filter({ $0 == 46 }).count <= 1,
            u.contains(where: { $0 >= 48 && $0 <= 57 }),
            u.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 46 })
        else { return nil }
        return Double(s)
    }

    static func trim(_ s: Substring) -> String {
        var a = s
        while let f = a.first, f == " " || f == "\t" { a = a.dropFirst() }
        while let l = a.last, l == " " || l == "\t" { a = a.dropLast() }
        return String(a)
    }
}

/// Which of a trip's points an export with privacy zones keeps: everything from the first point
/// outside every zone to the last one. The runs inside a zone at the start and at the end are
/// left out; a ride that passes through a zone in between keeps those points. Found by a first
/// streamed pass over the trip (`see`), then applied by time (`keeps`): the reader hands over
/// points in strictly increasing time, so the two times name the kept stretch exactly, in
/// constant memory.
public struct PrivacyWindow: Sendable {
    public let zones: [PrivacyZone]
    public private(set) var firstKeptMs: Int64?
    public private(set) var lastKeptMs: Int64?
    /// Points seen by `see`.
    public private(set) var seen = 0
    private var seenBeforeFirst = 0
    private var seenAtLast = 0

    public init(zones: [PrivacyZone]) { self.zones = zones }

    public func isInZone(_ fix: Fix) -> Bool { zones.contains { $0.contains(fix) } }

    /// The first pass: each point of the trip, in order.
    public mutating func see(_ fix: Fix) {
        seen += 1
        guard !isInZone(fix) else { return }
        if firstKeptMs == nil { firstKeptMs = fix.timeMs; seenBeforeFirst = seen - 1 }
        lastKeptMs = fix.timeMs
        seenAtLast = seen
    }

    /// The second pass: whether this point goes into the export.
    @inline(__always)
    public func keeps(_ fix: Fix) -> Bool {
        guard let a = firstKeptMs, let b = lastKeptMs else { return false }
        return fix.timeMs >= a && fix.timeMs <= b
    }

    /// Points left out at the start and at the end.
    public var leftOutAtStart: Int { firstKeptMs == nil ? seen : seenBeforeFirst }
    public var leftOutAtEnd: Int { firstKeptMs == nil ? 0 : seen - seenAtLast }

    /// Every point was inside a zone: the export holds nothing of the trip.
    public var hidesAll: Bool { seen > 0 && firstKeptMs == nil }
}
