import XCTest

@testable import CairnCore

/// SipHash-2-4 against the paper's vectors (key 00 01 … 0f, messages 00 01 … of each length).
final class SipHashTests: XCTestCase {
    let key = (0..<16).map { UInt8($0) }

    func testThePapersVectors() {
        // From the SipHash paper (appendix A) and the reference implementation's vectors.h.
        let expected: [Int: UInt64] = [
            0: 0x726f_db47_dd0e_0e31,
            1: 0x74f8_39c5_93dc_67fd,
            7: 0xab02_00f5_8b01_d137,
            8: 0x93f5_f579_9a93_2462,
            15: 0xa129_ca61_49be_45e5,
            63: 0x958a_324c_eb06_4572
        ]
        for (n, want) in expected {
            let m = (0..<n).map { UInt8($0) }
            XCTAssertEqual(SipHash24.hash(key: key, m), want, "length \(n)")
        }
    }

    func testStreamingEqualsOneShot() {
        let m = (0..<37).map { UInt8($0 * 7 & 0xff) }
        var h = SipHash24(key: key)
        h.add(Array(m[0..<5]))
        h.add(Array(m[5..<20]))
        h.add(Array(m[20...]))
        XCTAssertEqual(h.finalize(), SipHash24.hash(key: key, m))
        XCTAssertLessThan(SipHash24.unit(.max), 1)
        XCTAssertEqual(SipHash24.unit(0), 0)
    }
}
