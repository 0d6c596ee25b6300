import CairnLog
import XCTest

@testable import CairnExport

/// What deliver and retention trust of a remote copy (issue 38): a table of remote logs
/// against a local one, listings against the copies a trip needs, rclone's listing lines, MD5.
final class RemoteCopiesTests: XCTestCase {
    func testALogIsReplacedOnlyByItsGrowthOrWhereItsCopyIsDamaged() {
        let local = FileDigest(size: 1000, crc: 1)
        typealias D = RemoteCopies.LogDecision
        // (what, remote, its salt, remote is a prefix, local flaw, local whole, decision)
        let rows: [(String, FileDigest?, UInt32?, Bool, String?, Bool, D)] = [
            ("nothing there", nil, nil, false, nil, false, .send),
            ("nothing there, local torn", nil, nil, false, "torn", false, .send),
            ("the same bytes", local, 7, true, nil, false, .same),
            ("an earlier copy", FileDigest(size: 600, crc: 2), 7, true, nil, false, .grow),
            ("a short piece without its header", FileDigest(size: 4, crc: 2), nil, true, nil, false, .grow),
            ("the local log lost its tail", FileDigest(size: 1200, crc: 2), 7, false, "torn", false, .keep("")),
            ("the local log is shorter, cut at a record", FileDigest(size: 1200, crc: 2), 7, false, nil, false, .keep("")),
            ("same size, other bytes: the copy damaged", FileDigest(size: 1000, crc: 2), 7, false, nil, false, .repair),
            ("same size, other bytes, the local log torn", FileDigest(size: 1000, crc: 2), 7, false, "torn", false, .keep("")),
            ("an earlier copy, the local log damaged", FileDigest(size: 600, crc: 2), 7, true, "damaged", false, .keep("")),
            ("another log", FileDigest(size: 600, crc: 2), 8, false, nil, false, .keep("")),
            ("a shorter copy that is no prefix: damaged", FileDigest(size: 600, crc: 2), 7, false, nil, false, .repair),
            ("a shorter copy that is no prefix, the local log torn", FileDigest(size: 600, crc: 2), 7, false, "torn", false, .keep("")),
            ("an earlier copy, the local log whole", FileDigest(size: 600, crc: 2), 7, true, nil, true, .grow),
            ("the same bytes, the local log whole", local, 7, true, nil, true, .same),
            // attack-r24 c17: the local log and garbage after it; the log is whole, so the copy is damaged.
            ("a copy longer than the whole local log: bytes added there", FileDigest(size: 1200, crc: 2), 7, false, nil, true, .repair),
            ("longer than the whole local log, no header there", FileDigest(size: 1200, crc: 2), nil, false, nil, true, .repair),
            ("longer than the whole local log, now torn", FileDigest(size: 1200, crc: 2), 7, false, "torn", true, .keep("")),
            ("longer and another log, the local log whole", FileDigest(size: 1200, crc: 2), 8, false, nil, true, .keep(""))
        ]
        for (what, remote, salt, prefix, flaw, whole, want) in rows {
            let got = RemoteCopies.log(
                local: local, localSalt: 7, localFlaw: flaw, localWhole: whole, remote: remote, remoteSalt: salt, remoteIsPrefix: prefix)
            if case .keep = want {
                guard case .keep(let why) = got else { return XCTFail("\(what): \(got)") }
                XCTAssertFalse(why.isEmpty, what)
            } else {
                XCTAssertEqual(got, want, what)
            }
        }
    }

    func testATripThatShrankSinceItsDeliveryIsNotSentAgain() {
        let a = (name: "00000001.cairn", digest: FileDigest(size: 900, crc: 1))
        let b = (name: "00000002.cairn", digest: FileDigest(size: 300, crc: 2))
        XCTAssertNil(RemoteCopies.shrank(delivered: [a, b], now: [a, b], flaws: [:]))
        XCTAssertNil(RemoteCopies.shrank(delivered: [a], now: [a, b], flaws: [:]), "a new part")
        XCTAssertNil(RemoteCopies.shrank(delivered: [a], now: [(a.name, FileDigest(size: 950, crc: 3))], flaws: [:]), "grown")
        XCTAssertNotNil(RemoteCopies.shrank(delivered: [a], now: [(a.name, FileDigest(size: 899, crc: 3))], flaws: [:]))
        XCTAssertNotNil(RemoteCopies.shrank(delivered: [a, b], now: [a], flaws: [:]))
        XCTAssertNotNil(RemoteCopies.shrank(delivered: [a], now: [(a.name, FileDigest(size: 900, crc: 9))], flaws: [a.name: "damaged"]))
        XCTAssertNil(RemoteCopies.shrank(delivered: [a], now: [(a.name, FileDigest(size: 900, crc: 9))], flaws: [:]))
    }

    func testACopyCountsOnlyWhenListedWhole() {
        typealias F = RemoteCopies.FileCheck
        let listing = [
            "logs/1.cairn": F(name: "logs/1.cairn", size: 10, md5: "aa"), "logs/2.cairn": F(name: "logs/2.cairn", size: 4096),
            "logs/3.cairn": F(name: "logs/3.cairn", size: 30, md5: "cc")
        ]
        XCTAssertEqual(RemoteCopies.found([F(name: "logs/1.cairn", size: 10, md5: "aa")], in: listing), .whole)
        XCTAssertEqual(RemoteCopies.found([F(name: "logs/1.cairn", size: 10)], in: listing), .whole, "no local hash: sizes")
        XCTAssertEqual(RemoteCopies.found([F(name: "logs/2.cairn", size: 4096, md5: "bb")], in: listing), .whole, "no remote hash: sizes")
        XCTAssertEqual(
            RemoteCopies.found([F(name: "logs/1.cairn", size: 10, md5: "ab")], in: listing), .notWhole(["logs/1.cairn: other bytes (MD5 aa, not ab)"])
        )
        XCTAssertEqual(
            RemoteCopies.found([F(name: "logs/2.cairn", size: 9000)], in: listing), .notWhole(["logs/2.cairn: 4096 bytes, not 9000"]))
        XCTAssertEqual(
            RemoteCopies.found([F(name: "logs/4.cairn", size: 1), F(name: "logs/3.cairn", size: 30)], in: listing),
            .notWhole(["logs/4.cairn: missing"]))
        XCTAssertEqual(RemoteCopies.found([], in: [:]), .whole)
    }

    func testRclonesListingLines() {
        func line(_ s: String) -> [UInt8] { Array(s.utf8) }
        XCTAssertEqual(
            RemoteCopies.listed(
                line(
                    #"{"Path":"logs/00000001.cairn","Name":"00000001.cairn","Size":1195,"IsDir":false,"#
                        + #""Hashes":{"md5":"0CC175B9C0F1B6A831C399E269772661"}},"#)),
            RemoteCopies.FileCheck(name: "logs/00000001.cairn", size: 1195, md5: "0cc175b9c0f1b6a831c399e269772661"))
        XCTAssertEqual(
            RemoteCopies.listed(line(#"{ "Path" : "gpx/a \"b\"\u00e9.gpx", "Size" : 7, "IsDir" : false },"#)),
            RemoteCopies.FileCheck(name: "gpx/a \"b\"é.gpx", size: 7))
        XCTAssertNil(RemoteCopies.listed(line(#"{"Path":"logs","Name":"logs","Size":-1,"IsDir":true}"#)))
        XCTAssertNil(RemoteCopies.listed(line("[")))
        XCTAssertNil(RemoteCopies.listed(line(#"{"Path":"x","Size":"12"}"#)))
        XCTAssertNil(RemoteCopies.listed(line(#"{"Path":"x\"#)))
    }

    func testMD5() {
        func md5(_ s: String) -> String {
            var m = MD5()
            m.add(Array(s.utf8))
            return m.hex()
        }
        XCTAssertEqual(md5(""), "d41d8cd98f00b204e9800998ecf8427e")
        XCTAssertEqual(md5("a"), "0cc175b9c0f1b6a831c399e269772661")
        XCTAssertEqual(md5("The quick brown fox jumps over the lazy dog"), "9e107d9d372bb6826bd81d3542a419d6")
        let long = String(repeating: "1234567890", count: 8)
        XCTAssertEqual(md5(long), "57edf4a22be3c955ac49da2e2107b67a")
        // In pieces of every size, as a file is read.
        let bytes = Array(String(repeating: "cairn", count: 100).utf8)
        var whole = MD5()
        whole.add(bytes)
        for piece in [1, 3, 63, 64, 65, 200] {
            var m = MD5()
            var i = 0
            while i < bytes.count {
                m.add(Array(bytes[i..<min(bytes.count, i + piece)]))
                i += piece
            }
            XCTAssertEqual(m.hex(), whole.hex(), "pieces of \(piece)")
        }
    }
}
