import CairnCore
import XCTest

@testable import CairnDevice

/// The ATT client's discovery, subscribing and values, on bytes: each step a PDU from the sensor
/// and the request cairn must answer with.
final class GATTClientTests: XCTestCase {
    func bytes(_ hex: String) -> [UInt8] {
        hex.split(separator: " ").map { UInt8($0, radix: 16)! }
    }

    func sent(_ out: [GATTClient.Output]) -> [String] {
        out.compactMap { o in
            if case .send(let q) = o { return q.bytes.map { hex($0) }.joined(separator: " ") }
            return nil
        }
    }

    /// A heart-rate sensor with a battery service (the database of Bumble's heart-rate example):
    /// the whole conversation, byte for byte.
    func testDiscoversSubscribesAndReadsAHeartRateSensor() {
        var g = GATTClient()
        XCTAssertEqual(sent(g.start()), ["02 B9 00"])
        let steps: [(sensor: String, cairn: [String])] = [
            ("03 F7 00", ["10 01 00 FF FF 00 28"]),
            (
                "11 06 01 00 05 00 00 18 06 00 09 00 01 18 0A 00 0F 00 0D 18 10 00 13 00 0F 18",
                ["10 14 00 FF FF 00 28"]
            ),
            ("01 10 14 00 0A", ["08 0A 00 0F 00 03 28"]),
            ("09 07 0B 00 10 0C 00 37 2A 0E 00 02 0F 00 38 2A", ["08 0F 00 0F 00 03 28"]),
            ("01 08 0F 00 0A", ["08 10 00 13 00 03 28"]),
            ("09 07 11 00 12 12 00 19 2A", ["08 12 00 13 00 03 28"]),
            ("01 08 12 00 0A", ["04 0D 00 0D 00"]),
            ("05 01 0D 00 02 29", ["04 13 00 13 00"]),
            ("05 01 13 00 02 29", ["12 0D 00 01 00"]),
            ("13", ["12 13 00 01 00"]),
            ("13", ["0A 12 00"])
        ]
        for (i, s) in steps.enumerated() {
            XCTAssertEqual(sent(g.receive(bytes(s.sensor))), s.cairn, "step \(i)")
        }
        XCTAssertFalse(g.isReady)
        XCTAssertEqual(g.receive(bytes("0B 5A")), [.value(characteristic: 0x2A19, bytes: [0x5A]), .subscribed([0x2A37, 0x2A19])])
        XCTAssertTrue(g.isReady)
        XCTAssertEqual(g.mtu, 185)
        XCTAssertEqual(g.receive(bytes("1B 0C 00 06 48")), [.value(characteristic: 0x2A37, bytes: [0x06, 0x48])])
        // An indication is confirmed, then handed up.
        XCTAssertEqual(g.receive(bytes("1D 12 00 59")), [.send(.confirmation), .value(characteristic: 0x2A19, bytes: [0x59])])
        XCTAssertEqual(g.readBattery(), [.send(.read(handle: 0x12))])
        XCTAssertEqual(g.readBattery(), [], "one request at a time")
        XCTAssertEqual(g.receive(bytes("0B 58")), [.value(characteristic: 0x2A19, bytes: [0x58])])
    }

    /// A power sensor that only indicates, with a 128-bit vendor characteristic between, MTU
    /// refused, and its services answered over several responses.
    func testPowerSensorIndicatingWithVendorCharacteristics() {
        var g = GATTClient()
        _ = g.start()
        let steps: [(sensor: String, cairn: [String])] = [
            ("01 02 00 00 06", ["10 01 00 FF FF 00 28"]),  // MTU: Request Not Supported
            ("11 06 01 00 07 00 00 18", ["10 08 00 FF FF 00 28"]),
            ("11 06 08 00 10 00 18 18", ["10 11 00 FF FF 00 28"]),
            ("01 10 11 00 0A", ["08 08 00 10 00 03 28"]),
            (
                // 0x0009: a 128-bit characteristic (value handle 0x000A), 0x000B: power (indicate).
                "09 15 09 00 02 0A 00 00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F", ["08 0A 00 10 00 03 28"]
            ),
            ("09 07 0B 00 20 0C 00 63 2A", ["08 0C 00 10 00 03 28"]),
            ("01 08 0C 00 0A", ["04 0D 00 10 00"]),
            // A user description first, the configuration in the second answer.
            ("05 01 0D 00 01 29", ["04 0E 00 10 00"]),
            ("05 01 0E 00 02 29", ["12 0E 00 02 00"])
        ]
        for (i, s) in steps.enumerated() {
            XCTAssertEqual(sent(g.receive(bytes(s.sensor))), s.cairn, "step \(i)")
        }
        XCTAssertEqual(g.receive(bytes("13")), [.subscribed([0x2A63])])
        XCTAssertEqual(g.mtu, 23)
        XCTAssertEqual(
            g.receive(bytes("1D 0C 00 00 00 FA 00")),
            [.send(.confirmation), .value(characteristic: 0x2A63, bytes: [0, 0, 0xFA, 0])])
    }

    func testADeviceWithoutOurServicesFails() {
        var g = GATTClient()
        _ = g.start()
        _ = g.receive(bytes("03 17 00"))
        XCTAssertEqual(sent(g.receive(bytes("11 06 01 00 FF FF 00 18"))), [])
        var h = GATTClient()
        _ = h.start()
        _ = h.receive(bytes("03 17 00"))
        let out = h.receive(bytes("01 10 01 00 0A"))
        XCTAssertEqual(out, [.failed("offers none of heart rate, speed and cadence, power or battery")])
    }

    func testARefusedSubscriptionIsSaidAndTheOthersGoOn() {
        var g = GATTClient()
        _ = g.start()
        for s in [
            "03 17 00", "11 06 01 00 08 00 16 18", "01 10 09 00 0A", "09 07 02 00 10 03 00 5B 2A", "01 08 03 00 0A",
            "05 01 04 00 02 29"
        ] { _ = g.receive(bytes(s)) }
        XCTAssertEqual(
            g.receive(bytes("01 12 04 00 05")),
            [.oddity("0x2A5B refused the subscription (ATT error 0x05)"), .failed("notifies none of heart rate, speed and cadence, power or battery")]
        )
    }

    /// What a sensor may send at any time: its own MTU exchange and requests (answered), garbage
    /// and answers to nothing (counted), values of handles cairn never found.
    func testRequestsGarbageAndStrangers() {
        var g = GATTClient()
        XCTAssertEqual(g.receive(bytes("02 00 02")), [.send(.exchangeMTUResponse(serverMTU: 185))])
        XCTAssertEqual(g.mtu, 185)
        XCTAssertEqual(g.receive(bytes("0A 03 00")), [.send(.error(requestOpcode: 0x0A, handle: 3, code: 0x06))])
        XCTAssertEqual(sent(g.receive(bytes("0A 03 00"))), ["01 0A 03 00 06"])
        XCTAssertEqual(g.receive([]), [.oddity("a PDU cairn does not take (opcode 0x00)")])
        XCTAssertEqual(g.receive(bytes("1B 0C")), [.oddity("a PDU cairn does not take (opcode 0x1B)")])
        XCTAssertEqual(g.receive(bytes("13")), [.oddity("an answer to nothing asked")])
        XCTAssertEqual(g.receive(bytes("1B 44 00 01")), [.oddity("a value of an unknown handle 68")])
        XCTAssertEqual(g.receive(bytes("FF 01 02")), [.oddity("a PDU cairn does not take (opcode 0xFF)")])
    }

    /// Malformed lists: a length that does not divide the rest, a zero length, a bad format.
    func testMalformedResponsesAreOther() {
        for pdu in ["09 07 0B 00 10 0C 00 37", "09 00", "11 06 01 00 05", "05 03 01 00 02 29", "05 01 01 00 02", "01 10 14 00"] {
            if case .other = ATTResponse(decoding: bytes(pdu)) { continue }
            XCTFail("\(pdu) decoded as \(ATTResponse(decoding: bytes(pdu)))")
        }
        XCTAssertEqual(ATTResponse(decoding: bytes("1B 0C 00")), .notification(handle: 0x0C, value: []))
    }

    func testRequestBytes() {
        let table: [(ATTRequest, String)] = [
            (.exchangeMTU(clientMTU: 185), "02 B9 00"),
            (.findInformation(start: 0x0D, end: 0x10), "04 0D 00 10 00"),
            (.readByType(start: 1, end: 0xFFFF, type: 0x2803), "08 01 00 FF FF 03 28"),
            (.read(handle: 0x1234), "0A 34 12"),
            (.readByGroupType(start: 1, end: 0xFFFF, type: 0x2800), "10 01 00 FF FF 00 28"),
            (.write(handle: 0x0D, value: [1, 0]), "12 0D 00 01 00"),
            (.exchangeMTUResponse(serverMTU: 23), "03 17 00"),
            (.error(requestOpcode: 0x0A, handle: 2, code: 6), "01 0A 02 00 06"),
            (.confirmation, "1E")
        ]
        for (q, b) in table { XCTAssertEqual(q.bytes, bytes(b), "\(q)") }
    }
}
