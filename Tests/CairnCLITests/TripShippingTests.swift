import Foundation
import CairnExport
import CairnLog
import XCTest

@testable import cairn

/// The one shipping workflow both `export` and `deliver` run (`TripShipping.ship`), against a
/// destination that records each call: which log copies go under which names, which
/// conversions, where a trip's shipment ends, and what its page entry links.
final class TripShippingTests: XCTestCase {
    /// Records the workflow's calls; `verified`/`there` stand for what the destination holds.
    struct Recorder: ShipmentDestination {
        var shipsUncut = true
        var verified = false
        var there: Set<String> = []
        /// What `undatable` and `hidesAll` answer (go on or not).
        var goesOnHidden = true
        /// A conversion that fails (throws) by its format.
        var failing: ExportFormat?
        var calls: [String] = []

        func holds(_ relative: String) -> Bool { there.contains(relative) }
        mutating func putLog(_ file: LogFileRef, _ copy: ExportState.CopiedFile, at relative: String) throws -> Bool {
            calls.append("log " + relative)
            return !there.contains(relative)
        }
        mutating func undatable(_ whole: TripSummary) throws -> Bool {
            calls.append("undatable")
            return true
        }
        mutating func hidesAll(_ shipment: TripShipment, formats: [ExportFormat]) throws -> Bool {
            calls.append("hidden " + formats.map(\.name).joined(separator: ","))
            return goesOnHidden
        }
        mutating func cannotHold(_ format: ExportFormat) { calls.append("cannot hold " + format.name) }
        mutating func putConversion(_ shipment: TripShipment, _ format: ExportFormat, at relative: String) throws -> Bool {
            if format == failing { throw Failure("\(format.name) not made") }
            calls.append("conversion " + relative)
            return true
        }
        mutating func holdsNothing(beforeEndPress: Bool) throws { calls.append("holds nothing") }
    }

    var dir = ""

    override func setUpWithError() throws {
        dir = "/tmp/cairn-trip-shipping-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        XCTAssertEqual(mkdir(dir, 0o755), 0)
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/format1-ride.cairn").path
        try Data(contentsOf: URL(fileURLWithPath: source)).write(to: URL(fileURLWithPath: dir + "/00000001.cairn"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func ship(
        _ d: inout Recorder, logs: Bool = true, formats: [ExportFormat] = [.gpx, .csv], page: Bool = true, zones: PrivacyZones = PrivacyZones(),
        salted: Bool = true
    ) throws -> TripShipping.Shipped {
        let (t, whole, _) = try XCTUnwrap(catalogTrips(in: dir, say: { _ in }).first)
        let order = TripShipping.Order(logs: logs, placeLogs: logs, formats: formats, page: page, options: ExportStageOptions(zones: zones))
        return try TripShipping.ship(t, whole, now: try ExportState.current(t), salted: salted, order: order, to: &d)
    }

    /// A zone around the trip's first point.
    func zoneAtStart(radiusM: Double) throws -> PrivacyZones {
        let t = try XCTUnwrap(catalogTrips(in: dir, say: { _ in }).first?.trip)
        var first: (lat: Double, lon: Double)?
        try TripCatalog.read(t) { e in if case .point(let f) = e, first == nil { first = (f.lat, f.lon) } }
        return PrivacyZones([PrivacyZone(lat: first!.lat, lon: first!.lon, radiusM: radiusM)])
    }

    func testAWholeTripShipsItsLogsThenEachConversionAndLinksThemOnThePage() throws {
        var d = Recorder()
        let shipped = try ship(&d)
        let gpx = try XCTUnwrap(shipped.shipment?.path(.gpx))
        let csv = try XCTUnwrap(shipped.shipment?.path(.csv))
        XCTAssertEqual(d.calls, ["log logs/00000001-508bf26d.cairn", "conversion " + gpx, "conversion " + csv])
        XCTAssertTrue(shipped.wroteAny)
        XCTAssertTrue(gpx.hasPrefix("gpx/") && gpx.hasSuffix("-508bf26d.gpx"), gpx)
        // The page links what the destination holds (this recorder: nothing yet).
        XCTAssertEqual(shipped.page?.entry.files, [])
        d.there = [gpx, "logs/00000001-508bf26d.cairn"]
        XCTAssertEqual(try ship(&d).page?.entry.files, [gpx, "logs/00000001-508bf26d.cairn"])
    }

    func testThePlainNamesAndNoLogs() throws {
        var d = Recorder()
        XCTAssertEqual(try ship(&d, salted: false).shipment.map { [$0.path(.gpx)] }?.first?.hasSuffix("-trip1.gpx"), true)
        XCTAssertEqual(d.calls.first, "log logs/00000001.cairn")
        var noLogs = Recorder()
        _ = try ship(&noLogs, logs: false, formats: [.csv])
        XCTAssertEqual(noLogs.calls.count, 1)
        XCTAssertTrue(noLogs.calls[0].hasPrefix("conversion csv/"))
    }

    func testWhatWasVerifiedThereIsNotWrittenAgain() throws {
        var d = Recorder()
        let first = try ship(&d)
        let gpx = try XCTUnwrap(first.shipment?.path(.gpx))
        var again = Recorder(verified: true, there: [gpx, "logs/00000001-508bf26d.cairn"])
        let shipped = try ship(&again)
        // The log (the destination's own check) and the CSV that is not there go; the GPX stays.
        XCTAssertEqual(again.calls, ["log logs/00000001-508bf26d.cairn", "conversion " + (first.shipment?.path(.csv) ?? "")])
        XCTAssertTrue(shipped.wroteAny)
    }

    func testATripInsideAZoneIsNeverConverted() throws {
        let zones = try zoneAtStart(radiusM: 1_000_000)
        // A folder says so and goes on: the page entry, without figures, links the logs.
        var folder = Recorder(there: ["logs/00000001-508bf26d.cairn"])
        let shipped = try ship(&folder, zones: zones)
        XCTAssertEqual(folder.calls, ["log logs/00000001-508bf26d.cairn", "hidden gpx,csv"])
        XCTAssertEqual(shipped.page?.entry.files, ["logs/00000001-508bf26d.cairn"])
        XCTAssertNil(shipped.page?.entry.startMs)
        // A remote's outbox ends the trip there: no conversion, no entry.
        var outbox = Recorder(shipsUncut: false, goesOnHidden: false)
        let ended = try ship(&outbox, zones: zones)
        XCTAssertEqual(outbox.calls, ["log logs/00000001-508bf26d.cairn", "hidden gpx,csv"])
        XCTAssertNil(ended.page)
        XCTAssertNil(ended.shipment)
    }

    func testAZoneCutsTheConversionsNames() throws {
        var d = Recorder()
        let whole = try XCTUnwrap(try ship(&d).shipment)
        var cut = Recorder()
        let shipment = try XCTUnwrap(try ship(&cut, zones: try zoneAtStart(radiusM: 300)).shipment)
        XCTAssertNotNil(shipment.window)
        XCTAssertLessThan(shipment.summary.stats.points, whole.summary.stats.points)
    }

    func testNothingToShowIsNoShipmentForAnOutboxAndLogsOnlyForAFolder() throws {
        var outbox = Recorder(shipsUncut: false)
        let none = try ship(&outbox, formats: [], page: false)
        XCTAssertEqual(outbox.calls, ["log logs/00000001-508bf26d.cairn"])
        XCTAssertNil(none.shipment)
        var folder = Recorder()
        let logsOnly = try ship(&folder, formats: [], page: false)
        XCTAssertEqual(folder.calls, ["log logs/00000001-508bf26d.cairn"])
        XCTAssertNotNil(logsOnly.page)
    }

    func testAConversionThatFailsEndsTheShipment() throws {
        var d = Recorder(failing: .gpx)
        XCTAssertThrowsError(try ship(&d))
        XCTAssertEqual(d.calls, ["log logs/00000001-508bf26d.cairn"])
    }
}
