import XCTest

@testable import CairnExport

/// The page's ledger (`index.tsv`): written and read back the same, merged by key, and read
/// without loss or failure whatever the file holds.
final class TripIndexTests: XCTestCase {
    func entry(_ id: UInt64, start: Int64? = 1_748_764_800_000, name: String? = nil) -> TripIndex.Entry {
        var e = TripIndex.Entry(key: TripIndex.key(tripId: id), tripId: id, name: name ?? "20250601-080000-trip\(id)")
        e.startMs = start
        e.utcOffsetS = 7200
        e.activity = "ride"
        e.distanceM = 41_360.5
        e.movingS = 4632
        e.ascentM = 320
        e.points = 4600
        e.picture = "pictures/\(e.name).svg"
        e.files = ["gpx/\(e.name).gpx", "logs/00000001.cairn"]
        return e
    }

    func testWrittenIndexReadsBackTheSame() {
        var i = TripIndex()
        i.merge(entry(1))
        var odd = entry(2, start: nil, name: "a\tb\\c d\ne")
        odd.utcOffsetS = nil
        odd.ascentM = nil
        odd.activity = "\u{301}combining after a tab"
        odd.picture = nil
        odd.files = ["gpx/with space.gpx", "csv/tab\there.csv", "\u{301}combining"]
        i.merge(odd)
        let text = i.text
        XCTAssertTrue(text.hasPrefix("# cairn trip index, version 1\nkey\ttrip\tstart_ms\t"), text)
        XCTAssertEqual(text.split(separator: "\n").count, 4, "version, header, one line per trip: \(text)")
        let back = TripIndex(text: text)
        XCTAssertEqual(back.problems, [])
        XCTAssertEqual(back.entries, i.entries)
        XCTAssertEqual(back.text, text)
    }

    func testReExportReplacesItsLineInPlace() {
        var i = TripIndex()
        i.merge(entry(1))
        i.merge(entry(2))
        var again = entry(1)
        again.distanceM = 12
        i.merge(again)
        XCTAssertEqual(i.entries.map(\.key), ["trip1", "trip2"])
        XCTAssertEqual(i.entry(key: "trip1")?.distanceM, 12)
        // A second recording of the same id (its name suffix) is another trip.
        XCTAssertNotEqual(TripIndex.key(tripId: 1, suffix: "-00000007"), TripIndex.key(tripId: 1))
        XCTAssertEqual(TripIndex.key(tripId: 1, board: "pi-1"), "pi-1/trip1")
        // Trip 1 of a new card, or of another board in the folder, is another trip (issue 38).
        XCTAssertEqual(TripIndex.key(tripId: 1, board: "pi-1", salt: 0xa1b2), "pi-1/trip1-0000a1b2")
        XCTAssertNotEqual(TripIndex.key(tripId: 1, salt: 0x10), TripIndex.key(tripId: 1, salt: 0x4400))
    }

    func testBadLinesAreKeptVerbatimAndReported() {
        var i = TripIndex()
        i.merge(entry(1))
        let good = i.text
        let n = TripIndex.columns.count
        let bad = [
            "trip9\tnot-a-number" + String(repeating: "\t", count: n - 2),  // trip id
            "short\t1",  // field count
            "trip8\t8\tx" + String(repeating: "\t", count: n - 3),  // start_ms
            "trip7\t7" + String(repeating: "\t", count: 7) + "bad\\q" + String(repeating: "\t", count: n - 10),  // escape
            "# a comment someone wrote",
            "\u{FFFD}garbage"
        ]
        let text = good + bad.joined(separator: "\n") + "\n"
        let r = TripIndex(text: text)
        XCTAssertEqual(r.entries, i.entries)
        XCTAssertEqual(r.kept, bad)
        XCTAssertEqual(r.problems.count, 5, "\(r.problems)")
        XCTAssertTrue(r.problems.allSatisfy { $0.hasPrefix("line ") && $0.hasSuffix("kept as it is") }, "\(r.problems)")
        XCTAssertTrue(r.problems[0].contains("column trip"), r.problems[0])
        XCTAssertEqual(r.problems[1], "line 5: 2 fields, the header names \(n); kept as it is")
        // Written back, nothing is lost, and a merge leaves the kept lines alone.
        var m = r
        m.merge(entry(3))
        let back = TripIndex(text: m.text)
        XCTAssertEqual(back.kept, bad)
        XCTAssertEqual(back.entries.map(\.key), ["trip1", "trip3"])
    }

    /// The figures added for issue 42 (elapsed, top speed, climb source, temperature, left out,
    /// picture size, the sensors' figures): written and read back; an older file without their columns reads them as
    /// unknown and gains the columns, empty, when written back.
    func testNewColumnsReadBackAndOlderFilesReadThemAsUnknown() {
        var e = entry(1)
        e.elapsedS = 5400
        e.maxSpeedMps = 14.25
        e.climbSource = "barometer"
        e.temperatureMinC = 11.5
        e.temperatureMaxC = 18
        e.leftOut = 42
        (e.pictureWidth, e.pictureHeight) = (320, 486)
        (e.heartRateAvg, e.heartRateMax, e.cadenceAvg, e.powerAvgW, e.powerMaxW) = (142, 171, 88, 205, 640)
        var i = TripIndex()
        i.merge(e)
        let back = TripIndex(text: i.text)
        XCTAssertEqual(back.problems, [])
        // The points left out are written as a flag: a count beside the public page is the
        // time hidden near home (attack-r20).
        var flagged = e
        flagged.leftOut = 1
        XCTAssertEqual(back.entries, [flagged])
        XCTAssertTrue(i.text.contains("\t5400\t14.25\tbarometer\t11.5\t18\t1\t320x486\t142\t171\t88\t205\t640\t\n"), i.text)
        let lines = i.text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        XCTAssertEqual(lines[2][lines[1].firstIndex(of: "left_out")!], "1", i.text)

        let old = """
            # cairn trip index, version 1
            key\ttrip\tstart_ms\tutc_offset_s\tactivity\tdistance_m\tmoving_s\tascent_m\tpoints\tname\tpicture\tfiles
            trip2\t2\t1748764800000\t7200\tride\t41360.5\t4632\t320\t4600\tn\tpictures/n.svg\tgpx/n.gpx

            """
        let r = TripIndex(text: old)
        XCTAssertEqual(r.problems, [])
        let o = r.entries[0]
        XCTAssertNil(o.elapsedS)
        XCTAssertNil(o.maxSpeedMps)
        XCTAssertNil(o.climbSource)
        XCTAssertNil(o.temperatureMinC)
        XCTAssertNil(o.leftOut)
        XCTAssertNil(o.pictureSize)
        XCTAssertNil(o.heartRateAvg)
        XCTAssertNil(o.powerMaxW)
        XCTAssertFalse(o.withheld)
        XCTAssertEqual(o.distanceM, 41_360.5)
        let rewritten = r.text.split(separator: "\n").map(String.init)
        XCTAssertEqual(rewritten[1], TripIndex.columns.joined(separator: "\t"))
        XCTAssertTrue(rewritten[2].hasSuffix("gpx/n.gpx" + String(repeating: "\t", count: 13)), rewritten[2])
        XCTAssertEqual(TripIndex(text: r.text).entries, r.entries)
        // Another card's ride withheld (attack-r22 c29) reads back withheld.
        var w = r
        w.withhold(key: "trip2")
        XCTAssertTrue(w.text.split(separator: "\n")[2].hasSuffix("\t1"), w.text)
        XCTAssertEqual(TripIndex(text: w.text).entries.map(\.withheld), [true])
        // A size that does not read is no size, and no problem.
        let odd = TripIndex(text: i.text.replacingOccurrences(of: "320x486", with: "wide"))
        XCTAssertEqual(odd.problems, [])
        XCTAssertNil(odd.entries[0].pictureSize)
    }

    func testNewerVersionsColumnsAreKept() {
        let text = """
            # cairn trip index, version 2
            key\ttrip\tboard\tstart_ms\tname\tfiles\tweather
            trip4\t4\tpi-1\t1748764800000\tx-trip4\tgpx/x-trip4.gpx\tsunny

            """
        let r = TripIndex(text: text)
        XCTAssertEqual(r.problems.count, 1)
        XCTAssertTrue(r.problems[0].contains("version 2"), r.problems[0])
        XCTAssertEqual(r.entries.count, 1)
        XCTAssertEqual(r.entries[0].files, ["gpx/x-trip4.gpx"])
        XCTAssertEqual(r.entries[0].extra, ["board": "pi-1", "weather": "sunny"])
        let back = TripIndex(text: r.text)
        XCTAssertEqual(back.entries, r.entries, r.text)
        XCTAssertTrue(r.text.hasPrefix("# cairn trip index, version 2\n"), r.text)
    }

    func testNoVersionLineOrEmptyFileIsNotFatal() {
        XCTAssertEqual(TripIndex(text: "").entries, [])
        XCTAssertEqual(TripIndex(text: "").problems, [], "an empty file is an empty index")
        let r = TripIndex(text: "hello\nworld\n")
        XCTAssertEqual(r.kept, ["hello", "world"])
        XCTAssertEqual(r.problems.count, 3)
        // Lines in Windows form read the same.
        var i = TripIndex()
        i.merge(entry(5))
        let crlf = i.text.replacingOccurrences(of: "\n", with: "\r\n")
        XCTAssertEqual(TripIndex(text: crlf).entries, i.entries)
    }

    /// A line with NUL bytes (an index cut and padded with zeros) is no text: dropped and said,
    /// never kept to be written back (attack-r20).
    func testLinesOfZerosAreDroppedNotKept() {
        var i = TripIndex()
        i.merge(entry(1))
        let padded = i.text + String(repeating: "\0", count: 5000) + "\n" + "odd\0line\n"
        let r = TripIndex(text: padded)
        XCTAssertEqual(r.entries, i.entries)
        XCTAssertEqual(r.kept, [])
        XCTAssertEqual(r.problems, ["line 4: not text (NUL bytes); dropped", "line 5: not text (NUL bytes); dropped"])
        XCTAssertFalse(r.text.utf8.contains(0))
        XCTAssertEqual(r.text, i.text)
    }
}
