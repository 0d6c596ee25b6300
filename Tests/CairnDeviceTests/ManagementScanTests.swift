import XCTest

@testable import CairnDevice

/// `cairn sensors`' scan on bytes: the commands it sends the management socket, the events it reads.
final class ManagementScanTests: XCTestCase {
    func testCommands() {
        XCTAssertEqual(ManagementScan.command(start: true, index: 0), [0x23, 0x00, 0x00, 0x00, 0x01, 0x00, 0x06])
        XCTAssertEqual(ManagementScan.command(start: false, index: 1), [0x24, 0x00, 0x01, 0x00, 0x01, 0x00, 0x06])
    }

    func testDeviceFoundWithNameAndServices() {
        let eir: [UInt8] = [2, 1, 6, 9, 9] + Array("cairn-hr".utf8) + [5, 3, 0x0D, 0x18, 0x0F, 0x18]
        let body: [UInt8] = [0x01, 0x00, 0x00, 0x12, 0xCA, 0xF0, 2, 0xC4, 0, 0, 0, 0, UInt8(eir.count), 0] + eir
        let packet: [UInt8] = [0x12, 0x00, 0x00, 0x00, UInt8(body.count), 0] + body
        XCTAssertEqual(
            ManagementScan.event(packet),
            .found(ManagementScan.Device(address: 0xF0CA_1200_0001, type: 2, rssi: -60, name: "cairn-hr", services: [0x180D, 0x180F])))
        XCTAssertEqual(ManagementScan.servicesText([0x180D, 0x180F, 0x1234]), "heart rate, battery")
        XCTAssertEqual(ManagementScan.servicesText([0x1234]), "-")
        // Cut anywhere: never a crash, never a device from half a packet.
        for n in 0..<packet.count { XCTAssertEqual(ManagementScan.event(Array(packet[0..<n])), .other, "\(n) bytes") }
    }

    func testMalformedAdvertisingDataEndsTheReading() {
        // A shortened name, then an element whose length runs past the end.
        let (name, services) = ManagementScan.advertisingData([4, 8, 0x61, 0x62, 0x63, 9, 3, 0x16, 0x18])
        XCTAssertEqual(name, "abc")
        XCTAssertEqual(services, [])
        XCTAssertEqual(ManagementScan.advertisingData([0, 3, 0x16, 0x18]).1, [], "a zero length ends it")
        XCTAssertEqual(ManagementScan.advertisingData([4, 2, 0x18, 0x18, 0x16]).1, [0x1818], "an odd byte is left")
    }

    func testAnswersAndDiscovering() {
        // Command Status for Start Discovery: Permission Denied (no CAP_NET_ADMIN).
        XCTAssertEqual(ManagementScan.event([0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x23, 0x00, 0x14]), .answered(opcode: 0x23, status: 0x14))
        XCTAssertEqual(ManagementScan.event([0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x23, 0x00, 0x00, 0x06]), .answered(opcode: 0x23, status: 0))
        XCTAssertEqual(ManagementScan.event([0x13, 0x00, 0x00, 0x00, 0x02, 0x00, 0x06, 0x01]), .discovering(true))
        XCTAssertEqual(ManagementScan.event([0x05, 0x00, 0x00, 0x00, 0x00, 0x00]), .other)
    }
}
