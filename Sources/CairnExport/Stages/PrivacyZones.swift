#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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

    /// Whether the fix lies in the disc the rider asked for (not the cut: see `PrivacyCut`).
    @inline(__always)
    public func contains(_ fix: Fix) -> Bool {
        Geodesy.distance(lat1: lat, lon1: lon, lat2: fix.lat, lon2: fix.lon) <= radiusM
    }

    /// The zone as the keyed hashes see it: its centre to 1e-6° and its radius to 0.1 m, so the
    /// same zone written another way (`47.37690` and `47.3769`) gets the same offset.
    func identity(into h: inout SipHash24) {
        h.add(UInt64(bitPattern: Int64((lat * 1e6).rounded())))
        h.add(UInt64(bitPattern: Int64((lon * 1e6).rounded())))
        h.add(UInt64(bitPattern: Int64((radiusM * 10).rounded())))
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

/// The board's secret for privacy zones: 16 random bytes (`privacy-key` in the log directory).
/// It fixes where each zone's cut circle lies and how far each ride's cut reaches; without it,
/// the exports do not say where the protected place is.
public struct PrivacyKey: Sendable, Equatable {
    public static let byteCount = 16
    public let bytes: [UInt8]

    /// Nil unless `bytes` holds exactly `byteCount` bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A keyed hash of the zone as `PrivacyCut` places it: its radius class and its centre on a
    /// 0.1° grid, never its exact digits, so the zone edited a little (moved a metre, 500 m made
    /// 501 m) keeps its offset and its rides keep their radii' shares.
    func hash(_ purpose: String, _ zone: PrivacyZone, _ more: [UInt64] = []) -> SipHash24 {
        var h = SipHash24(key: bytes)
        h.add(purpose)
        h.add(UInt64(PrivacyCut.radiusClass(zone.radiusM).step))
        h.add(UInt64(bitPattern: Int64((zone.lat * 10).rounded(.down))))
        h.add(UInt64(bitPattern: Int64((zone.lon * 10).rounded(.down))))
        for m in more { h.add(m) }
        return h
    }
}

/// The circle an export really cuts: every point in it is left out.
public struct CutCircle: Sendable, Equatable {
    public var lat: Double
    public var lon: Double
    public var radiusM: Double

    public init(lat: Double, lon: Double, radiusM: Double) {
        self.lat = lat
        self.lon = lon
        self.radiusM = radiusM
    }

    @inline(__always)
    public func contains(lat: Double, lon: Double) -> Bool {
        // A position that is no number is never written anyway; NaN compares false, so say "in".
        let d = Geodesy.distance(lat1: self.lat, lon1: self.lon, lat2: lat, lon2: lon)
        return !(d > radiusM)
    }

    @inline(__always)
    public func contains(_ fix: Fix) -> Bool { contains(lat: fix.lat, lon: fix.lon) }

    /// Whether any part of the box (degrees) lies in the circle: the box's nearest point to the
    /// centre (longitudes the short way round) is within the radius.
    public func touches(south: Double, west: Double, north: Double, east: Double) -> Bool {
        let la = min(max(lat, south), north)
        var lo = lon
        if !(west <= lo && lo <= east) {
            // The nearer edge, the short way round the ±180° line.
            func gap(_ edge: Double) -> Double {
                let d = abs(edge - lon).truncatingRemainder(dividingBy: 360)
                return min(d, 360 - d)
            }
            lo = gap(west) <= gap(east) ? west : east
        }
        return contains(lat: la, lon: lo)
    }
}

/// Where a zone is really cut (the defence against fitting a circle through the ends of many
/// exported rides, which finds the centre of the cut):
/// - the zone's radius `r` is taken up to its class `R = 100 m × √2^k`, the smallest at least `r`
///   (at least 100 m);
/// - the cut circle's centre is moved off the protected place by a secret offset: a bearing and a
///   length `L` from `R` to `1.5 R`, from a keyed hash of the class and the zone's centre on a
///   0.1° grid (never its exact digits: a zone edited by a metre keeps its offset, so exports
///   before and after the edit give the same ring, not two that cross near home); never drawn
///   anew per ride, which would average out; the fitted centre is at least `r` from home;
/// - each ride's cut radius is `r + L` (so the whole asked disc is always inside the cut) plus a
///   per-ride share of up to `R/2`, from the key, the zone's class and grid cell, the trip's id
///   and its first file's salt: a re-export gives the same bytes, and the spread of the radii
///   over many rides tells the class, not `r`; an attacker learns at most `r + L`, so home lies
///   in an annulus of width at least `r/2` around the fitted centre, not on a ring.
/// Pure: the key comes from the caller (`ExportStageOptions` reads or makes the file).
public enum PrivacyCut {
    /// The secret offset's length as a share of the radius class: [1, 1.5].
    static let offsetShare = 1.0...1.5
    /// The most a ride's cut reaches beyond `r + L`, as a share of the radius class.
    static let rideShare = 0.5
    /// Margin for the plane's rounding: the asked disc is inside the cut by at least this.
    static let marginM = 1.0
    /// The smallest radius class.
    static let smallestClassM = 100.0

    /// The radius class of `r`: `100 m × √2^step`, the smallest at least `r` (100 m for
    /// `r <= 100`).
    public static func radiusClass(_ r: Double) -> (step: Int, metres: Double) {
        var step = 0
        // Exact powers for even steps, so 200, 400, 800 m are their own classes.
        func metres(_ k: Int) -> Double {
            var m = smallestClassM
            for _ in 0..<(k / 2) { m *= 2 }
            return k % 2 == 1 ? m * 2.0.squareRoot() : m
        }
        // 50 km (the largest zone) is step 18; the bound keeps a NaN from looping.
        while metres(step) < r && step < 40 { step += 1 }
        return (step, metres(step))
    }

    /// The secret offset of `zone`'s cut centre from the protected place, in metres east and
    /// north: the same for every zone of the same class and 0.1° grid cell under one key.
    public static func offset(_ zone: PrivacyZone, key: PrivacyKey) -> (east: Double, north: Double, lengthM: Double) {
        let h = key.hash("cairn privacy offset", zone)
        var hb = h
        hb.add(1)
        var hd = h
        hd.add(2)
        let bearing = 2 * Double.pi * SipHash24.unit(hb.finalize())
        let share = offsetShare.lowerBound + (offsetShare.upperBound - offsetShare.lowerBound) * SipHash24.unit(hd.finalize())
        let l = radiusClass(zone.radiusM).metres * share
        return (l * sin(bearing), l * cos(bearing), l)
    }

    /// The offset centre of `zone`'s cut circles and its distance from the protected place.
    public static func centre(_ zone: PrivacyZone, key: PrivacyKey) -> (lat: Double, lon: Double, offsetM: Double) {
        let o = offset(zone, key: key)
        let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
        let g = plane.global(east: o.east, north: o.north)
        let lat = min(max(g.lat, -90), 90)
        return (lat, g.lon, Geodesy.distance(lat1: zone.lat, lon1: zone.lon, lat2: lat, lon2: g.lon))
    }

    /// The radius of every cut of `zone` before the ride's share: covers the asked disc from the
    /// offset centre (the larger of the planned and the measured offset, with the margin).
    static func baseRadius(_ zone: PrivacyZone, key: PrivacyKey, centre c: (lat: Double, lon: Double, offsetM: Double)) -> Double {
        zone.radiusM + max(c.offsetM, offset(zone, key: key).lengthM) + marginM
    }

    /// The circle cut from the ride whose first log file is `salt` of trip `tripId`.
    public static func circle(_ zone: PrivacyZone, key: PrivacyKey, tripId: UInt64, salt: UInt32) -> CutCircle {
        let c = centre(zone, key: key)
        let h = key.hash("cairn privacy ride", zone, [tripId, UInt64(salt)])
        let extra = radiusClass(zone.radiusM).metres * rideShare * SipHash24.unit(h.finalize())
        return CutCircle(lat: c.lat, lon: c.lon, radiusM: baseRadius(zone, key: key, centre: c) + extra)
    }

    /// The largest circle any ride of `zone` is cut by: what a view over many trips (explored
    /// cells) leaves out.
    public static func widest(_ zone: PrivacyZone, key: PrivacyKey) -> CutCircle {
        let c = centre(zone, key: key)
        return CutCircle(
            lat: c.lat, lon: c.lon, radiusM: baseRadius(zone, key: key, centre: c) + radiusClass(zone.radiusM).metres * rideShare)
    }

    /// The zone cut exactly (no key): for tests and to compare.
    public static func exact(_ zone: PrivacyZone) -> CutCircle { CutCircle(lat: zone.lat, lon: zone.lon, radiusM: zone.radiusM) }
}

/// The privacy zones of an export and the board's key: what `PrivacyWindow` is made from for each
/// trip. Without a key (tests), the zones are cut as asked.
public struct PrivacyZones: Sendable {
    public var zones: [PrivacyZone]
    public var key: PrivacyKey?

    public init(_ zones: [PrivacyZone] = [], key: PrivacyKey? = nil) {
        self.zones = zones
        self.key = key
    }

    public var isEmpty: Bool { zones.isEmpty }

    /// The circles cut from one trip.
    public func cuts(tripId: UInt64, salt: UInt32) -> [CutCircle] {
        zones.map { z in key.map { PrivacyCut.circle(z, key: $0, tripId: tripId, salt: salt) } ?? PrivacyCut.exact(z) }
    }

    /// The widest circles cut from any trip.
    public var widest: [CutCircle] {
        zones.map { z in key.map { PrivacyCut.widest(z, key: $0) } ?? PrivacyCut.exact(z) }
    }

    /// The window for `trip`: cut by its own circles (its id and first file's salt).
    public func window(for trip: TripRef) -> PrivacyWindow {
        PrivacyWindow(cuts: cuts(tripId: trip.id, salt: trip.files.first?.header.salt ?? 0))
    }

    /// The name of the cells index walked with these zones left out (`.cairn-cells-` and a keyed
    /// hash of the zones, which says nothing of them): another zone set, another index.
    public var cellIndexName: String { ".cairn-cells-" + keyedHash("cairn cells index") }

    /// A keyed hash of the zones that says nothing of them: what a delivery's receipt names, so
    /// that a zone added, moved or dropped sends every trip again, cut anew.
    public var fingerprint: String { keyedHash("cairn delivery zones") }

    private func keyedHash(_ purpose: String) -> String {
        var h = SipHash24(key: key?.bytes ?? [UInt8](repeating: 0, count: PrivacyKey.byteCount))
        h.add(purpose)
        for z in zones { z.identity(into: &h) }
        let x = h.finalize()
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<16).map { digits[Int((x >> (60 - 4 * UInt64($0))) & 0xf)] }, as: UTF8.self)
    }

    /// Whether an explored cell (its bounds) touches any zone's widest cut.
    public func hidesCell(south: Double, west: Double, north: Double, east: Double) -> Bool {
        widest.contains { $0.touches(south: south, west: west, north: north, east: east) }
    }
}

/// Which of a trip's points an export with privacy zones writes: none inside any zone's cut
/// circle, wherever in the ride (the start, the end, a stop at home in the middle). Applied to
/// every point just before it is written (after smoothing and gap filling), so no option moves a
/// written point into a zone. `see` counts, for a first pass or as the points go by, how many
/// points and stretches are left out.
public struct PrivacyWindow: Sendable {
    public let cuts: [CutCircle]
    /// Points seen by `see`, of them left out, and the runs of left-out points.
    public private(set) var seen = 0
    public private(set) var leftOut = 0
    public private(set) var stretches = 0
    private var inStretch = false

    public init(cuts: [CutCircle]) { self.cuts = cuts }

    /// The zones cut as asked (no key): tests, and what the key moves.
    public init(zones: [PrivacyZone]) { cuts = zones.map(PrivacyCut.exact) }

    @inline(__always)
    public func isInZone(_ fix: Fix) -> Bool { cuts.contains { $0.contains(fix) } }

    /// Whether this point may be written.
    @inline(__always)
    public func keeps(_ fix: Fix) -> Bool { !isInZone(fix) }

    /// Counts one point of the trip, in order.
    public mutating func see(_ fix: Fix) {
        seen += 1
        if isInZone(fix) {
            leftOut += 1
            if !inStretch { stretches += 1 }
            inStretch = true
        } else {
            inStretch = false
        }
    }

    /// Every point seen was inside a zone: the export holds nothing of the trip.
    public var hidesAll: Bool { seen > 0 && leftOut == seen }
}

/// A trip's events as a view that shows positions sees them (`render`): the points inside a
/// zone's cut left out, and a segment start (`SegmentReason.hidden`) before the first point
/// after a left-out stretch, so nothing draws a line through a zone. Counts what it left out.
public struct PrivacyFilter: Sendable {
    public let window: PrivacyWindow?
    private var wrote = false
    private var hiding = false
    public private(set) var leftOut = 0
    public private(set) var stretches = 0

    public init(window: PrivacyWindow?) { self.window = window }

    public mutating func pass(_ event: TripEvent, to visit: (TripEvent) -> Void) {
        guard let w = window, case .point(let f) = event else { return visit(event) }
        if !w.keeps(f) {
            leftOut += 1
            if !hiding { stretches += 1 }
            hiding = true
            return
        }
        if hiding && wrote { visit(.segment(.hidden)) }
        hiding = false
        wrote = true
        visit(event)
    }
}
