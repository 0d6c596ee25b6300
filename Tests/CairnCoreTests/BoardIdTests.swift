import XCTest

@testable import CairnCore

/// `BoardId`: what an id may hold, and errors that say what is wrong.
final class BoardIdTests: XCTestCase {
    func testValidIds() throws {
        for text in ["a", "Z", "0", "pi-zero-2w", "board_7.local", "rpi4-3fa9c2", String(repeating: "x", count: 32), "a.-_"] {
            XCTAssertEqual(try BoardId(parsing: text).text, text)
            XCTAssertEqual(BoardId(text)?.text, text)
            XCTAssertNil(BoardId.problem(text))
        }
    }

    func testInvalidIdsSayWhy() {
        let cases: [(String, String)] = [
            ("", "must not be empty"),
            (String(repeating: "x", count: 33), "at most 32 characters (this one has 33 bytes)"),
            ("a b", "(not ' ')"),
            ("a/b", "(not '/')"),
            ("../etc", "(not '/')"),
            ("..etc", "must not start with '.' or '-'"),
            (".hidden", "must not start with '.' or '-'"),
            ("-rf", "must not start with '.' or '-'"),
            ("zürich", "(not 'byte 0xc3')"),
            ("a\nb", "(not 'byte 0xa')"),
            ("a,b", "(not ',')"),
            ("a\"b", "(not '\"')")
        ]
        for (text, why) in cases {
            XCTAssertNil(BoardId(text), text)
            XCTAssertThrowsError(try BoardId(parsing: text), text) { e in
                let reason = (e as? BoardId.Invalid)?.reason ?? ""
                XCTAssertTrue(reason.contains(why), "\(text): \(reason)")
                XCTAssertTrue(reason.hasPrefix("a board id "), reason)
            }
        }
    }
}
