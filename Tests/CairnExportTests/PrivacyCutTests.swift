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

    func testTheCutCoversTheAskedDiscAndIsNotCentredOnIt() {
        for seed in UInt8(0)..<40 {
            for zone in [home, PrivacyZone(lat: -33.9, lon: 151.2, radiusM: 200), PrivacyZone(lat: 64.1, lon: -21.9, radiusM: 1000)] {
                let c = PrivacyCut.centre(zone, key: key(seed))
                let classM = PrivacyCut.radiusClass(zone.radiusM).metres
                XCTAssertGreaterThanOrEqual(c.offsetM, zone.radiusM * 0.99, "the cut's centre is at least r off home")
                XCTAssertGreaterThanOrEqual(c.offsetM, classM * 0.99, "the offset is at least the radius class")
                XCTAssertLessThanOrEqual(c.offsetM, classM * 1.51)
                XCTAssertLessThanOrEqual(
                    PrivacyCut.widest(zone, key: key(seed)).radiusM, zone.radiusM + classM * 2 + PrivacyCut.marginM + 1,
                    "the widest cut is r + L + margin + R/2")
                for trip in UInt64(1)...5 {
                    let cut = PrivacyCut.circle(zone, key: key(seed), tripId: trip, salt: UInt32(trip) * 7919)
                    XCTAssertEqual(cut.lat, c.lat)
                    XCTAssertEqual(cut.lon, c.lon)
                    XCTAssertLessThanOrEqual(cut.radiusM, PrivacyCut.widest(zone, key: key(seed)).radiusM)
                    // Every point of the asked disc's edge lies in the cut.
                    let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
                    for k in 0..<72 {
                        let a = Double(k) * .pi / 36
                        let p = plane.global(east: zone.radiusM * sin(a), north: zone.radiusM * cos(a))
                        XCTAssertTrue(cut.contains(lat: p.lat, lon: p.lon), "seed \(seed) trip \(trip) bearing \(k * 5)")
                    }
                    XCTAssertTrue(cut.contains(lat: zone.lat, lon: zone.lon))
                }
            }
        }
    }

    func testOffsetIsFixedPerKeyAndZoneAndTheRadiusVariesPerRide() {
        let a = PrivacyCut.centre(home, key: key(1)), b = PrivacyCut.centre(home, key: key(2))
        XCTAssertNotEqual(a.lat, b.lat, "another key, another offset")
        XCTAssertEqual(PrivacyCut.centre(home, key: key(1)).lat, a.lat, "the same key, the same offset")
        let same = PrivacyZone(lat: 47.37690, lon: 8.541700, radiusM: 500.0)
        XCTAssertEqual(PrivacyCut.centre(same, key: key(1)).lon, a.lon)
        let radii = Set((UInt64(1)...20).map { PrivacyCut.circle(home, key: key(1), tripId: $0, salt: 42).radiusM })
        XCTAssertEqual(radii.count, 20, "each ride its own radius")
        XCTAssertEqual(
            PrivacyCut.circle(home, key: key(1), tripId: 3, salt: 42), PrivacyCut.circle(home, key: key(1), tripId: 3, salt: 42),
            "deterministic: a re-export gives the same cut")
        XCTAssertNotEqual(
            PrivacyCut.circle(home, key: key(1), tripId: 3, salt: 42).radiusM, PrivacyCut.circle(home, key: key(1), tripId: 3, salt: 43).radiusM)
        XCTAssertNil(PrivacyKey(bytes: [1, 2, 3]))
    }

    func testTheRadiusClassIsTheSmallestPowerOfRootTwoAtLeastR() {
        XCTAssertEqual(PrivacyCut.radiusClass(1).metres, 100)
        XCTAssertEqual(PrivacyCut.radiusClass(100).metres, 100)
        XCTAssertEqual(PrivacyCut.radiusClass(100.5).metres, 100 * 2.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(PrivacyCut.radiusClass(200).metres, 200)
        XCTAssertEqual(PrivacyCut.radiusClass(500).metres, 400 * 2.0.squareRoot(), accuracy: 1e-9)
        XCTAssertEqual(PrivacyCut.radiusClass(501).step, PrivacyCut.radiusClass(500).step)
        XCTAssertGreaterThanOrEqual(PrivacyCut.radiusClass(PrivacyZone.maxRadiusM).metres, PrivacyZone.maxRadiusM)
        for r in stride(from: 1.0, through: 50_000, by: 37) {
            let c = PrivacyCut.radiusClass(r).metres
            XCTAssertGreaterThanOrEqual(c, r)
            XCTAssertTrue(c == 100 || c < r * 2.0.squareRoot() + 1e-6, "r \(r): class \(c)")
        }
    }

    /// Issue 27's attack (two-rings.py): the zone edited a little (its centre moved 1e-5°, its
    /// radius 500 → 501 m) gave an unrelated offset, and exports before and after gave two rings
    /// crossing 14-250 m from home. Now the offset vector stays; the centre moves with the edit.
    func testAZoneEditedALittleKeepsItsOffset() {
        func vector(_ z: PrivacyZone, _ k: PrivacyKey) -> (Double, Double) {
            let c = PrivacyCut.centre(z, key: k)
            return LocalPlane(lat: z.lat, lon: z.lon).local(lat: c.lat, lon: c.lon)
        }
        for seed in UInt8(0)..<20 {
            let k = key(seed)
            let a = vector(home, k)
            for edited in [
                PrivacyZone(lat: home.lat + 1e-5, lon: home.lon, radiusM: 500),
                PrivacyZone(lat: home.lat, lon: home.lon - 1e-5, radiusM: 500),
                PrivacyZone(lat: home.lat, lon: home.lon, radiusM: 501)
            ] {
                let b = vector(edited, k)
                let d = ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot()
                XCTAssertLessThan(d, 2, "seed \(seed), \(edited): the offset moved \(Int(d)) m")
                // Each ride's share of the radius stays too: only the edit itself changes the cut.
                for trip in UInt64(1)...5 {
                    let before = PrivacyCut.circle(home, key: k, tripId: trip, salt: 9)
                    let after = PrivacyCut.circle(edited, key: k, tripId: trip, salt: 9)
                    XCTAssertEqual(after.radiusM - before.radiusM, edited.radiusM - home.radiusM, accuracy: 0.01)
                }
            }
        }
    }

    /// Rides leave home and come back in every direction; the attacker fits a circle (least
    /// squares) through the first and last point each writes. With the cut on home the estimate
    /// was within metres; now it is the offset centre, at least r away.
    func testTheCentreFitIsNoBetterThanTheRadius() {
        var rng = SplitMix(seed: 7)
        for r in [200.0, 500, 1000] {
            let zone = PrivacyZone(lat: 47.3769, lon: 8.5417, radiusM: r)
            let plane = LocalPlane(lat: zone.lat, lon: zone.lon)
            for rides in [5, 10, 20] {
                for keyed in [false, true] {
                    let zones = PrivacyZones([zone], key: keyed ? key(UInt8(rides)) : nil)
                    var ends: [(Double, Double)] = []
                    for trip in 1...rides {
                        let w = PrivacyWindow(cuts: zones.cuts(tripId: UInt64(trip), salt: UInt32(truncatingIfNeeded: rng.next())))
                        for _ in 0..<2 {
                            // Out along one bearing (or in along one), 6 m a second.
                            let bearing = Double(rng.next() % 3600) / 1800 * .pi
                            let steps = (0..<Int(4 * r / 6)).map { i -> Fix in
                                let d = Double(i) * 6
                                let p = plane.global(east: d * sin(bearing), north: d * cos(bearing))
                                return Fix(timeMs: Int64(i) * 1000, lat: p.lat, lon: p.lon, mode: 3)
                            }
                            if let first = steps.first(where: { w.keeps($0) }) {
                                ends.append(plane.local(lat: first.lat, lon: first.lon))
                            }
                        }
                    }
                    let c = Self.fitCentre(ends)
                    let error = (c.0 * c.0 + c.1 * c.1).squareRoot()
                    if keyed {
                        // The fit finds about the cut's centre, L >= R >= r from home, give or take
                        // the noise of the per-ride radii (up to R/2 apart).
                        XCTAssertGreaterThanOrEqual(error, 0.95 * r, "r \(r), \(rides) rides: the estimate is \(Int(error)) m from home")
                    } else {
                        XCTAssertLessThan(error, 0.1 * r, "the attack itself works on a cut around home (r \(r), \(rides) rides)")
                    }
                }
            }
        }
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
