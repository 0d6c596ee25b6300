import CairnCore
import Foundation
import XCTest

@testable import CairnExport

/// Where a privacy zone is really cut (`PrivacyCut`, `PrivacyZones`): off home by a secret
/// offset fixed per key and zone, a per-ride radius, always covering the asked disc; and the
/// centre-fitting attack (issue 27, finding 2) against it.
final class PrivacyCutTests: XCTestCase {
    let home = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 500)

    func key(_ seed: UInt8) -> PrivacyKey { PrivacyKey(bytes: (0..<16).map { $0 &* 31 &+ seed })! }

    /// The disc left out covers the asked disc wherever home lies in its square, and is centred on
    /// the square, not on home: over many keys, home lies all over the square.
    func testTheCutCoversTheAskedDiscAndIsNotCentredOnIt() {
        for zone in [home, PrivacyZone(lat: -33.9, lon: 151.2, radiusM: 200), PrivacyZone(lat: 64.1, lon: -21.9, radiusM: 1000)] {
            var offsets: [Double] = []
            for seed in UInt8(0)..<40 {
                let k = key(seed)
                let cut = PrivacyCut.disc(zone, key: k)
                let q = PrivacyCut.square(zone, key: k)
                let classM = q.classM
                XCTAssertGreaterThanOrEqual(classM, PrivacyCut.radiusClass(zone.radiusM, key: k).metres * 0.999, "never a smaller class")
                XCTAssertGreaterThanOrEqual(q.sideM, PrivacyCut.cellShare * classM * 0.999, "the square is at least 4 R across")
                let offset = Geodesy.distance(lat1: zone.lat, lon1: zone.lon, lat2: cut.lat, lon2: cut.lon)
                XCTAssertLessThanOrEqual(offset, q.sideM / 2.0.squareRoot() * 1.05, "home lies in its square")
                offsets.append(offset / q.sideM)
                XCTAssertLessThanOrEqual(cut.radiusM, q.sideM / 2.0.squareRoot() * 1.05 + classM + PrivacyCut.marginM + 1e-6)
                // Every point of the asked disc's edge lies in the cut.
                let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
                for k in 0..<72 {
                    let a = Double(k) * .pi / 36
                    let p = plane.global(east: zone.radiusM * sin(a), north: zone.radiusM * cos(a))
                    XCTAssertTrue(cut.contains(lat: p.lat, lon: p.lon), "seed \(seed) bearing \(k * 5)")
                }
                XCTAssertTrue(cut.contains(lat: zone.lat, lon: zone.lon))
            }
            // Uniform in a square: the mean distance from its centre is 0.38 of its side.
            let mean = offsets.reduce(0, +) / Double(offsets.count)
            XCTAssertGreaterThan(mean, 0.28, "\(zone): home is spread over its square (mean offset \(mean) of the side)")
            XCTAssertGreaterThan(offsets.filter { $0 > 0.35 }.count, 10)
        }
    }

    /// A small zone (10 m around the door) is said: used, what it hides (a disc of at least
    /// `leastDiscM` around a keyed point, whatever the key), that a smaller radius hides no less,
    /// and where it was given; a zone at its own class is not.
    func testASmallZoneIsSaidWithWhatItHides() {
        XCTAssertEqual(PrivacyCut.leastDiscM, 398, accuracy: 1)
        for seed in UInt8(0)..<40 {
            for r in [0.5, 10, 66] {
                let z = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: r)
                XCTAssertGreaterThanOrEqual(PrivacyCut.disc(z, key: key(seed)).radiusM, PrivacyCut.leastDiscM - 1e-6, "seed \(seed), \(r) m")
                XCTAssertEqual(PrivacyCut.disc(z, key: key(seed)), PrivacyCut.disc(PrivacyZone(lat: z.lat, lon: z.lon, radiusM: 1), key: key(seed)))
            }
        }
        let rows: [(Double, String, String?)] = [
            (
                10, "--privacy-zone 47.3769,8.5417,10",
                "--privacy-zone 47.3769,8.5417,10: a radius of 10 m is used, and cut as every zone is: each ride leaves out a disc at least 397 m in radius around a keyed point near it (and a stretch beyond), not a 10 m circle; any radius up to 66 m hides the same (Sources/CairnExport/Stages/PRIVACY.md)"
            ),
            (0.5, "/etc/cairn.conf:12: privacy-zone", "/etc/cairn.conf:12: privacy-zone: a radius of 0.5 m is used"),
            (66.6, "x", "x: a radius of 66.6 m is used"),
            (66.7, "x", nil),
            (200, "x", nil),
            (50_000, "x", nil)
        ]
        for (r, source, want) in rows {
            let got = PrivacyCut.smallZoneNote(PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: r), source: source)
            guard let want else {
                XCTAssertNil(got, "\(r) m")
                continue
            }
            XCTAssertTrue(got?.hasPrefix(want) == true, "\(r) m: \(got ?? "nil")")
        }
    }

    func testTheCutIsFixedPerKeyAndZoneAndEachRideReachesItsOwnWay() {
        let a = PrivacyCut.disc(home, key: key(1)), b = PrivacyCut.disc(home, key: key(2))
        XCTAssertNotEqual(a.lat, b.lat, "another key, another square")
        XCTAssertEqual(PrivacyCut.disc(home, key: key(1)), a, "the same key, the same disc")
        let same = PrivacyZone(lat: 47.37690, lon: 8.541700, radiusM: 500.0)
        XCTAssertEqual(PrivacyCut.disc(same, key: key(1)), a)
        let reaches = Set((UInt64(1)...20).map { PrivacyCut.reach(home, key: key(1), tripId: $0, atMs: 5000, side: 0) })
        XCTAssertEqual(reaches.count, 20, "each ride its own reach")
        XCTAssertEqual(
            PrivacyCut.reach(home, key: key(1), tripId: 3, atMs: 5000, side: 1), PrivacyCut.reach(home, key: key(1), tripId: 3, atMs: 5000, side: 1),
            "deterministic: a re-export gives the same cut")
        XCTAssertNotEqual(
            PrivacyCut.reach(home, key: key(1), tripId: 3, atMs: 5000, side: 0), PrivacyCut.reach(home, key: key(1), tripId: 3, atMs: 5000, side: 1))
        for t in UInt64(1)...50 {
            let r = PrivacyCut.reach(home, key: key(1), tripId: t, atMs: 0, side: 0)
            XCTAssertTrue(r >= 0 && r <= PrivacyCut.longestReach(home, key: key(1)))
        }
        XCTAssertNil(PrivacyKey(bytes: [1, 2, 3]))
    }

    func testTheRadiusClassIsKeyedAndAtLeastR() {
        var splits200 = 0
        var bases = Set<Double>()
        for seed in UInt8(0)..<40 {
            let k = key(seed)
            bases.insert(PrivacyCut.radiusClass(1, key: k).metres)
            XCTAssertGreaterThanOrEqual(PrivacyCut.radiusClass(1, key: k).metres, 100)
            XCTAssertLessThan(PrivacyCut.radiusClass(1, key: k).metres, 200)
            XCTAssertGreaterThanOrEqual(PrivacyCut.radiusClass(PrivacyZone.maxRadiusM, key: k).metres, PrivacyZone.maxRadiusM)
            for r in stride(from: 1.0, through: 50_000, by: 37) {
                let c = PrivacyCut.radiusClass(r, key: k).metres
                // At least 1.5 r (home far enough from its square's centre), the next class no more.
                XCTAssertGreaterThanOrEqual(c, PrivacyCut.classShare * r)
                XCTAssertTrue(c < 200 || c < PrivacyCut.classShare * r * 2 + 1e-6, "r \(r): class \(c)")
            }
            if PrivacyCut.radiusClass(200, key: k).step != PrivacyCut.radiusClass(201, key: k).step { splits200 += 1 }
        }
        XCTAssertGreaterThan(bases.count, 35, "the class boundaries are the key's, not round numbers")
        XCTAssertLessThanOrEqual(splits200, 2, "200 m and 201 m are one class under nearly every key (and two classes nest)")
    }

    /// Issue 38 (again, REPRO C): a radius edited by a metre across a keyed class boundary
    /// (180 -> 181, 360 -> 361, 510 -> 511 m) published points the first cut hid. Now any edit by
    /// metres or a few per cent, of the radius (any amount) or of the centre (up to a tenth of r,
    /// in any direction, across any line), gives a cut that holds the first or is held by it,
    /// on every ride: the two together publish no more than the smaller cut alone. A table over
    /// 12 keys, 3 radii and 14 edits, each on 3 rides out of home along grid streets (and
    /// `Tests/crash/privacy-zones/nest-check.py` through the binary).
    func testEveryEditByMetresOrAFewPerCentNests() {
        var pairs = 0, differ = 0, exceptions = 0
        var rng = SplitMix(seed: 38)
        for seed in UInt8(0)..<12 {
            let k = key(seed &* 7 &+ 1)
            for r in [180.0, 360, 510] {
                let zone = PrivacyZone(lat: 47.40003, lon: 8.5417, radiusM: r)
                let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
                func moved(_ east: Double, _ north: Double, _ radius: Double) -> PrivacyZone {
                    let g = plane.global(east: east, north: north)
                    return PrivacyZone(lat: g.lat, lon: g.lon, radiusM: radius)
                }
                let edits = [
                    moved(0, 0, r + 1), moved(0, 0, r - 1), moved(0, 0, r * 1.03), moved(0, 0, r * 0.97), moved(0, 0, r * 2),
                    moved(0, -8, r), moved(8, 0, r), moved(-5, 5, r), moved(0, 0.099 * r, r), moved(-0.07 * r, 0.07 * r, r),
                    moved(3, 0, r + 1), moved(0, -0.05 * r, r * 1.05), moved(0.1 * r, 0, r * 0.95), moved(0, 1e-4 * 111_195, r)
                ]
                let rides = (0..<3).map { _ in Self.gridRide(plane, &rng) }
                for edited in edits {
                    pairs += 1
                    let qa = PrivacyCut.square(zone, key: k), qb = PrivacyCut.square(edited, key: k)
                    // A zone whose square climbed as far as it may (`maxClimb`) may still lie near
                    // its edge: a move across that edge is a second cut (about one zone in 40).
                    let capped = [(zone, qa), (edited, qb)].contains { z, q in
                        q.level - PrivacyCut.radiusClass(z.radiusM, key: k).step == PrivacyCut.maxClimb
                    }
                    // The squares nest: the finer one's indices, halved per level, are the other's.
                    let (fine, coarse) = qa.level <= qb.level ? (qa, qb) : (qb, qa)
                    let shift = Int64(coarse.level - fine.level)
                    let nested = fine.ix >> shift == coarse.ix && fine.iy >> shift == coarse.iy
                    if capped && !nested {
                        exceptions += 1
                        continue
                    }
                    XCTAssertTrue(nested, "seed \(seed) r \(r) \(edited): the squares nest")
                    // The larger cut: the higher level, or in one square the larger class.
                    let aFirst = (qa.level, qa.classM) <= (qb.level, qb.classM)
                    let small = aFirst ? zone : edited, large = aFirst ? edited : zone
                    let zs = PrivacyZones([small], key: k), zl = PrivacyZones([large], key: k)
                    for (i, ride) in rides.enumerated() {
                        let ws = zs.window(tripId: UInt64(i + 1), points: ride), wl = zl.window(tripId: UInt64(i + 1), points: ride)
                        var extra = 0, fewer = 0
                        for f in ride {
                            if wl.keeps(f) && !ws.keeps(f) { extra += 1 }
                            if ws.keeps(f) && !wl.keeps(f) { fewer += 1 }
                        }
                        if fewer > 0 { differ += 1 }
                        XCTAssertEqual(
                            extra, 0, "seed \(seed) r \(r) \(small) -> \(large), ride \(i): the larger cut publishes points the smaller hid")
                    }
                }
            }
        }
        XCTAssertLessThanOrEqual(exceptions * 100, pairs, "\(exceptions) of \(pairs) edits: a capped square's edge crossed")
        XCTAssertEqual(pairs, 12 * 3 * 14)
        XCTAssertGreaterThan(differ, 0, "some edits change the cut (it nests)")
    }

    /// A ride out of home and back along a 120 m street grid (runs of 1-4 blocks), 5 m a second.
    static func gridRide(_ plane: LocalPlane, _ rng: inout SplitMix) -> [Fix] {
        var pts: [Fix] = []
        var x = 0.0, y = 0.0
        func walk(_ dx: Double, _ dy: Double, _ metres: Double) {
            for _ in 0..<Int(metres / 5) {
                x += dx * 5
                y += dy * 5
                let g = plane.global(east: x, north: y)
                pts.append(Fix(timeMs: Int64(pts.count) * 1000, lat: g.lat, lon: g.lon, mode: 3))
            }
        }
        // Out along the street home is on (a few metres to the corner), then a staircase.
        let sx = rng.next() % 2 == 0 ? 1.0 : -1.0, sy = rng.next() % 2 == 0 ? 1.0 : -1.0
        walk(sx, 0, Double(20 + rng.next() % 100))
        while (x * x + y * y).squareRoot() < 3500 {
            walk(0, sy, 120 * Double(1 + rng.next() % 4))
            walk(sx, 0, 120 * Double(1 + rng.next() % 4))
        }
        // Back: the other way round, to home.
        while abs(y) > 1 { walk(0, y > 0 ? -1 : 1, min(abs(y), 120 * Double(1 + rng.next() % 4))) }
        while abs(x) > 1 { walk(x > 0 ? -1 : 1, 0, min(abs(x), 120 * Double(1 + rng.next() % 4))) }
        return pts
    }

    /// Rides that leave a point inside a circle in every direction cross it, on average, halfway
    /// between that point and the circle's centre: the mean of the cut points leans from the
    /// disc's centre halfway to home (issue 38: over one key's six homes it found home within r
    /// at r = 200 m from 20 rides). So home must lie at least 2 r from the disc's centre for most
    /// zones: at most one zone in four within 2 r, over 400 keys and three radii (a class radius R
    /// of at least r put 0.42 of them there; at least 1.5 r, 0.19).
    func testHomeLiesFarFromTheDiscCentreForMostKeys() {
        for zone in [home, PrivacyZone(lat: -33.9, lon: 151.2, radiusM: 200), PrivacyZone(lat: 64.1, lon: -21.9, radiusM: 1000)] {
            var near = 0
            let keys = 400
            for i in 0..<keys {
                let k = PrivacyKey(bytes: (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ i &* 101 &+ (i >> 8) &* 7) })!
                let cut = PrivacyCut.disc(zone, key: k)
                let d = Geodesy.distance(lat1: zone.lat, lon1: zone.lon, lat2: cut.lat, lon2: cut.lon)
                if d < 2 * zone.radiusM { near += 1 }
            }
            XCTAssertLessThanOrEqual(Double(near) / Double(keys), 0.25, "\(zone): \(near) of \(keys) keys put home within 2 r of the disc's centre")
        }
    }

    /// The larger least class (1.5 r, was r) is 0.4's class or the next, in 0.4's grid of squares:
    /// every zone's new square holds its 0.4 square, so its cut holds the cut of the rides
    /// published before (a square's cut holds those of the squares inside it:
    /// `testEveryEditByMetresOrAFewPerCentNests`), never a second cut beside it.
    func testTheCutHoldsTheCutOfEarlierExports() {
        var higher = 0, pairs = 0
        for i in 0..<200 {
            let k = PrivacyKey(bytes: (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ i &* 29 &+ 5) })!
            for r in [100.0, 180, 200, 360, 510, 1000, 5000] {
                let zone = PrivacyZone(lat: 47.40003 + Double(i) * 1e-3, lon: 8.5417 - Double(i) * 7e-4, radiusM: r)
                let old = PrivacyCut.square(zone, key: k, share: 1), now = PrivacyCut.square(zone, key: k)
                pairs += 1
                XCTAssertGreaterThanOrEqual(now.level, old.level, "key \(i) r \(r)")
                let shift = Int64(max(now.level - old.level, 0))
                XCTAssertTrue(old.ix >> shift == now.ix && old.iy >> shift == now.iy, "key \(i) r \(r): the new square holds 0.4's")
                if now.level > old.level { higher += 1 }
            }
        }
        XCTAssertGreaterThan(higher * 4, pairs, "about half the zones are cut a class up (\(higher) of \(pairs))")
    }

    /// Rides leave home and come back in every direction; the attacker fits a circle (least
    /// squares, a radius per ride) through the first and last point each writes. With the cut on
    /// home the estimate was within metres; now it is near the centre of home's square, and each
    /// ride's cut reaches along its own path: over keys, the median error is more than r.
    func testTheCentreFitIsNoBetterThanTheRadius() {
        var rng = SplitMix(seed: 7)
        for r in [200.0, 500, 1000] {
            let zone = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: r)
            let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
            for rides in [5, 10, 20] {
                var errors: [Double] = []
                for keyed in [false] + Array(repeating: true, count: 7) {
                    let zones = PrivacyZones([zone], key: keyed ? key(UInt8(rides + errors.count * 7)) : nil)
                    var ends: [(Double, Double)] = []
                    for trip in 1...rides {
                        // Out along one bearing and in along another, 15 m a fix.
                        var steps: [Fix] = []
                        let out = Double(rng.next() % 3600) / 1800 * .pi, back = Double(rng.next() % 3600) / 1800 * .pi
                        let far = 40 * r + 1500
                        for (i, d) in stride(from: 0.0, to: far, by: 15).enumerated() {
                            let p = plane.global(east: d * sin(out), north: d * cos(out))
                            steps.append(Fix(timeMs: Int64(i) * 1000, lat: p.lat, lon: p.lon, mode: 3))
                        }
                        for (i, d) in stride(from: far, to: 0, by: -15).enumerated() {
                            let p = plane.global(east: d * sin(back), north: d * cos(back))
                            steps.append(Fix(timeMs: 3_600_000 + Int64(i) * 1000, lat: p.lat, lon: p.lon, mode: 3))
                        }
                        let w = zones.window(tripId: UInt64(trip), points: steps)
                        if let first = steps.first(where: { w.keeps($0) }), let last = steps.last(where: { w.keeps($0) }) {
                            ends.append(plane.local(lat: first.lat, lon: first.lon))
                            ends.append(plane.local(lat: last.lat, lon: last.lon))
                        }
                    }
                    // Fewer than two rides written: nothing to fit (the attacker learns nothing).
                    let c = ends.count >= 4 ? Self.fitCentre(ends) : (Double.infinity, 0)
                    let error = (c.0 * c.0 + c.1 * c.1).squareRoot()
                    if keyed {
                        errors.append(error)
                    } else {
                        XCTAssertLessThan(error, 0.1 * r, "the attack itself works on a cut around home (r \(r), \(rides) rides)")
                    }
                }
                errors.sort()
                XCTAssertGreaterThanOrEqual(errors[errors.count / 2], r, "r \(r), \(rides) rides: median error \(errors[errors.count / 2]) m")
            }
        }
    }

    /// Each visit to the disc is cut along the path: from a keyed distance before the ride
    /// enters to one after it leaves, so no two rides are cut on one circle; a re-read gives the
    /// same cut.
    func testEachVisitIsCutAlongItsPathBeyondTheDisc() {
        let zones = PrivacyZones([home], key: key(5))
        let disc = zones.discs[0]
        let plane = LocalPlane(lat: disc.lat, lon: disc.lon)
        var radii: [Double] = []
        for trip in UInt64(1)...12 {
            let bearing = Double(trip) * 0.5
            // 20 km out: past the disc and the longest reach of any class (up to 16 km at 500 m).
            let pts = (0..<4000).map { i -> Fix in
                let d = Double(i) * 5
                let p = plane.global(east: d * sin(bearing), north: d * cos(bearing))
                return Fix(timeMs: Int64(i) * 1000, lat: p.lat, lon: p.lon, mode: 3)
            }
            let w = zones.window(tripId: trip, points: pts)
            XCTAssertEqual(w.hidden, zones.window(tripId: trip, points: pts).hidden)
            for f in pts where disc.contains(f) { XCTAssertFalse(w.keeps(f)) }
            let first = pts.first { w.keeps($0) }!
            let d = Geodesy.distance(lat1: disc.lat, lon1: disc.lon, lat2: first.lat, lon2: first.lon)
            XCTAssertGreaterThan(d, disc.radiusM)
            let aim = PrivacyCut.aimShare * PrivacyCut.levelM(home, key: key(5))
            XCTAssertLessThanOrEqual(d, disc.radiusM + PrivacyCut.longestReach(home, key: key(5)) + aim + 6)
            radii.append(d)
        }
        let spread = radii.max()! - radii.min()!
        XCTAssertGreaterThan(spread, 0.3 * PrivacyCut.longestReach(home, key: key(5)), "the rides are cut on no common circle")
    }

    func testCellsTouchingAZoneAreHidden() {
        let zones = PrivacyZones([home], key: key(3))
        let cell = Geohash.cell(lat: home.lat, lon: home.lon, precision: 7)
        let b = Geohash.bounds(cell, precision: 7)
        XCTAssertTrue(zones.hidesCell(south: b.south, west: b.west, north: b.north, east: b.east))
        let far = Geohash.bounds(Geohash.cell(lat: 47.5, lon: 8.7, precision: 7), precision: 7)
        XCTAssertFalse(zones.hidesCell(south: far.south, west: far.west, north: far.north, east: far.east))
    }

    /// A ride through a zone: `cells` with the zone walks nothing inside its widest cut (not even
    /// the line across the left-out stretch), in an index of its own; without it, home's cell.
    func testCellsWalkNothingInsideAZoneInAnIndexOfTheirOwn() throws {
        let dir = ExportSupport.tempDir()
        let dLon = 10 / Geodesy.distance(lat1: 47, lon1: 0, lat2: 47, lon2: 1)
        let ride = (0..<600).map { i in Fix(timeMs: 1_748_764_800_000 + Int64(i) * 1000, lat: 47, lon: 8 + Double(i) * dLon, mode: 3) }
        try ExportSupport.writeLog(TripSpec(id: 1, segments: [(.start, ride)]), dir: dir)
        let zone = PrivacyZone(lat: 47, lon: ride[300].lon, radiusM: 300)
        let zones = PrivacyZones([zone], key: key(9))
        let homeCell = Geohash.cell(lat: zone.lat, lon: zone.lon, precision: 7)
        let plain = ExploredCells.collect(paths: [dir], precision: 7, prefix: nil, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertTrue(plain.cells.contains { $0.cell == homeCell })
        XCTAssertFalse(plain.cells.isEmpty)
        let hidden = ExploredCells.collect(
            paths: [dir], precision: 7, prefix: nil, settleNs: 0, hide: zones, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertFalse(hidden.cells.contains { $0.cell == homeCell })
        let widest = zones.widest[0]
        for c in hidden.cells {
            let b = Geohash.bounds(c.cell, precision: 7)
            // A cell the ride touched just outside the cut reaches into it by at most its size.
            let inner = CutCircle(lat: widest.lat, lon: widest.lon, radiusM: widest.radiusM - 160)
            XCTAssertFalse(inner.touches(south: b.south, west: b.west, north: b.north, east: b.east), "a cell walked inside the cut")
        }
        XCTAssertLessThan(hidden.cells.count, plain.cells.count)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ExploredCells.indexPath(dir, name: zones.cellIndexName)))
        XCTAssertNotEqual(zones.cellIndexName, PrivacyZones([zone], key: key(10)).cellIndexName)
        // Answered from its own index the second time, the same.
        let again = ExploredCells.collect(
            paths: [dir], precision: 7, prefix: nil, settleNs: 0, hide: zones, problem: { XCTFail($0) }, note: { _ in })
        XCTAssertEqual(again.filesFromIndex, 1)
        XCTAssertEqual(again.cells, hidden.cells)
    }

    /// Issue 38's street vote: rides leave home along the streets, so the first written stretch of
    /// each, drawn back, passes near home's street, and many rides' lines meet near the door
    /// however far the cut reaches. Each visit's cut now reaches `1.125 R` to `2.125 R` along the
    /// path and then up to `R` more, to where the written stretch, drawn back, passes nearest the
    /// disc's centre: on rides that turn corners (a staircase on a 120 m grid) the lines' nearest
    /// point is more than r from home (and about as far from the disc's centre).
    func testTheWrittenEndsAreAimedAtTheDiscNotAtHome() {
        let zone = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: 200)
        // A key whose square puts the disc's centre well off home (the test is of the aim).
        let k = (UInt8(0)..<200).map(key).first { k in
            let c = PrivacyCut.disc(zone, key: k)
            return Geodesy.distance(lat1: zone.lat, lon1: zone.lon, lat2: c.lat, lon2: c.lon) > 1.5 * zone.radiusM
        }!
        let zones = PrivacyZones([zone], key: k)
        let disc = zones.discs[0]
        let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
        let centre = plane.local(lat: disc.lat, lon: disc.lon)
        var rng = SplitMix(seed: 11)
        var lines: [(p: (Double, Double), u: (Double, Double))] = []
        for trip in UInt64(1)...30 {
            // A staircase out of home: runs of 1-4 blocks east or west, then north or south.
            let sx = rng.next() % 2 == 0 ? 1.0 : -1.0, sy = rng.next() % 2 == 0 ? 1.0 : -1.0
            var x = 0.0, y = 0.0
            var pts: [Fix] = []
            var i = 0
            func walk(_ dx: Double, _ dy: Double, _ metres: Double) {
                for _ in 0..<Int(metres / 5) {
                    x += dx * 5
                    y += dy * 5
                    let g = plane.global(east: x, north: y)
                    pts.append(Fix(timeMs: Int64(i) * 1000, lat: g.lat, lon: g.lon, mode: 3))
                    i += 1
                }
            }
            while (x * x + y * y).squareRoot() < 5000 {
                walk(sx, 0, 120 * Double(1 + rng.next() % 4))
                walk(0, sy, 120 * Double(1 + rng.next() % 4))
            }
            let w = zones.window(tripId: trip, points: pts)
            guard let a = pts.firstIndex(where: { w.keeps($0) }) else { continue }
            let pa = plane.local(lat: pts[a].lat, lon: pts[a].lon)
            let b = min(a + 30, pts.count - 1)
            let pb = plane.local(lat: pts[b].lat, lon: pts[b].lon)
            let l = ((pa.east - pb.east) * (pa.east - pb.east) + (pa.north - pb.north) * (pa.north - pb.north)).squareRoot()
            lines.append(((pa.east, pa.north), ((pa.east - pb.east) / l, (pa.north - pb.north) / l)))
        }
        XCTAssertGreaterThan(lines.count, 25)
        // The point nearest every line (least squares).
        var m = [0.0, 0.0, 0.0], v = [0.0, 0.0]
        for (p, u) in lines {
            let a = 1 - u.0 * u.0, b = -u.0 * u.1, d = 1 - u.1 * u.1
            m[0] += a
            m[1] += b
            m[2] += d
            v[0] += a * p.0 + b * p.1
            v[1] += b * p.0 + d * p.1
        }
        let det = m[0] * m[2] - m[1] * m[1]
        let ex = (m[2] * v[0] - m[1] * v[1]) / det, ey = (m[0] * v[1] - m[1] * v[0]) / det
        let fromHome = (ex * ex + ey * ey).squareRoot()
        let fromDisc = ((ex - centre.east) * (ex - centre.east) + (ey - centre.north) * (ey - centre.north)).squareRoot()
        XCTAssertGreaterThan(fromHome, zone.radiusM, "the lines meet \(Int(fromHome)) m from home, \(Int(fromDisc)) m from the disc's centre")
    }

    /// Kasa's algebraic circle fit: the centre.
    static func fitCentre(_ p: [(Double, Double)]) -> (Double, Double) {
        var m = [[Double]](repeating: [0, 0, 0, 0], count: 3)
        for (x, y) in p {
            let row = [x, y, 1.0], z = -(x * x + y * y)
            for i in 0..<3 {
                for j in 0..<3 { m[i][j] += row[i] * row[j] }
                m[i][3] += row[i] * z
            }
        }
        for c in 0..<3 {
            let piv = (c..<3).max { abs(m[$0][c]) < abs(m[$1][c]) }!
            m.swapAt(c, piv)
            for r in 0..<3 where r != c {
                let f = m[r][c] / m[c][c]
                for k in 0..<4 { m[r][k] -= f * m[c][k] }
            }
        }
        return (-m[0][3] / m[0][0] / 2, -m[1][3] / m[1][1] / 2)
    }

    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
