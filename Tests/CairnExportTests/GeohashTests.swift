import CairnCore
import Foundation
import XCTest

@testable import CairnExport
@testable import CairnLog

final class GeohashTests: XCTestCase {
    func testKnownGeohashes() {
        // Niemeyer's examples and the geohash.org reference points.
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: 57.64911, lon: 10.40744, precision: 7), precision: 7), "u4pruyd")
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: 42.6, lon: -5.6, precision: 5), precision: 5), "ezs42")
        XCTAssertEqual(Geohash.string(Geohash.cell(lat: -25.382708, lon: -49.265506, precision: 6), precision: 6), "6gkzwg")
        let b = Geohash.bounds(Geohash.cell("ezs42")!, precision: 5)
        XCTAssertEqual(b.south, 42.5830078125, accuracy: 1e-12)
        XCTAssertEqual(b.north, 42.626953125, accuracy: 1e-12)
        XCTAssertEqual(b.west, -5.6249999999, accuracy: 1e-9)
        XCTAssertEqual(b.east, -5.5810546875, accuracy: 1e-12)
    }

    func testParentIsTheShorterGeohash() {
        var rng = SplitMix64(state: 7)
        for _ in 0..<2000 {
            let lat = rng.uniform() * 180 - 90, lon = rng.uniform() * 360 - 180
            let fine = Geohash.cell(lat: lat, lon: lon)
            let s7 = Geohash.string(fine, precision: 7)
            for p in 5...6 {
                XCTAssertEqual(Geohash.string(Geohash.parent(fine, to: p), precision: p), String(s7.prefix(p)))
                XCTAssertEqual(Geohash.cell(lat: lat, lon: lon, precision: p), Geohash.parent(fine, to: p))
            }
            let b = Geohash.bounds(fine, precision: 7)
            XCTAssertTrue(b.south <= lat && lat <= b.north && b.west <= lon && lon <= b.east)
        }
    }

    func testParsing() {
        XCTAssertNil(Geohash.cell("u4pa"))  // a, i, l, o are not geohash characters
        XCTAssertNil(Geohash.cell("u4p-"))
        XCTAssertEqual(Geohash.cell("U4PR"), Geohash.cell("u4pr"))
        XCTAssertEqual(Geohash.cell(""), 0)
    }
}
