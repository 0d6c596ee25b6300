import Foundation
import XCTest

/// Home by itself (issue 41, items 1 and 2): a ride that stands at home for `--home-stand`
/// minutes is closed there (and `trip-closed` tells cairn-deliver.path to deliver it), measured
/// from the door to the close; a light at home's corner, the same stand away from home and riding
/// past home cut nothing. The LED through `--led` on a fake sysfs tree, and the errors of a bad
/// `led` or `home` line. Through a real gpsd.
final class HomeEndToEndTests: XCTestCase {
    struct Truth: Decodable {
        var start: Double
        var track: [[Double]]
    }

    func makeRide(_ work: String, stop: String) throws -> (log: String, truth: Truth) {
        let log = work + "/ride-\(stop).nmea", truthPath = work + "/truth-\(stop).json"
        let make = try Harness.run(
            "/usr/bin/env",
            ["python3", Harness.repoRoot.appendingPathComponent("Tests/tools/make-ride.py").path, "0.2", log, "--truth", truthPath]
                + ["--seed", "5", "--stop", stop])
        XCTAssertEqual(make.status, 0, make.stderr)
        return (log, try JSONDecoder().decode(Truth.self, from: Data(contentsOf: URL(fileURLWithPath: truthPath))))
    }

    /// When trip `id` was closed, in GPS seconds since the epoch: its last decision (the fix that
    /// stood too long was the last one logged into it).
    func closedAt(_ dir: String, trip id: Int) throws -> Double {
        let r = try Harness.run(Harness.cairn, ["info", String(id), "--dir", dir, "--why", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let events = o?["events"] as? [[String: Any]] ?? []
        let f = ISO8601DateFormatter()
        let times = events.flatMap { e in [e["time"], e["to"]].compactMap { ($0 as? String).flatMap { f.date(from: $0) } } }
        return times.map(\.timeIntervalSince1970).max() ?? 0
    }

    func testAStandAtHomeClosesTheTripAndPassingHomeDoesNot() throws {
        let work = Harness.tempDir()
        // 12 minutes, standing 3 minutes from 6 minutes on.
        let (log, truth) = try makeRide(work, stop: "360:180")
        let stand = truth.track[400], passed = truth.track[150]
        func home(_ p: [Double]) -> [String] { ["--home", "\(p[0]),\(p[1]),100"] }

        let atHome = try Harness.record(log, extra: home(stand))
        XCTAssertEqual(atHome.status, 0, atHome.stderr)
        XCTAssertEqual(try Harness.trips(atHome.dir).count, 2, "closed at home, a new trip when the rider sets off again")
        XCTAssertTrue(FileManager.default.fileExists(atPath: atHome.dir + "/trip-closed"), atHome.stderr)
        // From the door (the stand's first second) to the close: the 2 minutes of --home-stand.
        let doorToClose = try closedAt(atHome.dir, trip: 1) - (truth.start + 360)
        print("home: \(doorToClose) s from standing at the door to the trip closed (home-stand 2 minutes)")
        XCTAssertTrue((120...125).contains(doorToClose), "closed \(doorToClose) s after standing at the door")
        // attack-r21 U3: `info --why` said "a standstill longer than the close limit"; it says home.
        let why = try Harness.run(Harness.cairn, ["info", "1", "--dir", atHome.dir, "--why"])
        XCTAssertTrue(why.stdout.contains("trip ended: home: standing there longer than home's stand"), why.stdout)
        let whyJSON = try Harness.run(Harness.cairn, ["info", "1", "--dir", atHome.dir, "--why", "--json"])
        XCTAssertTrue(whyJSON.stdout.contains("{\"event\": \"ended\", \"reason\": \"home\""), whyJSON.stdout)

        let away = try Harness.record(log, extra: home(passed))
        XCTAssertEqual(away.status, 0, away.stderr)
        XCTAssertEqual(try Harness.trips(away.dir).count, 1, "riding past home, then standing away from it: one trip")
        XCTAssertFalse(FileManager.default.fileExists(atPath: away.dir + "/trip-closed"), "nothing closed")

        let none = try Harness.record(log, extra: ["--home", "none"])
        XCTAssertEqual(try Harness.trips(none.dir).count, 1, "the stand is a pause")

        // A light at home's corner: 60 s standing there, then on.
        let (lightLog, lightTruth) = try makeRide(work, stop: "360:60")
        let light = try Harness.record(lightLog, extra: home(lightTruth.track[380]))
        XCTAssertEqual(light.status, 0, light.stderr)
        XCTAssertEqual(try Harness.trips(light.dir).count, 1, "60 s at home is a stop, not the end")
    }

    /// A fake LED class tree (gpio-leds' ACT) with the timer's files.
    func fakeLeds(_ root: String) throws {
        let real = root + "/devices/platform/leds/leds/ACT"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        for (f, v) in ["brightness": "0\n", "max_brightness": "1\n", "trigger": "none timer heartbeat [mmc0]\n", "delay_on": "", "delay_off": ""] {
            try v.write(toFile: real + "/" + f, atomically: false, encoding: .utf8)
        }
        try FileManager.default.createDirectory(atPath: root + "/class/leds", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/class/leds/ACT", withDestinationPath: real)
    }

    func testTheLedAndBadLines() throws {
        let work = Harness.tempDir(), sys = work + "/sys"
        try fakeLeds(sys)
        let (log, _) = try makeRide(work, stop: "360:180")
        let rec = try Harness.record(log, extra: ["--led", "ACT", "--sysfs-root", sys])
        XCTAssertEqual(rec.status, 0, rec.stderr)
        let act = sys + "/class/leds/ACT/"
        func read(_ f: String) -> String { (try? String(contentsOfFile: act + f, encoding: .utf8)) ?? "" }
        XCTAssertEqual(read("trigger"), "timer\n", "the timer trigger set")
        XCTAssertEqual(read("delay_on") + read("delay_off"), "0\n1000\n", "dark once stopped")

        // Bad input names the file, the line and the option.
        let conf = work + "/cairn.conf"
        func check(_ text: String, _ extra: [String] = []) throws -> Harness.Result {
            try text.write(toFile: conf, atomically: true, encoding: .utf8)
            return try Harness.run(Harness.cairn, ["record", "--config", conf, "--dir", work + "/logs", "--sysfs-root", sys, "--check"] + extra)
        }
        var r = try check("# a board\nled = led0\n")
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(conf):2: --led 'led0': no LED 'led0' in \(sys)/class/leds (it has ACT)"), r.stderr)
        r = try check("led = ../ACT\n")
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(conf):1: The value '../ACT' is invalid for '--led <name|none>'"), r.stderr)
        r = try check("\n\nhome = 47.3,abc,100\n")
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(conf):3: The value '47.3,abc,100' is invalid for '--home <lat,lon,radius_m|none>'"), r.stderr)
        r = try check("led = ACT\n")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("led = ACT  (\(conf):1)"), r.stdout)
        r = try check("led-grant = yes\n")
        XCTAssertEqual(r.status, 64, "the root step is no key of the file: \(r.stderr)")
    }
}
