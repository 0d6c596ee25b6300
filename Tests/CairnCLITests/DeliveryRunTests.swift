import Foundation
import CairnExport
import CairnSystem
import XCTest

@testable import cairn

/// Delivery's exactly-once protocol against a remote in memory that fails at any call: after a
/// run cut at any call (the remote refusing, or its answer lost after the effect) and a clean run
/// after it, the remote holds every file whole under its final name, nothing else of ours, the
/// receipts name every trip, and a third run sends nothing.
final class DeliveryRunTests: XCTestCase {
    let remote = "mem:rides"
    /// The fixture's copy under the board's folder: its name and its header's salt.
    let log1 = "00000001-508bf26d.cairn"

    func makeDir() throws -> String {
        let d = "/tmp/cairn-delivery-run-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        XCTAssertEqual(mkdir(d, 0o755), 0)
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/format1-ride.cairn").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        try bytes.write(to: URL(fileURLWithPath: d + "/00000001.cairn"))
        return d
    }

    func run(_ dir: String, _ r: MemoryRemote, formats: [ExportFormat] = [.gpx, .csv], page: Bool = true, zones: PrivacyZones = PrivacyZones())
        -> Int32
    {
        var run = DeliveryRun(
            dir: dir, remote: remote, board: "unnamed", transport: r, retries: 1, formats: formats, copyLogs: true,
            stageOptions: ExportStageOptions(zones: zones),
            quietFailures: true, page: page)
        return run.go()
    }

    /// The files a clean run leaves, with their bytes.
    func cleanRun() throws -> (files: [String: [UInt8]], calls: Int) {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        return (r.files, r.calls.count)
    }

    func testACleanRunShipsInAFewCallsAndASecondSendsNothing() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        // (listFolders: a log directory's first run that sends looks, once, for the shipping
        // folders a card before it left: attack-r22 c12.)
        XCTAssertEqual(r.calls, ["list", "listFolders", "mirror", "readBack", "moveAll", "readBack", "removeFolder"])
        XCTAssertEqual(
            Set(r.files.keys.map { String($0.dropFirst(remote.count + 1)) }.map { $0.split(separator: "/").first.map(String.init) ?? $0 }),
            ["unnamed"])
        XCTAssertTrue(r.files.keys.contains("\(remote)/unnamed/logs/\(log1)"))
        XCTAssertTrue(r.files.keys.contains("\(remote)/unnamed/index.html"))
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"])
    }

    func testARunCutAtAnyCallLeavesNothingPartialAndTheNextDeliversExactlyOnce() throws {
        let clean = try cleanRun()
        for after in [false, true] {
            for k in 1...clean.calls {
                let d = try makeDir()
                let r = MemoryRemote()
                r.failAt = k
                r.failAfterEffect = after
                // Refused, the run fails; with its answer lost after the effect, it may find
                // its work done (then it says so only when the remote is as a clean run's).
                if run(d, r) == ExitCode.ok {
                    // (Or the call refused only removed the emptied shipping folder.)
                    XCTAssertTrue(after || r.calls.last == "removeFolder", "call \(k) refused went unsaid")
                    XCTAssertEqual(r.files, clean.files, "call \(k) (after: \(after)): a run said ok with the remote not whole")
                }
                // Whatever the cut run left under a final name is whole.
                for (p, b) in r.files where !p.contains(DeliverCommand.temporaryPrefix) {
                    XCTAssertEqual(b, clean.files[p], "call \(k) (after: \(after)): \(p) not whole")
                }
                r.failAt = nil
                XCTAssertEqual(run(d, r), ExitCode.ok, "call \(k) (after: \(after)): the run after failed")
                XCTAssertEqual(r.files, clean.files, "call \(k) (after: \(after)): the remote differs from a clean run's")
                let receipts = ExportState(directory: d, fileName: ExportState.deliveredFileName)
                XCTAssertEqual(receipts.entries.count, 1)
                r.calls = []
                XCTAssertEqual(run(d, r), ExitCode.ok)
                XCTAssertEqual(r.calls, ["list"], "call \(k) (after: \(after)): a third run sent again")
            }
        }
    }

    func testACopyDamagedWhereItIsStoredIsNeverReceipted() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        r.onStore = { path, bytes in if path.hasSuffix(".cairn") { bytes[bytes.count / 2] ^= 0xFF } }
        XCTAssertEqual(run(d, r), ExitCode.tryLater)
        XCTAssertTrue(ExportState(directory: d, fileName: ExportState.deliveredFileName).entries.isEmpty)
        XCTAssertEqual(DeliveryStatus.read(directory: d)?.result, .failed)
        r.onStore = nil
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files, try cleanRun().files)
    }

    func testACopyDeletedOrCutAfterItsReceiptIsSentAgain() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        let whole = r.files
        let log = "\(remote)/unnamed/logs/\(log1)"
        r.files[log] = Array(whole[log]!.prefix(4096))
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files, whole)
        for p in whole.keys where p.hasSuffix(".gpx") { r.files[p] = nil }
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files, whole)
    }

    /// A zone added later renames a trip's conversions: the run deletes the ones that showed the
    /// place before it moves the new ones in. Between the two (a run cut there), the trip is not
    /// delivered: prune would delete it on its whole logs with its tracks gone. The next run
    /// finishes the job, and the trip is delivered again.
    func testATripWhoseTracksWentBeforeTheirNewOnesCameIsNotDelivered() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r, page: false), ExitCode.ok)
        let trip = try XCTUnwrap(catalogTrips(in: d, say: { _ in }).first?.trip)
        func delivered() -> Bool { !ExportState(directory: d, fileName: ExportState.deliveredFileName).exportedDestinations(trip).isEmpty }
        XCTAssertTrue(delivered())
        var first: (lat: Double, lon: Double)?
        try TripCatalog.read(trip) { e in if case .point(let f) = e, first == nil { first = (f.lat, f.lon) } }
        let zones = PrivacyZones([PrivacyZone(lat: first!.lat, lon: first!.lon, radiusM: 300)])
        let uncut = Set(r.files.keys.filter { $0.hasSuffix(".gpx") })
        XCTAssertEqual(uncut.count, 1)
        // list, listFolders (once), readBack (copies there), mirror, readBack, delete, moveAll: refused
        r.failAt = r.calls.count + 7
        XCTAssertNotEqual(run(d, r, page: false, zones: zones), ExitCode.ok)
        XCTAssertTrue(Set(r.files.keys).isDisjoint(with: uncut), "the track that showed the place went first")
        XCTAssertFalse(delivered(), "a trip without its tracks is not delivered")
        r.failAt = nil
        XCTAssertEqual(run(d, r, page: false, zones: zones), ExitCode.ok)
        XCTAssertTrue(delivered())
        let cut = Set(r.files.keys.filter { $0.hasSuffix(".gpx") })
        XCTAssertEqual(cut.count, 1)
        XCTAssertTrue(cut.isDisjoint(with: uncut))
    }

    /// A run cut on a card since replaced leaves its shipping folder under an id the new card
    /// never had: the new card's first run that sends removes it (attack-r22 c12: it waited for
    /// a later one), and no other board's.
    func testANewCardRemovesTheShippingFolderTheOldOneLeft() throws {
        let old = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(old, r), ExitCode.ok)
        let left = "\(remote)/.cairn-tmp-unnamed-0123456789abcdef/gpx/x.gpx"
        let others = "\(remote)/.cairn-tmp-bike-0123456789abcdef/gpx/x.gpx"
        r.files[left] = [1]
        r.files[others] = [2]
        // The same trip on a new card (the old card copied over): no status, no receipts. Its
        // first run that sends clears, once.
        let card = try makeDir()
        XCTAssertEqual(run(card, r), ExitCode.ok)
        XCTAssertTrue(r.calls.contains("listFolders"))
        XCTAssertNil(r.files[left], "the old card's shipping folder")
        r.calls = []
        XCTAssertEqual(run(card, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "a run with nothing to send")
        XCTAssertEqual(run(card, r, formats: [.gpx, .csv, .kml]), ExitCode.ok)
        XCTAssertFalse(r.calls.contains("listFolders"), "once per log directory")
        r.calls = []
        XCTAssertEqual(run(card, r, formats: [.gpx, .csv, .kml, .geojson]), ExitCode.ok)
        XCTAssertFalse(r.calls.contains("listFolders"), "once per log directory")
        XCTAssertEqual(r.files[others], [2], "another board's")
    }

    func testADroppedFormatLeavesItsEarlierFilesInPlace() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r, formats: [.gpx, .csv]), ExitCode.ok)
        let csv = r.files.keys.filter { $0.hasSuffix(".csv") }
        XCTAssertEqual(csv.count, 1)
        XCTAssertEqual(run(d, r, formats: [.gpx]), ExitCode.ok)
        XCTAssertEqual(r.files.keys.filter { $0.hasSuffix(".csv") }, csv)
    }

    /// A run cut after its upload leaves the batch in its shipping folder; the next run sends to
    /// the same folder (a slow link's upload resumes there, not from nothing), and removes it.
    /// A status naming anything else as the shipping folder is not believed.
    func testTheNextRunResumesInTheSameShippingFolder() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        r.failAt = 4  // the read-back after the upload (after list, listFolders, mirror)
        XCTAssertEqual(run(d, r), ExitCode.tryLater)
        XCTAssertTrue(r.files.keys.contains { $0.hasPrefix("\(remote)/.cairn-tmp-unnamed-") && $0.hasSuffix("/logs/\(log1)") })
        r.failAt = nil
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        // (listFolders: the log directory's first run that sends looked, once, for the shipping
        // folders a card before it left, its own not among them: not again.)
        XCTAssertEqual(r.calls, ["list", "mirror", "readBack", "moveAll", "readBack", "removeFolder"])
        XCTAssertEqual(r.mirroredTo.count, 2)
        XCTAssertEqual(r.mirroredTo.first, r.mirroredTo.last, "the same shipping folder")
        XCTAssertFalse(r.files.keys.contains { $0.contains(DeliverCommand.temporaryPrefix) })
        // A status whose shipping id is no id: a new one, nothing else touched.
        var status = try XCTUnwrap(DeliveryStatus.read(directory: d))
        status.shippingId = "../../photos"
        status.shippingLeft = true
        try status.write(directory: d)
        r.files["mem:photos/p.jpg"] = [1, 2, 3]
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files["mem:photos/p.jpg"], [1, 2, 3])
    }

    /// Another board delivers its log 1 to the same folder while this run uploads (its listing
    /// showed none): the move never replaces that log, this trip is not receipted, and the other
    /// board's copy stays.
    func testALogThatCameMeanwhileIsNeverReplaced() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        let other: [UInt8] = Array("CAIRNLOG another board's log".utf8)
        let path = "\(remote)/unnamed/logs/\(log1)"
        r.beforeMove = { r.files[path] = other }
        XCTAssertEqual(run(d, r), ExitCode.tryLater)
        XCTAssertEqual(r.files[path], other)
        XCTAssertTrue(ExportState(directory: d, fileName: ExportState.deliveredFileName).entries.isEmpty)
    }

    /// A copy damaged at its size after its receipt (a log and a GPX, one byte flipped): the
    /// next run said "already there" (the listing had sizes only); the receipt's MD5s find it
    /// in the listing with hashes, and it is sent again.
    func testACopyDamagedAtItsSizeIsFoundByItsHashAndSentAgain() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        let whole = r.files
        let log = "\(remote)/unnamed/logs/\(log1)"
        let gpx = try XCTUnwrap(r.files.keys.first { $0.hasPrefix("\(remote)/unnamed/gpx/") })
        for p in [log, gpx] { r.files[p]![r.files[p]!.count / 2] ^= 0x01 }
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertTrue(r.calls.contains("mirror"), "\(r.calls)")
        XCTAssertEqual(r.files[log], whole[log])
        XCTAssertEqual(r.files[gpx], whole[gpx])
        // Whole again: the next run sends nothing.
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"])
    }

    /// The files a run says it sent are the files that reached the remote: the page's and the
    /// key's too (a first delivery said "4 files" where 7 went).
    func testTheFilesSaidSentAreTheFilesThatWent() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        var dr = DeliveryRun(
            dir: d, remote: remote, board: "unnamed", transport: r, retries: 1, formats: [.gpx, .csv], copyLogs: true,
            stageOptions: ExportStageOptions(), quietFailures: true, page: true)
        XCTAssertEqual(dr.go(), ExitCode.ok)
        let there = r.files.filter { $0.key.hasPrefix("\(remote)/unnamed/") }
        let report = try XCTUnwrap(dr.report?.text)
        XCTAssertTrue(report.contains("\"sent_files\": \(there.count),"), "\(there.keys.sorted()) \(report)")
        XCTAssertTrue(report.contains("\"sent_bytes\": \(there.values.reduce(0) { $0 + $1.count }),"), report)
    }

    /// A backend that lists no hashes (WebDAV): a copy damaged at its size is found by the
    /// read-back each run makes of a few delivered trips' copies, and sent again.
    func testWithoutHashesACopyDamagedAtItsSizeIsFoundByAReadBack() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        r.hasHashes = false
        XCTAssertEqual(run(d, r), ExitCode.ok)
        let whole = r.files
        let gpx = try XCTUnwrap(r.files.keys.first { $0.hasPrefix("\(remote)/unnamed/gpx/") })
        r.files[gpx]![10] ^= 0x01
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertTrue(r.calls.contains("mirror"), "\(r.calls)")
        XCTAssertEqual(r.files[gpx], whole[gpx])
        // Whole: a run lists and reads back, and sends nothing.
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list", "readBack"])
    }

    /// A new card of the same board (a fresh log directory: its log 00000001.cairn and its trip 1
    /// again) delivers to the folder the first card filled: every name it takes carries its
    /// log's salt, nothing of the first card's is replaced, and the page shows both rides.
    /// (Before: the new card's log clashed with the first's, its trip failed on every run.)
    func testANewCardOfTheSameBoardDeliversBesideTheFirst() throws {
        let first = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(first, r), ExitCode.ok)
        let before = r.files.filter { !$0.key.hasSuffix("/index.html") && !$0.key.hasSuffix("/index.tsv") }
        let card = "/tmp/cairn-delivery-run-card2-\(getpid())-\(Int.random(in: 0..<1_000_000_000))"
        XCTAssertEqual(mkdir(card, 0o755), 0)
        let other = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/logs/crafted-values/00000001.cairn").path
        try Data(contentsOf: URL(fileURLWithPath: other)).write(to: URL(fileURLWithPath: card + "/00000001.cairn"))
        XCTAssertEqual(run(card, r), ExitCode.ok)
        for (p, b) in before { XCTAssertEqual(r.files[p], b, "\(p): the first card's copy") }
        let new = Set(r.files.keys).subtracting(before.keys).filter { !$0.hasSuffix("/index.html") && !$0.hasSuffix("/index.tsv") }
        XCTAssertTrue(new.contains("\(remote)/unnamed/logs/00000001-c0ffee01.cairn"), "\(new.sorted())")
        XCTAssertFalse(new.isEmpty)
        for p in new { XCTAssertTrue(p.contains("-c0ffee01"), "\(p): a name without the new card's salt") }
        let tsv = String(decoding: try XCTUnwrap(r.files["\(remote)/unnamed/index.tsv"]), as: UTF8.self)
        XCTAssertTrue(tsv.contains("trip1-508bf26d") && tsv.contains("trip1-c0ffee01"), tsv)
        r.calls = []
        XCTAssertEqual(run(card, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"])
        // The first card finds the page changed since it sent it (the new card's): made again,
        // the same, nothing sent; then nothing looked at.
        let both = r.files
        XCTAssertEqual(run(first, r), ExitCode.ok)
        XCTAssertFalse(r.calls.contains("mirror"), "\(r.calls)")
        XCTAssertEqual(r.files, both)
        r.calls = []
        XCTAssertEqual(run(first, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "the first card sends nothing again")
    }

    /// A trip delivered by cairn 0.3 under the plain names (a receipt without `+salted`) keeps
    /// them: an upgrade sends nothing again, and a trip that grows goes up under them.
    func testATripDeliveredUnderThePlainNamesKeepsThem() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        // Made into what 0.3 left: every name without the salt, the receipt without `+salted`.
        func plain(_ text: String) -> String {
            text.replacingOccurrences(of: "00000001-508bf26d.cairn", with: "00000001.cairn")
                .replacingOccurrences(of: "-trip1-508bf26d.", with: "-trip1.").replacingOccurrences(of: "+salted", with: "")
        }
        var files: [String: [UInt8]] = [:]
        for (p, b) in r.files {
            let text = p.hasSuffix(".tsv") || p.hasSuffix(".html") ? Array(plain(String(decoding: b, as: UTF8.self)).utf8) : b
            files[plain(p)] = text
        }
        r.files = files
        let receipts = d + "/" + ExportState.deliveredFileName
        let text = try String(contentsOfFile: receipts, encoding: .utf8)
        XCTAssertTrue(text.contains("+salted"), text)
        try plain(text).write(toFile: receipts, atomically: true, encoding: .utf8)
        // 0.3's status kept no page MD5s.
        let status = d + "/" + DeliveryStatus.fileName
        let lines = try String(contentsOfFile: status, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("page_") }
        try (lines.joined(separator: "\n") + "\n").write(toFile: status, atomically: true, encoding: .utf8)
        XCTAssertTrue(r.files.keys.contains("\(remote)/unnamed/logs/00000001.cairn"))
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "nothing sent again under new names")
        XCTAssertEqual(r.files, files)
        // A format added later goes up under the plain names too.
        XCTAssertEqual(run(d, r, formats: [.gpx, .csv, .kml]), ExitCode.ok)
        XCTAssertFalse(r.files.keys.contains { $0.contains("508bf26d.") }, "\(r.files.keys.sorted())")
        XCTAssertEqual(r.files.keys.filter { $0.hasSuffix(".kml") }.count, 1)
    }

    /// With zones and the logs going, the board's key goes beside them; it and the page are
    /// delivered files too: a byte flipped in either at its size is found by the listing's MD5
    /// and sent again (the key, this board's by the MD5 it went up with, not "another board's";
    /// the page made again). Before, neither was noticed, and a later run that sent a log
    /// failed "holds another key" on every run.
    func testADamagedKeyOrPageIsFoundAndSentAgain() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        let key = try XCTUnwrap(PrivacyKey(bytes: Array(0..<16)))
        let zones = PrivacyZones([PrivacyZone(lat: -40, lon: 170, radiusM: 300)], key: key)
        XCTAssertEqual(run(d, r, zones: zones), ExitCode.ok)
        let whole = r.files
        let keyPath = "\(remote)/unnamed/logs/privacy-key"
        let html = "\(remote)/unnamed/index.html"
        XCTAssertEqual(r.files[keyPath], key.bytes)
        for p in [keyPath, html] {
            r.files[p]![r.files[p]!.count / 2] ^= 0x01
            r.calls = []
            XCTAssertEqual(run(d, r, zones: zones), ExitCode.ok, p)
            XCTAssertTrue(r.calls.contains("mirror"), "\(p): \(r.calls)")
            XCTAssertEqual(r.files[p], whole[p], p)
            r.calls = []
            XCTAssertEqual(run(d, r, zones: zones), ExitCode.ok)
            XCTAssertEqual(r.calls, ["list"], "\(p): whole again, nothing sent")
        }
        // Another key there, never this card's (an earlier card's, another board's): kept; this
        // card's key goes beside it under its own name (attack-r22 c19).
        let other = "\(remote)/unnamed/logs/privacy-key"
        let d2 = try makeDir()
        let r2 = MemoryRemote()
        r2.files[other] = Array(repeating: 7, count: 16)
        r2.files["\(remote)/unnamed/logs/00000009-00000001.cairn"] = [1]
        XCTAssertEqual(run(d2, r2, zones: zones), ExitCode.ok)
        XCTAssertEqual(r2.files[other], Array(repeating: 7, count: 16))
        var m = MD5()
        m.add(key.bytes)
        XCTAssertEqual(r2.files["\(remote)/unnamed/" + TripShipment.keyPath(md5: m.hex())], key.bytes)
    }

    /// A picture of the page deleted on the remote after delivery (attack-r22 c22): it stayed
    /// gone, the page linking it, run after run. Now the next run draws it again and says so,
    /// and the run after sends nothing.
    func testAPictureDeletedThereIsDrawnAgain() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        XCTAssertEqual(run(d, r), ExitCode.ok)
        let whole = r.files
        let pictures = whole.keys.filter { $0.contains("/unnamed/pictures/") && $0.hasSuffix(".svg") }.sorted()
        XCTAssertFalse(pictures.isEmpty, "\(whole.keys.sorted())")
        r.files[pictures[0]] = nil
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.files[pictures[0]], whole[pictures[0]], "drawn again, the same")
        r.calls = []
        XCTAssertEqual(run(d, r), ExitCode.ok)
        XCTAssertEqual(r.calls, ["list"], "whole again, nothing sent")
    }

    /// A board folder that rclone keeps on the log directory's own card (an alias or a symlink to
    /// a folder beside the logs, a stick's mount point without the stick) was delivered to and
    /// said delivered (attack r21 case15) though copies there die with the card: refused (78),
    /// nothing sent, no receipt. A union with a folder off the card still goes.
    func testABoardFolderOnTheLogDirectorysCardIsRefused() throws {
        let d = try makeDir()
        let r = MemoryRemote()
        r.localRoots = .folders([POSIX.parent(of: d) + "/beside-\(getpid())/rides/unnamed"])
        XCTAssertEqual(run(d, r), ExitCode.config)
        XCTAssertTrue(r.files.isEmpty, "\(r.files.keys.sorted())")
        XCTAssertTrue(ExportState(directory: d, fileName: ExportState.deliveredFileName).entries.isEmpty)
        r.localRoots = .folders([POSIX.parent(of: d) + "/beside-\(getpid())", "/dev/shm/cairn-elsewhere"])
        XCTAssertEqual(run(d, r), ExitCode.ok)
    }
}
