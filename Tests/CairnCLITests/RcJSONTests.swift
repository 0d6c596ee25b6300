import XCTest

@testable import cairn

/// The JSON reader of `RcloneDaemon`: small answers whole, a listing element by element in
/// bounded memory whatever way its bytes are cut.
final class RcJSONTests: XCTestCase {
    func testWhole() {
        let cases: [(String, RcJSON?)] = [
            ("{}", .object([])),
            ("{\"remotes\": [\"nas\", \"s3\"]}", .object([("remotes", .array([.string("nas"), .string("s3")]))])),
            (
                "{\n\t\"error\": \"a \\\"b\\\" \\u00e9 \\ud83d\\ude00\\n\",\n\t\"status\": 404\n}",
                .object([("error", .string("a \"b\" é 😀\n")), ("status", .scalar("404"))])
            ),
            ("[true, null, -1.5e3, []]", .array([.scalar("true"), .scalar("null"), .scalar("-1.5e3"), .array([])])),
            ("{\"a\": 1", nil),
            ("{\"a\" 1}", nil),
            ("{} x", nil),
            ("\"open", nil),
            ("", nil),
            (String(repeating: "[", count: 40) + String(repeating: "]", count: 40), nil)
        ]
        for (text, want) in cases { XCTAssertEqual(RcJSON.parse(Array(text.utf8)), want, text) }
        let error = RcJSON.parse(Array("{\"error\": \"401 Unauthorized\", \"status\": 500}".utf8))
        XCTAssertEqual(error?["error"]?.string, "401 Unauthorized")
        XCTAssertNil(error?["none"])
    }

    func testElementsAsTheyCome() {
        let text = """
            {
            \t"list": [
            \t\t{
            \t\t\t"Path": "a b/c, \\"d\\"}",
            \t\t\t"Size": -1,
            \t\t\t"IsDir": true
            \t\t},
            \t\t{"Path": "x", "Size": 3, "IsDir": false, "Hashes": {"md5": "abc"}},
            \t\t"stray",
            \t\t{"Path": "\(String(repeating: "z", count: 200))", "Size": 1}
            \t]
            }
            """
        for step in [1, 2, 7, 10_000] {
            var e = RcJSON.Elements(limit: 100)
            var got: [String] = []
            let bytes = Array(text.utf8)
            var i = 0
            while i < bytes.count {
                e.feed(bytes[i..<min(i + step, bytes.count)]) { got.append(String(decoding: $0, as: UTF8.self)) }
                i += step
            }
            XCTAssertEqual(
                got,
                [
                    "{\"Path\":\"a b/c, \\\"d\\\"}\",\"Size\":-1,\"IsDir\":true}",
                    "{\"Path\":\"x\",\"Size\":3,\"IsDir\":false,\"Hashes\":{\"md5\":\"abc\"}}"
                ], "step \(step)")
        }
    }

    func testEmptyListing() {
        var e = RcJSON.Elements()
        var n = 0
        e.feed(Array("{\n\t\"list\": []\n}\n".utf8)[...]) { _ in n += 1 }
        XCTAssertEqual(n, 0)
    }
}
