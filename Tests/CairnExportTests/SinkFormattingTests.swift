import CairnCore
import Foundation
import XCTest
@testable import CairnExport
@testable import CairnLog

/// The byte-level formatting must agree with `TextFormat` digit for digit.
final class SinkFormattingTests: XCTestCase {
    func render(_ body: (OutputSink) -> Void) throws -> String {
        let path = ExportSupport.tempDir() + "/s.txt"
        let s = try OutputSink(creating: path, force: false)
        body(s)
        XCTAssertNoThrow(try s.finish())
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func testDecimalMatchesTextFormat() throws {
        var rng = SplitMix64(state: 7)
        var values: [Double] = [0, -0.0, 0.5, -0.5, 1, -1, 0.005, 0.015, 179.99999995, -179.99999995, 47.3769123, 1e9, -1e-9, 12.5, 420.256]
        for _ in 0..<2000 { values.append((rng.uniform() - 0.5) * pow(10, Double(rng.next() % 8))) }
        for d in [0, 1, 2, 3, 6, 7] {
            let text = try render { s in
                for v in values {
                    s.decimal(v, d, trim: false); s.byte(UInt8(ascii: " "))
                    s.decimal(v, d, trim: true); s.byte(UInt8(ascii: "\n"))
                }
            }
            for (v, line) in zip(values, text.split(separator: "\n")) {
                XCTAssertEqual(String(line), "\(TextFormat.fixed(v, d) ?? "nil") \(TextFormat.trimmed(v, d) ?? "nil")", "\(v) with \(d) decimals")
            }
        }
        XCTAssertEqual(
            try render {
                XCTAssertFalse($0.decimal(.nan, 2)); XCTAssertFalse($0.decimal(-.infinity, 2))
            }, "")
    }

    func testIsoTimeAndIntegersMatch() throws {
        let times: [Int64] = [0, -1, 1_748_764_801_250, 951_782_400_000, 4_107_542_400_000, 1_748_764_859_999, 1_748_851_200_000, 1_748_851_199_001]
        let text = try render { s in
            for t in times { s.isoTime(ms: t); s.byte(10) }; s.int(-42); s.byte(10); s.int(Int64.min); s.byte(10)
        }
        XCTAssertEqual(text, times.map { TextFormat.isoTime(ms: $0) + "\n" }.joined() + "-42\n\(Int64.min)\n")
    }

    func testLargeWritesAndSpoolsKeepOrder() throws {
        let spool = Spool()
        var expect = ""
        let text = try render { s in
            for round in 0..<3 {
                // Round 0 stays in memory, the others go through the spool's temporary file.
                let n = round == 0 ? 100 : 30_000
                for i in 0..<n { spool.out.int(Int64(i)); spool.out.byte(44) }
                s.put("[")
                spool.drain(into: s)
                s.put("]")
                expect += "[" + (0..<n).map { "\($0)," }.joined() + "]"
                XCTAssertTrue(spool.isEmpty)
            }
        }
        XCTAssertNil(spool.error)
        XCTAssertEqual(text, expect)
    }
}
