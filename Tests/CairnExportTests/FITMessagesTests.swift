import XCTest

@testable import CairnExport

/// `FITMessage`: one description per message drives its definition and its data writes (the
/// files' bytes are pinned in `PinnedBytesTests`).
final class FITMessagesTests: XCTestCase {
    let all: [FITMessage] = [.fileId, .creator, .barometer, .event, .eventWithData, .lap, .session, .activity] + FITMessage.records

    func testEachFieldOnceAndSizesFromTheBaseType() {
        for m in all {
            XCTAssertEqual(Set(m.fields.map(\.number)).count, m.fields.count, "\(m.name): a field twice")
            XCTAssertEqual(m.dataSize, m.fields.reduce(0) { $0 + Int($1.type.size) })
        }
        XCTAssertEqual(FITBaseType.sint8.size, 1)
        XCTAssertEqual(FITBaseType.uint16.size, 2)
        XCTAssertEqual(FITBaseType.uint32z.size, 4)
    }

    func testDefinitionBytes() {
        XCTAssertEqual(
            FITMessage.fileId.definition(local: 0),
            [0x40, 0, 0, 0, 0, 5, 0, 1, 0x00, 1, 2, 0x84, 2, 2, 0x84, 3, 4, 0x8C, 4, 4, 0x86])
        XCTAssertEqual(FITMessage.activity.definition(local: 15).prefix(6), [0x4F, 0, 0, 34, 0, 7])
        XCTAssertEqual(FITMessage.lap.dataSize, 2 + 4 + 1 + 1 + 4 + 4 * 4 + 4 * 4 + 2 * 2 + 4 * 2 + 2 * 2 + 3)
    }

    /// A record has its four fixed fields, then each optional group its mask asks for, in order.
    func testRecordLayoutsFollowTheMask() {
        XCTAssertEqual(FITMessage.records[0].fields.map(\.number), [253, 0, 1, 5])
        XCTAssertEqual(FITMessage.records[63].fields.map(\.number), [253, 0, 1, 5, 78, 2, 73, 6, 32, 31, 91, 13])
        XCTAssertEqual(
            FITMessage.records[Int(FITWriter.hasSpeed | FITWriter.hasTemperature)].fields.map(\.number), [253, 0, 1, 5, 73, 6, 13])
        XCTAssertTrue(FITMessage.records.allSatisfy { $0.global == 20 })
    }
}
