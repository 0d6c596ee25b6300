import XCTest

@testable import cairn

/// What `RcloneDaemon` asks rclone rcd: each call of the seam as its rc method and parameters,
/// the same operations and options as `Rclone`'s commands; its failures as `Rclone`'s.
final class RcloneCallsTests: XCTestCase {
    func testCalls() {
        typealias C = RcloneCalls.Call
        let cases: [(C, C)] = [
            (
                RcloneCalls.list("nas:rides/b"),
                C(
                    method: "operations/list",
                    body: "{\"fs\": \"nas:rides/b\", \"remote\": \"\", \"opt\": {\"recurse\": true, \"noModTime\": true, \"noMimeType\": true}}")
            ),
            (
                // With each file's MD5 where the backend has one (`lsjson --hash-type md5`).
                RcloneCalls.list("nas:rides/b", hashes: true),
                C(
                    method: "operations/list",
                    body:
                        "{\"fs\": \"nas:rides/b\", \"remote\": \"\", \"opt\": {\"recurse\": true, \"showHash\": true, \"hashTypes\": [\"md5\"],"
                        + " \"noModTime\": true, \"noMimeType\": true}}")
            ),
            (
                RcloneCalls.list("nas:", foldersOnly: true),
                C(
                    method: "operations/list",
                    body: "{\"fs\": \"nas:\", \"remote\": \"\", \"opt\": {\"dirsOnly\": true, \"noModTime\": true, \"noMimeType\": true}}")
            ),
            (
                RcloneCalls.mirror("/logs/.out", to: "nas:r/.cairn-x"),
                C(
                    method: "sync/sync",
                    body: "{\"srcFs\": \":local,copy_links:/logs/.out\", \"dstFs\": \"nas:r/.cairn-x\", \"_config\": {\"DeleteMode\": 1}}")
            ),
            (
                RcloneCalls.mirror("logs/.out", to: "nas:r"),
                C(method: "sync/sync", body: "{\"srcFs\": \":local,copy_links:./logs/.out\", \"dstFs\": \"nas:r\", \"_config\": {\"DeleteMode\": 1}}")
            ),
            (
                RcloneCalls.delete(listedIn: "/l/.s/paths-2", under: "nas:\"q\""),
                C(method: "operations/delete", body: "{\"fs\": \"nas:\\\"q\\\"\", \"_filter\": {\"FilesFromRaw\": [\"/l/.s/paths-2\"]}}")
            ),
            (
                RcloneCalls.deleteMatching("*.partial", under: "nas:r"),
                C(method: "operations/delete", body: "{\"fs\": \"nas:r\", \"_filter\": {\"IncludeRule\": [\"*.partial\"]}}")
            ),
            (RcloneCalls.removeFolder("nas:r/x"), C(method: "operations/purge", body: "{\"fs\": \"nas:r/x\", \"remote\": \"\"}"))
        ]
        for (got, want) in cases { XCTAssertEqual(got, want) }
    }

    func testMoves() {
        XCTAssertEqual(
            RcloneCalls.moveAll("nas:s", into: "nas:t", keepList: nil, excludeList: nil),
            [
                .init(
                    method: "sync/move",
                    body: "{\"srcFs\": \"nas:s\", \"dstFs\": \"nas:t\", \"deleteEmptySrcDirs\": true, \"_config\": {\"IgnoreTimes\": true}}")
            ])
        XCTAssertEqual(
            RcloneCalls.moveAll("nas:s", into: "nas:t", keepList: "/k", excludeList: "/e"),
            [
                .init(
                    method: "sync/move",
                    body:
                        "{\"srcFs\": \"nas:s\", \"dstFs\": \"nas:t\", \"_config\": {\"Immutable\": true}, \"_filter\": {\"FilesFromRaw\": [\"/k\"]}}"),
                .init(
                    method: "sync/move",
                    body:
                        "{\"srcFs\": \"nas:s\", \"dstFs\": \"nas:t\", \"deleteEmptySrcDirs\": true, \"_config\": {\"IgnoreTimes\": true}, \"_filter\": {\"ExcludeFrom\": [\"/e\"]}}"
                )
            ])
    }

    func testDownloadPaths() {
        let cases: [(String, String, String?)] = [
            ("logs/00000001.cairn", "nas:rides/b", "/[nas%3Arides%2Fb]/logs/00000001.cairn"),
            ("a b/ü?#%.gpx", "/m/x", "/[%2Fm%2Fx]/a%20b/%C3%BC%3F%23%25.gpx"),
            ("x", "nas:a]b", nil)
        ]
        for (path, folder, want) in cases { XCTAssertEqual(RcloneCalls.download(path, under: folder), want, path) }
    }

    /// A call is silent while rclone's work counters stay still: elapsed time and speed, which
    /// move on their own, are not progress; bytes, checks and listings are.
    func testProgressIsTheWorkCountersOnly() throws {
        func p(_ s: String) throws -> [String] { RcloneCalls.progress(try XCTUnwrap(RcJSON.parse(Array(s.utf8)))) }
        let a = try p("{\"bytes\": 1000, \"checks\": 2, \"elapsedTime\": 3.5, \"speed\": 12.5, \"transfers\": 1}")
        XCTAssertEqual(a, try p("{\"bytes\": 1000, \"checks\": 2, \"elapsedTime\": 9.5, \"speed\": 0, \"transfers\": 1}"))
        XCTAssertNotEqual(a, try p("{\"bytes\": 1001, \"checks\": 2, \"elapsedTime\": 3.5, \"speed\": 12.5, \"transfers\": 1}"))
        XCTAssertNotEqual(a, try p("{\"bytes\": 1000, \"checks\": 3, \"elapsedTime\": 3.5, \"speed\": 12.5, \"transfers\": 1}"))
        XCTAssertNotEqual(try p("{\"listed\": 4}"), try p("{\"listed\": 5}"))
    }

    func testFailures() {
        let cases: [(Int, String, String, Bool)] = [
            (404, "{\"error\": \"error in ListJSON: directory not found\", \"status\": 404}", "error in ListJSON: directory not found", true),
            (500, "{\n\t\"error\": \"couldn't list files: 401 Unauthorized\"\n}", "couldn't list files: 401 Unauthorized", false),
            (401, "Unauthorized\n", "rclone rcd refused cairn's password (401)", false),
            (502, "", "rclone rcd answered 502", false)
        ]
        for (status, body, detail, notFound) in cases {
            let f = RcloneCalls.failure("list x", status: status, body: Array(body.utf8))
            XCTAssertEqual(f.description, "list x: " + detail)
            XCTAssertEqual(f.notFound, notFound)
            XCTAssertFalse(f.interrupted)
        }
    }

    func testStartAndAuthorization() {
        XCTAssertEqual(RcloneCalls.port(fromLog: "2026/12/07 02:23:07 NOTICE: Serving remote control on http://127.0.0.1:45895/"), 45895)
        XCTAssertNil(RcloneCalls.port(fromLog: "2026/12/07 NOTICE: Config file not found - using defaults"))
        XCTAssertNil(RcloneCalls.port(fromLog: "Serving remote control on http://127.0.0.1:99999/"))
        XCTAssertEqual(RcloneCalls.basic("u", "p"), "dTpw")
        XCTAssertEqual(RcloneCalls.basic("ab", "cd"), "YWI6Y2Q=")
        XCTAssertEqual(RcloneCalls.basic("abc", "de"), "YWJjOmRl")
        XCTAssertEqual(RcloneCalls.basic("a", "b1"), "YTpiMQ==")
    }

    func testSplitAndSections() {
        let cases: [(String, String, String)] = [
            ("nas:rides/b/index.tsv", "nas:rides/b", "index.tsv"), ("nas:x", "nas:", "x"), ("/m/x", "/m", "x"), ("/x", "/", "x"),
            ("nas:/x", "nas:/", "x")
        ]
        for (path, folder, name) in cases {
            let s = RcloneDaemon.split(path)
            XCTAssertEqual(s.folder, folder, path)
            XCTAssertEqual(s.name, name, path)
        }
        let dump = RcJSON.parse(
            Array("{\"home\": {\"type\": \"local\"}, \"c\": {\"type\": \"crypt\", \"remote\": \"home:/x\", \"n\": 3}, \"bad\": 1}".utf8))!
        XCTAssertEqual(RcloneCalls.sections(dump), ["home": ["type": "local"], "c": ["type": "crypt", "remote": "home:/x", "n": "3"]])
    }
}
