import CairnCore
import XCTest

@testable import CairnDevice

/// One sensor's connection plan: address types, back-off, timeouts, what is said.
final class SensorLinkTests: XCTestCase {
    let hr = SensorAddress(address: 0xC0_FF_EE_00_00_01, type: nil)

    func said(_ a: [SensorLink.Action]) -> [String] {
        a.compactMap { if case .event(.said(let t)) = $0 { return t } else { return nil } }
    }

    func testTriesRandomThenPublicWithBackOffAndSaysTheOutageOnce() {
        var l = SensorLink(sensor: hr)
        XCTAssertEqual(l.due(monoMs: 0), [.connect(addressType: 2)])
        XCTAssertEqual(l.msUntilDue(monoMs: 0), 1000, "the outcome is looked at every second")
        let first = l.failed("Host is down", monoMs: 100)
        XCTAssertEqual(first.first, .close)
        XCTAssertEqual(said(first), ["sensor C0:FF:EE:00:00:01 not connected: Host is down; trying again until it answers"])
        XCTAssertEqual(l.msUntilDue(monoMs: 100), 1000)
        XCTAssertEqual(l.due(monoMs: 1099), [])
        XCTAssertEqual(l.due(monoMs: 1100), [.connect(addressType: 1)])
        XCTAssertEqual(said(l.failed("Host is down", monoMs: 1200)), [], "said once per outage")
        XCTAssertEqual(l.msUntilDue(monoMs: 1200), 2000)
        var t: Int64 = 3200
        var waits: [Int64] = []
        for _ in 0..<6 {
            XCTAssertEqual(l.due(monoMs: t).count, 1)
            _ = l.failed("x", monoMs: t)
            waits.append(l.msUntilDue(monoMs: t))
            t += waits.last!
        }
        XCTAssertEqual(waits, [4000, 8000, 16000, 16000, 16000, 16000])
    }

    func testAConfiguredTypeIsAlwaysUsed() {
        var l = SensorLink(sensor: SensorAddress(address: 1, type: 1))
        XCTAssertEqual(l.due(monoMs: 0), [.connect(addressType: 1)])
        _ = l.failed("x", monoMs: 0)
        XCTAssertEqual(l.due(monoMs: 5000), [.connect(addressType: 1)])
    }

    func testConnectTimeoutAndRequestTimeout() {
        var l = SensorLink(sensor: hr)
        _ = l.due(monoMs: 0)
        XCTAssertEqual(l.due(monoMs: 59_999), [])
        XCTAssertEqual(said(l.due(monoMs: 60_000)), ["sensor C0:FF:EE:00:00:01 not connected: no connection in 60 s; trying again until it answers"])
        _ = l.due(monoMs: 61_000)
        XCTAssertEqual(l.connected(monoMs: 61_500), [.send([0x02, 0xB9, 0x00])])
        XCTAssertEqual(l.msUntilDue(monoMs: 61_500), 30_000)
        XCTAssertEqual(l.due(monoMs: 91_499), [])
        XCTAssertEqual(l.due(monoMs: 91_500).first, .close)
    }

    /// Connected, lost, back: "connected" each time it comes back, "lost" once per outage, the
    /// back-off from the start again; notifications carry the kernel's arrival time.
    func testLostAndBackAgain() {
        var l = SensorLink(sensor: SensorAddress(address: 0xC0_FF_EE_00_00_01, type: 2))
        _ = l.due(monoMs: 0)
        let conversation = [
            "03 17 00", "11 06 01 00 04 00 0D 18", "01 10 05 00 0A", "09 07 02 00 10 03 00 37 2A", "01 08 03 00 0A",
            "05 01 04 00 02 29"
        ]
        func attach(at t: Int64) -> [String] {
            _ = l.connected(monoMs: t)
            for s in conversation {
                _ = l.received(s.split(separator: " ").map { UInt8($0, radix: 16)! }, arrivalMs: t, monoMs: t)
            }
            return said(l.received([0x13], arrivalMs: t, monoMs: t))
        }
        XCTAssertEqual(attach(at: 10), ["sensor C0:FF:EE:00:00:01 connected: heart rate"])
        XCTAssertTrue(l.isReady)
        XCTAssertEqual(
            l.received([0x1B, 0x03, 0x00, 0x00, 0x48], arrivalMs: 90, monoMs: 100),
            [
                .event(
                    .notification(
                        SensorNotification(
                            address: 0xC0_FF_EE_00_00_01, characteristic: 0x2A37, arrivalMonoMs: 90, value: [0, 0x48])))
            ])
        XCTAssertEqual(
            said(l.failed("Connection timed out", monoMs: 200)),
            ["sensor C0:FF:EE:00:00:01 lost: Connection timed out; trying again until it answers"])
        XCTAssertEqual(l.due(monoMs: 1200), [.connect(addressType: 2)])
        XCTAssertEqual(said(l.failed("again", monoMs: 1300)), [])
        _ = l.due(monoMs: 3300)
        XCTAssertEqual(attach(at: 3400), ["sensor C0:FF:EE:00:00:01 connected: heart rate"])
        XCTAssertEqual(said(l.failed("gone", monoMs: 4000)).count, 1)
        XCTAssertEqual(l.msUntilDue(monoMs: 4000), 1000, "back-off starts again after a connection")
    }

    /// Garbage is counted, said once per connection, and never ends the connection.
    func testGarbageIsCountedAndSaidOnce() {
        var l = SensorLink(sensor: hr)
        _ = l.due(monoMs: 0)
        _ = l.connected(monoMs: 0)
        XCTAssertEqual(said(l.received([0xFF], arrivalMs: 1, monoMs: 1)).count, 1)
        for _ in 0..<100 { XCTAssertEqual(l.received([0xFF, 1, 2], arrivalMs: 1, monoMs: 1), []) }
        XCTAssertEqual(l.oddities, 101)
        XCTAssertTrue(l.isAttached)
    }

    func testArrivalTimeFromTheKernel() {
        XCTAssertEqual(BluetoothSensors.arrivalMonoMs(kernelRealNs: nil, realNowNs: 5_000_000_000, monoMs: 700), 700)
        XCTAssertEqual(BluetoothSensors.arrivalMonoMs(kernelRealNs: 4_750_000_000, realNowNs: 5_000_000_000, monoMs: 700), 450)
        // The real-time clock stepped back since, or a minute ago: the read time.
        XCTAssertEqual(BluetoothSensors.arrivalMonoMs(kernelRealNs: 6_000_000_000, realNowNs: 5_000_000_000, monoMs: 700), 700)
        XCTAssertEqual(BluetoothSensors.arrivalMonoMs(kernelRealNs: 0, realNowNs: 65_000_000_000, monoMs: 700), 700)
    }

    func testAddresses() {
        XCTAssertEqual(SensorAddress(parsing: "C0:FF:EE:00:00:01"), SensorAddress(address: 0xC0FF_EE00_0001, type: nil))
        XCTAssertEqual(SensorAddress(parsing: "c0:ff:ee:00:00:01 random")?.type, 2)
        XCTAssertEqual(SensorAddress(parsing: "C0:FF:EE:00:00:01  public")?.type, 1)
        for bad in [
            "", "C0:FF:EE:00:00", "C0:FF:EE:00:00:01:02", "C0:FF:EE:00:00:1", "C0:FF:EE:00:00:0G", "C0:FF:EE:00:00:01 static", "C0-FF-EE-00-00-01"
        ] {
            XCTAssertNil(SensorAddress(parsing: bad), bad)
        }
        XCTAssertEqual(SensorAddress(address: 0xC0FF_EE00_0001, type: 2).description, "C0:FF:EE:00:00:01 random")
    }

    /// Two sensors with one address are one sensor.
    func testOneLinkPerAddress() {
        let s = BluetoothSensors(sensors: [hr, SensorAddress(address: hr.address, type: 1)])
        XCTAssertEqual(s.msUntilDue(monoMs: 0), 0)
        XCTAssertEqual(s.state, "searching")
        XCTAssertEqual(BluetoothSensors(sensors: []).state, "none")
    }
}
