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
/// It fixes where each zone's cut lies and how far along each ride it reaches; without it, the
/// exports do not say where the protected place is.
public struct PrivacyKey: Sendable, Equatable {
    public static let byteCount = 16
    public let bytes: [UInt8]

    /// Nil unless `bytes` holds exactly `byteCount` bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    /// A keyed hash for `purpose` and `more`.
    func hash(_ purpose: String, _ more: [UInt64] = []) -> SipHash24 {
        var h = SipHash24(key: bytes)
        h.add(purpose)
        for m in more { h.add(m) }
        return h
    }

    /// A keyed number in [0, 1) for `purpose` and `more`.
    func unit(_ purpose: String, _ more: [UInt64] = []) -> Double { SipHash24.unit(hash(purpose, more).finalize()) }
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

/// Where a zone is really cut. Two things give a home away when rides are cut where they cross a
/// circle: the circle (fitted through the cut points of a few rides: its centre, and from the
/// radii a ring around it) and the streets (every ride leaves home along home's street, so the
/// first and last written stretches, drawn back, meet near the door). And a third: two different
/// cuts of one place (a zone edited by a metre, moved by a few) publish points each other hid,
/// and together narrow it down. So:
/// - **The disc is a square's, not home's.** The zone's radius `r` is taken up to its class
///   `R = 100 m × 2^(k + φ)` (the smallest at least `1.5 r`, `φ` in [0, 1) from the key). The plane is
///   cut into squares by a keyed grid (a keyed origin and turn), one grid a class, each square of
///   class `k + 1` made of four of class `k`, `4 R` across. A zone is cut at its class, or above
///   it while home lies within 1/40 of the square's side of its edge (`edgeShare`): at the class
///   of the first square that holds home with that margin all round, two classes up at most. The disc left out is around
///   that square's centre, radius half its diagonal (× 1.05 for the plane's distortion) plus
///   `R`: the asked disc is inside wherever home is in the square, and the disc's centre says
///   only which square. The cut points' mean leans from the disc's centre halfway to home (rays
///   from a point inside a circle cross it, on average, halfway between that point and the
///   centre), so the square is wide enough that home lies at least `2 r` from the centre for
///   four zones in five (`R` at least `1.5 r`: 0.19 of zones within `2 r`; at least `r` was
///   0.42). Taking a class up keeps the squares of 0.4: the new cut of a zone holds the old.
/// - **Each ride is cut along its own path.** Every visit of a ride to the disc is left out
///   from a keyed distance along the path before it enters to a keyed distance after it leaves
///   (`1.125 R` to `2.125 R` each, the share from the key, the trip and the side): the rides' cut
///   points lie on no common circle, and the first written stretch is further from home.
/// - **The written ends point at the disc.** The cut then goes on up to `R` more of path, to
///   where the written stretch beyond it, drawn back, passes nearest the disc's centre
///   (`PrivacyReach`).
/// - **Edits nest.** A zone moved by up to `r / 10` or resized by any amount (unless its square
///   climbed as far as it may and home is still near its edge, `maxClimb`) gets a cut that
///   holds the first or is held by it, never a second cut beside it: two zones whose centres are
///   that close are cut at classes `a <= b` in squares that nest (the one cut at `b` lies at least
///   its margin inside its square, so the other's centre is in that square too); a larger radius
///   only raises the class; and a square's cut holds the cuts of the squares inside it (its disc
///   holds theirs, and its least reach beyond the disc, `2.25 R` of theirs, is at least their
///   most reach plus their aim, with `R / 8` to spare for the path's spacing: the reach's keyed
///   share is the same at every class). Published with both, the rides show no more than the
///   smaller cut alone.
/// Pure: the key comes from the caller (`ExportStageOptions` reads it).
public enum PrivacyCut {
    /// The square's side, in class radii.
    static let cellShare = 4.0
    /// The least class radius, in zone radii: home lies `0.4 × 4 R`, at least `2.4 r`, from its
    /// square's centre at the median (issue 38: with `R` at least `r`, the cut points' mean, which
    /// leans halfway from the disc's centre to home, found home within `r` over a key's homes).
    public static let classShare = 1.5
    /// How close to its square's edge (a share of the side) home may lie at a level before the
    /// zone is cut at the next: the largest centre move that keeps two cuts nested.
    static let edgeShare = 1.0 / 40
    /// The least each visit's cut reaches along the path beyond the disc, and how much more at
    /// most, in class radii.
    static let reachLeast = 1.125
    static let reachShare = 1.0
    /// How much further (class radii) a visit's cut may go to aim its written ends at the disc's
    /// centre (`PrivacyReach`): small enough that the next class's least reach (twice this
    /// class's) passes this class's aimed end.
    static let aimShare = 1.0
    /// Margin for the plane's rounding: the asked disc is inside the cut by at least this.
    static let marginM = 1.0
    /// The smallest radius class before the keyed phase.
    static let smallestClassM = 100.0
    static let metresPerDegree = Geodesy.earthRadiusM * .pi / 180
    /// The most classes a zone climbs above its own for its margin. A line that is an edge at one
    /// class is one at the next with odds of one in two, so a zone near it climbs again and
    /// again (one in ten climbs once, one in 20 twice, one in 40 three times...), each class
    /// doubling its cut: two at most, and the one zone in 40 still near an edge then is cut
    /// there (a move across that edge is a second cut).
    static let maxClimb = 2

    /// The radius class of `r` under `key`: `100 m × 2^(step + φ)`, the smallest at least
    /// `1.5 r` (`classShare`). One of 0.4's classes (at least `r`) or the next: its square holds
    /// 0.4's, so its cut holds the cut exports made before.
    public static func radiusClass(_ r: Double, key: PrivacyKey, share: Double = classShare) -> (step: Int, metres: Double) {
        let base = baseM(key)
        var step = 0
        // 50 km (the largest zone) is below step 10; the bound keeps a NaN from looping.
        while base * exp2(Double(step)) < share * r && step < 40 { step += 1 }
        return (step, base * exp2(Double(step)))
    }

    static func baseM(_ key: PrivacyKey) -> Double { smallestClassM * exp2(key.unit("cairn privacy class")) }

    /// Home's square: the class (level) the zone is cut at, its side, the square's indices, its
    /// centre (degrees), and the class radius the zone is cut with. `share`: the least class in
    /// zone radii (0.4's was 1; tests compare).
    public static func square(_ zone: PrivacyZone, key: PrivacyKey, share: Double = classShare) -> (
        level: Int, sideM: Double, ix: Int64, iy: Int64, lat: Double, lon: Double, classM: Double
    ) {
        let step = radiusClass(zone.radiusM, key: key, share: share).step
        let least = step
        let base = baseM(key)
        // The plane: north metres, and east metres at the cosine of a keyed one-degree band's
        // middle (the band's edge a keyed line, not a round latitude).
        let bandPhase = key.unit("cairn privacy band")
        let band = (zone.lat + bandPhase).rounded(.down) - bandPhase + 0.5
        let eastScale = max(cos(band * .pi / 180), 1e-3)
        let x = zone.lon * metresPerDegree * eastScale
        let y = zone.lat * metresPerDegree
        let turn = key.unit("cairn privacy turn") * .pi / 2
        let (c, s) = (cos(turn), sin(turn))
        let ox = key.unit("cairn privacy origin", [1]) * 1e6
        let oy = key.unit("cairn privacy origin", [2]) * 1e6
        var level = least
        var side = cellShare * base
        for _ in 0..<level { side *= 2 }
        var u = (c * x + s * y - ox) / side
        var v = (-s * x + c * y - oy) / side
        func clear(_ w: Double) -> Bool {
            let f = w - w.rounded(.down)
            return !(f < edgeShare || f > 1 - edgeShare)
        }
        // Up a class while home is near its square's edge (a class's squares hold four of the one below).
        while !(clear(u) && clear(v)) && level < least + maxClimb {
            level += 1
            side *= 2
            u /= 2
            v /= 2
        }
        let ix = u.rounded(.down), iy = v.rounded(.down)
        let cu = (ix + 0.5) * side + ox, cv = (iy + 0.5) * side + oy
        let cx = c * cu - s * cv, cy = s * cu + c * cv
        var lon = cx / (metresPerDegree * eastScale)
        lon = lon - 360 * ((lon + 180) / 360).rounded(.down)
        let lat = min(max(cy / metresPerDegree, -90), 90)
        let classM = base * exp2(Double(level))
        return (level, side, Int64(ix), Int64(iy), lat, lon, classM)
    }

    /// The class radius the zone is cut with (its square's, when it climbed).
    static func levelM(_ zone: PrivacyZone, key: PrivacyKey) -> Double { square(zone, key: key).classM }

    /// The disc left out of every ride of `zone`: around the centre of home's square, covering
    /// the asked disc wherever in the square home is.
    public static func disc(_ zone: PrivacyZone, key: PrivacyKey) -> CutCircle {
        let q = square(zone, key: key)
        let planned = q.sideM / 2.0.squareRoot() * 1.05 + q.classM + marginM
        // Near the poles the plane is no square: never less than the asked disc needs.
        let needed = Geodesy.distance(lat1: zone.lat, lon1: zone.lon, lat2: q.lat, lon2: q.lon) + zone.radiusM + marginM
        return CutCircle(lat: q.lat, lon: q.lon, radiusM: max(planned, needed))
    }

    /// How far along the path beyond the disc a ride's visit is cut (metres): `side` 0 before
    /// it enters, 1 after it leaves; `1.125 R` to `2.125 R`, the share from the key, the trip and
    /// the side alone (the same share at every class, so a larger class's cut reaches further on
    /// every ride: edits nest). `atMs` is not used.
    public static func reach(_ zone: PrivacyZone, key: PrivacyKey, tripId: UInt64, atMs: Int64, side: UInt64) -> Double {
        let u = key.unit("cairn privacy reach 3", [tripId, side])
        return (reachLeast + reachShare * u) * levelM(zone, key: key)
    }

    /// The most any visit is cut beyond the disc (before the aim).
    static func longestReach(_ zone: PrivacyZone, key: PrivacyKey) -> Double {
        (reachLeast + reachShare) * levelM(zone, key: key)
    }

    /// The radius below which a zone is cut at the smallest class whatever the key: every zone
    /// under it hides as much as one of this radius.
    public static var smallestOwnRadiusM: Double { smallestClassM / classShare }

    /// The least radius of the disc any zone's cut leaves out: the smallest class (its phase 0),
    /// its square's half diagonal and the margin (`disc`).
    public static var leastDiscM: Double { cellShare * smallestClassM / 2.0.squareRoot() * 1.05 + smallestClassM + marginM }

    /// What a rider giving a small zone (a 10 m one around the front door) is told, nil for a
    /// zone at or above `smallestOwnRadiusM`: that it is used, that it hides far more than its
    /// circle, and that a smaller radius hides no less. `source` names where it was given
    /// (`--privacy-zone 47.1,8.5,10`, `/etc/cairn.conf:12: privacy-zone`).
    public static func smallZoneNote(_ zone: PrivacyZone, source: String) -> String? {
        guard zone.radiusM < smallestOwnRadiusM else { return nil }
        func metres(_ m: Double) -> String {
            let whole = m.rounded(.down)
            return whole == m ? String(Int(whole)) : String(Double((m * 10).rounded()) / 10)
        }
        return "\(source): a radius of \(metres(zone.radiusM)) m is used, and cut as every zone is: each ride leaves out a disc at least "
            + "\(Int(leastDiscM.rounded(.down))) m in radius around a keyed point near it (and a stretch beyond), not a \(metres(zone.radiusM)) m "
            + "circle; any radius up to \(Int(smallestOwnRadiusM.rounded(.down))) m hides the same (Sources/CairnExport/Stages/PRIVACY.md)"
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

    /// The discs left out of every trip (with a key, each ride is cut further along its path:
    /// `window(for:)`).
    public var discs: [CutCircle] {
        zones.map { z in key.map { PrivacyCut.disc(z, key: $0) } ?? PrivacyCut.exact(z) }
    }

    /// The widest circles cut from any trip: the discs.
    public var widest: [CutCircle] { discs }

    /// The window for `trip`: its points in the discs, and with a key each visit to a disc from
    /// a keyed distance along the path before it to one after it. Reads the trip once; a trip
    /// that cannot be read to its end hides everything after the last point read.
    public func window(for trip: TripRef) -> PrivacyWindow {
        var reach = reaches(tripId: trip.id)
        guard !reach.isEmpty else { return PrivacyWindow(cuts: discs) }
        var last: Int64?
        do {
            try TripCatalog.read(trip) { e in
                if case .point(let f) = e {
                    for i in reach.indices { reach[i].add(f) }
                    last = f.timeMs
                }
            }
        } catch {
            return PrivacyWindow(cuts: discs, hidden: PrivacyReach.merge(reach.indices.flatMap { reach[$0].finish() } + [(last ?? .min)...Int64.max]))
        }
        return PrivacyWindow(cuts: discs, hidden: PrivacyReach.merge(reach.indices.flatMap { reach[$0].finish() }))
    }

    /// A window made from points given in order (`window(for:)` reads them from the trip).
    public func window(tripId: UInt64, points: [Fix]) -> PrivacyWindow {
        var reach = reaches(tripId: tripId)
        for f in points { for i in reach.indices { reach[i].add(f) } }
        return PrivacyWindow(cuts: discs, hidden: PrivacyReach.merge(reach.indices.flatMap { reach[$0].finish() }))
    }

    func reaches(tripId: UInt64) -> [PrivacyReach] {
        guard let key else { return [] }
        return zones.map { z in
            PrivacyReach(
                disc: PrivacyCut.disc(z, key: key), longest: PrivacyCut.longestReach(z, key: key),
                aim: PrivacyCut.aimShare * PrivacyCut.levelM(z, key: key),
                reach: { at, side in PrivacyCut.reach(z, key: key, tripId: tripId, atMs: at, side: side) })
        }
    }

    /// The name of the cells index walked with these zones left out (`.cairn-cells-` and a keyed
    /// hash of the zones, which says nothing of them): another zone set, another index.
    public var cellIndexName: String { ".cairn-cells-" + keyedHash("cairn cells index 2") }

    /// A keyed hash of the zones that says nothing of them: what a delivery's receipt names, so
    /// that a zone added, moved or dropped sends every trip again, cut anew.
    public var fingerprint: String { keyedHash("cairn delivery zones 2") }

    private func keyedHash(_ purpose: String) -> String {
        var h = SipHash24(key: key?.bytes ?? [UInt8](repeating: 0, count: PrivacyKey.byteCount))
        h.add(purpose)
        for z in zones { z.identity(into: &h) }
        let x = h.finalize()
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<16).map { digits[Int((x >> (60 - 4 * UInt64($0))) & 0xf)] }, as: UTF8.self)
    }

    /// Whether an explored cell (its bounds) touches any zone's disc.
    public func hidesCell(south: Double, west: Double, north: Double, east: Double) -> Bool {
        widest.contains { $0.touches(south: south, west: west, north: north, east: east) }
    }
}

/// One zone's cut along one trip's path, from its points in order. Each visit to the disc (a run
/// of points inside it) is left out from `reach(entry, 0)` metres of path before its first point
/// to `reach(entry, 1)` metres after its last, and then up to `aim` metres further: to where the
/// written stretch beyond the cut (its next 150 m), drawn back, passes nearest the disc's centre.
/// Every ride leaves home, so the ends of many rides drawn back lean towards home, whatever the
/// cut's reach, and their errors average out; aimed, they lean towards the disc's centre, which
/// says only which square home is in. Visits whose cuts meet are one. Holds the path's last
/// `longest + aim + 200` metres (at most 4,097 entries, thinned), whatever the trip's length.
struct PrivacyReach {
    let disc: CutCircle
    let longest: Double
    let aim: Double
    let reach: (Int64, UInt64) -> Double
    private let plane: LocalPlane
    private let spacing: Double
    private var walked = 0.0
    private var previous: (lat: Double, lon: Double)?
    private var path = RingBuffer<Step>(capacity: 4097)
    /// The cut being made: its first time, its last, and (after the disc) from where along the
    /// path its end is chosen.
    private var start: Int64?
    private var end: Int64 = 0
    private var until: Double?
    private var visitMs: Int64 = 0
    private var done: [ClosedRange<Int64>] = []

    struct Step {
        var t: Int64
        var at: Double
        var east: Double
        var north: Double
    }

    /// The length of path whose line a written end is drawn back along.
    static let lineM = 150.0
    /// The candidates' spacing along the path.
    static let candidateM = 10.0

    init(disc: CutCircle, longest: Double, aim: Double, reach: @escaping (Int64, UInt64) -> Double) {
        self.disc = disc
        self.longest = longest
        self.aim = aim
        self.reach = reach
        plane = LocalPlane(lat: disc.lat, lon: disc.lon)
        spacing = (longest + aim + Self.lineM + 50) / 4096
    }

    mutating func add(_ f: Fix) {
        guard f.lat.isFinite && f.lon.isFinite else { return }
        if let p = previous { walked += Geodesy.distance(lat1: p.lat, lon1: p.lon, lat2: f.lat, lon2: f.lon) }
        previous = (f.lat, f.lon)
        let inside = disc.contains(f)
        if inside && start == nil {
            visitMs = f.timeMs
            start = before(walked - reach(f.timeMs, 0)) ?? f.timeMs
        }
        if inside {
            until = nil
            end = f.timeMs
        } else if start != nil && until == nil {
            until = walked + reach(visitMs, 1)
        }
        // Kept thinned (one entry per `spacing` metres of path; every point inside the disc, which
        // the cut holds anyway, is as good as none).
        if path.last.map({ walked - $0.at >= spacing }) ?? true {
            if path.isFull { _ = path.popFirst() }
            let e = plane.local(lat: f.lat, lon: f.lon)
            path.append(Step(t: f.timeMs, at: walked, east: e.east, north: e.north))
        }
        if let u = until, walked > u + aim + Self.lineM {
            close(after: u)
        }
    }

    /// The time from which a cut starts, for a visit whose cut reaches back to `from` metres of
    /// path: just after the last point at or before `from - x` (x up to `aim`) whose stretch of
    /// path before it, drawn on towards the disc, passes nearest the disc's centre; nil when the
    /// path held starts later (the cut then starts with the trip's held points).
    private func before(_ from: Double) -> Int64? {
        var best: (off: Double, t: Int64)?
        var plain: Int64?
        var i = path.count - 1
        // The first entry at or before `from`: the plain cut starts just after it.
        while i >= 0 && path[i].at > from { i -= 1 }
        guard i >= 0 else { return path.first?.t }
        plain = path[i].t &+ 1
        var x = from
        var j = i
        while x >= from - aim {
            while j >= 0 && path[j].at > x { j -= 1 }
            guard j >= 0 else { break }
            // The stretch before it: back to the entry `lineM` earlier.
            var k = j
            while k >= 0 && path[k].at > path[j].at - Self.lineM { k -= 1 }
            guard k >= 0 else { break }
            if let off = offset(from: path[j], along: path[k]), off < (best?.off ?? .infinity) { best = (off, path[j].t &+ 1) }
            x -= Self.candidateM
        }
        return best?.t ?? plain
    }

    /// Ends the cut of the visit that left the disc: just before the first point at or after
    /// `u + x` (x up to `aim`) whose next stretch of path, drawn back, passes nearest the disc's
    /// centre; with no path after `u`, at the trip's end.
    private mutating func close(after u: Double) {
        guard let s = start else { return }
        var first = 0
        while first < path.count && path[first].at < u { first += 1 }
        guard first < path.count else { return }
        var best: (off: Double, t: Int64)?
        var x = u
        var j = first
        while x <= u + aim {
            while j < path.count && path[j].at < x { j += 1 }
            guard j < path.count else { break }
            var k = j
            while k < path.count && path[k].at < path[j].at + Self.lineM { k += 1 }
            guard k < path.count else { break }
            if let off = offset(from: path[j], along: path[k]), off < (best?.off ?? .infinity) { best = (off, path[j].t) }
            x += Self.candidateM
        }
        let t = (best?.t ?? path[first].t) &- 1
        done.append(s...max(s, t))
        start = nil
        until = nil
    }

    /// How far from the disc's centre the line from `p` away from `q` passes, when the centre
    /// lies that way (behind the written stretch from `p` to `q`); nil otherwise.
    private func offset(from p: Step, along q: Step) -> Double? {
        let ux = q.east - p.east, uy = q.north - p.north
        let l = (ux * ux + uy * uy).squareRoot()
        guard l > Self.lineM / 3 else { return nil }
        let cx = -p.east, cy = -p.north
        guard cx * ux + cy * uy < 0 else { return nil }
        return abs(ux * cy - uy * cx) / l
    }

    /// The time ranges left out: a cut whose end the trip did not reach reaches to the end; one
    /// past its reach, to the best end the path held.
    mutating func finish() -> [ClosedRange<Int64>] {
        guard let s = start else { return done }
        if let u = until, walked > u {
            close(after: u)
            if start == nil { return done }
        }
        return done + [s...Int64.max]
    }

    /// Sorted, overlapping ranges joined.
    static func merge(_ r: [ClosedRange<Int64>]) -> [ClosedRange<Int64>] {
        var out: [ClosedRange<Int64>] = []
        for x in r.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let l = out.last, x.lowerBound <= l.upperBound {
                out[out.count - 1] = l.lowerBound...max(l.upperBound, x.upperBound)
            } else {
                out.append(x)
            }
        }
        return out
    }
}

/// Which of a trip's points an export with privacy zones writes: none inside any zone's cut
/// circle, wherever in the ride (the start, the end, a stop at home in the middle). Applied to
/// every point just before it is written (after smoothing and gap filling), so no option moves a
/// written point into a zone. `see` counts, for a first pass or as the points go by, how many
/// points and stretches are left out.
public struct PrivacyWindow: Sendable {
    public let cuts: [CutCircle]
    /// Times (ms) left out whatever the position: each ride's cut along its path (`PrivacyReach`).
    public let hidden: [ClosedRange<Int64>]
    /// Points seen by `see`, of them left out, and the runs of left-out points.
    public private(set) var seen = 0
    public private(set) var leftOut = 0
    public private(set) var stretches = 0
    private var inStretch = false

    public init(cuts: [CutCircle], hidden: [ClosedRange<Int64>] = []) {
        self.cuts = cuts
        self.hidden = hidden
    }

    /// The zones cut as asked (no key): tests, and what the key moves.
    public init(zones: [PrivacyZone]) { self.init(cuts: zones.map(PrivacyCut.exact)) }

    @inline(__always)
    public func isInZone(_ fix: Fix) -> Bool { cuts.contains { $0.contains(fix) } || isHidden(fix.timeMs) }

    /// Whether the time lies in a cut along the path (binary search).
    public func isHidden(_ t: Int64) -> Bool {
        var lo = 0, hi = hidden.count
        while lo < hi {
            let m = (lo + hi) / 2
            if hidden[m].upperBound < t { lo = m + 1 } else { hi = m }
        }
        return lo < hidden.count && hidden[lo].contains(t)
    }

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
/// With the rider's end press (`EndCut`), nothing after it, as the exports.
public struct PrivacyFilter: Sendable {
    public let window: PrivacyWindow?
    private var wrote = false
    private var hiding = false
    public private(set) var leftOut = 0
    public private(set) var stretches = 0

    /// The rider's end press, cut as the exports cut it (`EndCut`).
    public private(set) var endCut: EndCut

    /// `wheel`: the trip's wheel, for a press in its ride before the first point (`EndCut`).
    public init(window: PrivacyWindow?, endPressMs: Int64? = nil, wheel: WheelTrack? = nil) {
        self.window = window
        endCut = EndCut(endMs: endPressMs, wheel: wheel)
    }

    public mutating func pass(_ event: TripEvent, to visit: (TripEvent) -> Void) {
        // After the end press nothing more is passed, not even a segment's start.
        if endCut.after > 0, case .segment = event { return }
        guard case .point(let f) = event else { return visit(event) }
        if endCut.cuts(f, placed: wrote || hiding) { return }
        guard let w = window else {
            wrote = true
            return visit(event)
        }
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
