import XCTest
@testable import CairnCore

final class GeodesyTests: XCTestCase {
    func testKnownDistances() {
        // One degree of latitude on the mean sphere.
        XCTAssertEqual(Geodesy.distance(lat1: 0, lon1: 0, lat2: 1, lon2: 0), 111_195, accuracy: 1)
        XCTAssertEqual(Geodesy.distance(lat1: 48, lon1: 11, lat2: 48, lon2: 11), 0)
        // Across the antimeridian the short way.
        XCTAssertEqual(Geodesy.distance(lat1: 0, lon1: 179.9995, lat2: 0, lon2: -179.9995), 111.2, accuracy: 0.2)
        XCTAssertEqual(Geodesy.distance(fix(0), fix(1, north: 100)), 100, accuracy: 0.01)
    }
}
