import XCTest

@testable import CairnLog

/// A log's salt read from its first 16 bytes alone (a remote's copy, read in part): the header
/// the writer puts down gives it back; anything that does not begin a log gives none.
final class FileHeaderSaltTests: XCTestCase {
    func testTheSaltOfAWrittenHeader() {
        let header = FileHeader(tripId: 7, part: 1, salt: 0xA1B2_C3D4).encoded()
        let rows: [(head: [UInt8], salt: UInt32?)] = [
            (Array(header.prefix(16)), 0xA1B2_C3D4),
            // Fewer or more bytes than the salt's end: none (the caller reads exactly 16).
            (Array(header.prefix(15)), nil),
            (header, nil),
            ([], nil),
            // Another file's first bytes, and a log's with its magic damaged.
            (Array(repeating: 0, count: 16), nil),
            ([UInt8(ascii: "X")] + Array(header[1..<16]), nil)
        ]
        for r in rows { XCTAssertEqual(FileHeader.salt(head: r.head), r.salt, "\(r.head)") }
        XCTAssertEqual(FileHeader.saltHeadLength, 16)
    }
}
