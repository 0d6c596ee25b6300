import Foundation
import CairnExport
import CairnSystem
import XCTest

@testable import cairn

/// A trainer's trip (no positions, issue 40) delivered to a remote in memory: as FIT and its
/// logs, never as GPX; asked for formats that cannot hold it with its logs not going, the run
/// refuses it (it stays on the board, to be delivered once asked for FIT or CSV).
final class TrainerDeliveryTests: XCTestCase {
    let remote = "mem:rides"

    func makeDir(_ fixture: String = "trainer") throws -> String {
        let d = "/tmp/cairn-trainer-delivery-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        XCTAssertEqual(mkdir(d, 0o755), 0)
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/\(fixture)/00000001.cairn").path
        try Data(contentsOf: URL(fileURLWithPath: source)).write(to: URL(fileURLWithPath: d + "/00000001.cairn"))
        return d
    }

    func run(_ dir: String, _ r: MemoryRemote, formats: [ExportFormat], logs: Bool) -> Int32 {
        var run = DeliveryRun(
            dir: dir, remote: remote, board: "unnamed", transport: r, retries: 1, formats: formats, copyLogs: logs,
            stageOptions: ExportStageOptions(zones: PrivacyZones()), quietFailures: true, page: true)
        return run.go()
    }

    func testATrainersTripGoesAsFITAndNeverAsNothing() throws {
        let d = try makeDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = MemoryRemote()
        XCTAssertNotEqual(run(d, r, formats: [.gpx, .kml], logs: false), ExitCode.ok, "nothing of it would arrive")
        XCTAssertFalse(r.files.keys.contains { $0.hasSuffix(".gpx") || $0.hasSuffix(".fit") || $0.hasSuffix(".cairn") }, "\(r.files.keys)")
        XCTAssertEqual(run(d, r, formats: [.gpx, .fit], logs: true), ExitCode.ok)
        XCTAssertTrue(r.files.keys.contains("\(remote)/unnamed/logs/00000001-5eed0040.cairn"), "\(r.files.keys)")
        XCTAssertEqual(r.files.keys.filter { $0.hasSuffix(".fit") }.count, 1, "\(r.files.keys)")
        XCTAssertFalse(r.files.keys.contains { $0.hasSuffix(".gpx") }, "\(r.files.keys)")
        r.calls = []
        XCTAssertEqual(run(d, r, formats: [.gpx, .fit], logs: true), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "delivered once")
    }

    /// The page links what went (attack-r23-home: GPX, GeoJSON and KML of a trainer's trip were
    /// linked from index.html and index.tsv though never written: dead links on the rider's page).
    func testATrainersPageEntryLinksOnlyWhatWent() throws {
        let d = try makeDir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r, formats: [.gpx, .fit, .geojson, .kml], logs: true), ExitCode.ok)
        let index = String(decoding: r.files["\(remote)/unnamed/index.tsv"] ?? [], as: UTF8.self)
        let html = String(decoding: r.files["\(remote)/unnamed/index.html"] ?? [], as: UTF8.self)
        XCTAssertTrue(index.contains(".fit"), index)
        for dead in [".gpx", ".geojson", ".kml"] {
            XCTAssertFalse(index.contains(dead), "\(dead) never went: \(index)")
            XCTAssertFalse(html.contains(dead), "\(dead) never went: \(html)")
        }
    }

    /// A ride ended by the long press on the trainer before its first fix has no picture: its
    /// exports hold no position, though its log has points outdoors after the press
    /// (Fixtures/logs/trainer-press: 500 s on the wheel, the press at 200 s, 200 fixes from 300 s;
    /// WheelExportTests.writeIndoorThenOutdoors). attack-r23-home: every run said its picture was
    /// "missing or damaged there; drawn again" and drew none.
    func testATrainerRideEndedBeforeItsFirstFixIsNeverSaidToMissItsPicture() throws {
        let d = try makeDir("trainer-press")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r, formats: [.fit, .csv], logs: false), ExitCode.ok)
        XCTAssertEqual(r.files.keys.filter { $0.hasSuffix(".fit") }.count, 1, "\(r.files.keys)")
        XCTAssertFalse(r.files.keys.contains { $0.hasSuffix(".svg") }, "no picture of no position: \(r.files.keys)")
        r.calls = []
        XCTAssertEqual(run(d, r, formats: [.fit, .csv], logs: false), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "nothing to draw again, nothing sent")
    }

    /// A trainer ride on a clock never set (1970, attack r21 F8): before, an empty FIT (no
    /// session, lap or record) was made and sent; then the trip failed every run (exit 1, the
    /// LED failing for good). Now no conversion is made, the log goes when asked, and neither
    /// run fails; without its log nothing goes and the trip stays on the board, unreceipted.
    func testATrainerRideOnAClockNeverSetSendsNoEmptyFIT() throws {
        let d = try makeDir("trainer-1970")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r, formats: [.fit, .csv], logs: false), ExitCode.ok, "said, not a failure")
        let sent = r.files.keys.filter { $0.contains("/unnamed/") && !$0.hasSuffix("index.html") && !$0.hasSuffix("index.tsv") }
        XCTAssertEqual(sent, [], "nothing of it goes without its log")
        let receipts = (try? String(contentsOfFile: d + "/delivered", encoding: .utf8)) ?? ""
        XCTAssertFalse(receipts.contains("00000001"), "never receipted: \(receipts)")
        XCTAssertEqual(run(d, r, formats: [.fit, .csv], logs: true), ExitCode.ok, "said, not a failure")
        XCTAssertFalse(r.files.keys.contains { $0.hasSuffix(".fit") || $0.hasSuffix(".csv") }, "\(r.files.keys)")
        XCTAssertTrue(r.files.keys.contains { $0.hasSuffix(".cairn") }, "its log goes: \(r.files.keys)")
        r.calls = []
        XCTAssertEqual(run(d, r, formats: [.fit, .csv], logs: true), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "delivered once")
    }
}
