import CairnCore
import Glibc
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
        XCTAssertEqual(l.msUntilDue(monoMs: 0), 60_000, "the connect waits in the kernel: no wake-up of its own")
        let first = l.failed("Host is down", monoMs: 100)
        XCTAssertEqual(first.first, .close)
        XCTAssertEqual(said(first), ["sensor C0:FF:EE:00:00:01 not connected: Host is down; trying again until it answers"])
        XCTAssertEqual(l.msUntilDue(monoMs: 100), 1000)
        XCTAssertEqual(l.msUntilDue(monoMs: 100, retryLateMs: 5000), 6000, "the retry rides on the loop's wake-ups")
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
            said(l.failed("Connection timed out", monoMs: 60_200)),
            ["sensor C0:FF:EE:00:00:01 lost: Connection timed out; trying again until it answers"])
        XCTAssertEqual(l.due(monoMs: 61_200), [.connect(addressType: 2)])
        XCTAssertEqual(said(l.failed("again", monoMs: 61_300)), [])
        _ = l.due(monoMs: 63_300)
        XCTAssertEqual(attach(at: 63_400), ["sensor C0:FF:EE:00:00:01 connected: heart rate"])
        XCTAssertEqual(said(l.failed("gone", monoMs: 124_000)).count, 1)
        XCTAssertEqual(l.msUntilDue(monoMs: 124_000), 1000, "back-off starts again after a steady connection")
    }

    /// Garbage is counted, said once per connection, and never ends the connection.
    /// The conversation of a heart-rate sensor up to ready (MTU, services, characteristics,
    /// descriptors), then the subscription's write response.
    static let heartRateConversation = [
        "03 17 00", "11 06 01 00 04 00 0D 18", "01 10 05 00 0A", "09 07 02 00 10 03 00 37 2A", "01 08 03 00 0A",
        "05 01 04 00 02 29", "13"
    ]

    func pdu(_ s: String) -> [UInt8] { s.split(separator: " ").map { UInt8($0, radix: 16)! } }

    /// A sensor that answers Exchange MTU twice (attack r19, finding 1): the second copy is an
    /// answer out of place, counted; discovery goes on and the link becomes ready.
    func testADuplicatedResponseDoesNotStallDiscovery() {
        var l = SensorLink(sensor: SensorAddress(address: 0xF0_CA_12_00_00_01, type: 2))
        _ = l.due(monoMs: 0)
        _ = l.connected(monoMs: 0)
        let c = Self.heartRateConversation
        _ = l.received(pdu(c[0]), arrivalMs: 0, monoMs: 0)
        XCTAssertEqual(said(l.received(pdu(c[0]), arrivalMs: 20, monoMs: 20)).count, 1, "said once")
        XCTAssertEqual(l.oddities, 1)
        XCTAssertEqual(l.msUntilDue(monoMs: 20), 29_980, "the services request is still outstanding, its timeout running")
        var saidNow: [String] = []
        for s in c.dropFirst() { saidNow += said(l.received(pdu(s), arrivalMs: 40, monoMs: 40)) }
        XCTAssertEqual(saidNow, ["sensor F0:CA:12:00:00:01 connected: heart rate"])
        XCTAssertTrue(l.isReady)
    }

    /// Whatever arrives, a link that is not ready within its bound is ended and tried again.
    func testALinkNotReadyInItsBoundFails() {
        var l = SensorLink(sensor: hr)
        _ = l.due(monoMs: 0)
        _ = l.connected(monoMs: 0)
        // The sensor answers each request just before the ATT timeout, slower than discovery may take.
        var t: Int64 = 0
        for s in Self.heartRateConversation.prefix(2) {
            t += 29_000
            XCTAssertEqual(l.due(monoMs: t), [])
            _ = l.received(pdu(s), arrivalMs: t, monoMs: t)
        }
        XCTAssertEqual(l.msUntilDue(monoMs: t), 60_000 - t)
        XCTAssertEqual(l.due(monoMs: 59_999), [])
        let out = l.due(monoMs: 60_000)
        XCTAssertEqual(out.first, .close)
        XCTAssertEqual(said(out), ["sensor C0:FF:EE:00:00:01 not connected: not ready in 60 s; trying again until it answers"])
    }

    /// A sensor that drops a second after each subscription while the adapter stays up (attack
    /// r19, finding 10): the waits keep doubling; its first changes are said, then the journal
    /// hears of it once per `LinkLines.refillMs`, each line saying what it did not say.
    func testASensorThatKeepsDroppingBacksOffAndIsRateLimited() {
        var l = SensorLink(sensor: SensorAddress(address: 0xC0_FF_EE_00_00_01, type: 2))
        var t: Int64 = 0
        var messages: [String] = []
        var waits: [Int64] = []
        var connects = 0
        while t < 3_600_000 {
            let acts = l.due(monoMs: t)
            messages += said(acts)
            if acts.contains(.connect(addressType: 2)) {
                connects += 1
                _ = l.connected(monoMs: t)
                for s in Self.heartRateConversation { messages += said(l.received(pdu(s), arrivalMs: t, monoMs: t)) }
                messages += said(l.failed("the link ended", monoMs: t + 1000))
                t += 1000
                waits.append(l.msUntilDue(monoMs: t))
            }
            t += max(1, l.msUntilDue(monoMs: t))
        }
        XCTAssertEqual(Array(waits.prefix(6)), [1000, 2000, 4000, 8000, 16_000, 16_000])
        XCTAssertLessThanOrEqual(connects, 3_600 / 17 + 5, "one try per 17 s once backed off (not 1,800 an hour)")
        let up = "sensor C0:FF:EE:00:00:01 connected: heart rate"
        let down = "sensor C0:FF:EE:00:00:01 lost: the link ended; trying again until it answers"
        XCTAssertEqual(Array(messages.prefix(6)), [up, down, up, down, up, down])
        XCTAssertLessThanOrEqual(messages.count, 6 + 12, "a burst of 6, then one line per 5 minutes: \(messages.count)")
        XCTAssertGreaterThanOrEqual(messages.count, 6 + 10)
        for m in messages.dropFirst(6) { XCTAssertTrue(m.hasSuffix("not said one by one)"), m) }
        // Then it stays up: the next loss after a steady minute starts from the first wait.
        _ = l.due(monoMs: t)
        _ = l.connected(monoMs: t)
        for s in Self.heartRateConversation { _ = l.received(pdu(s), arrivalMs: t, monoMs: t) }
        _ = l.failed("gone", monoMs: t + 90_000)
        XCTAssertEqual(l.msUntilDue(monoMs: t + 90_000), 1000)
    }

    /// The adapter powered off and on, twice, a minute apart (the devices boot's timeline):
    /// however unsteady the sensor was before, it is tried again every second while the adapter is
    /// down (each try fails at once), its loss and its return said even with the rate limit used up.
    func testAnAdapterGoingDownIsNotTheSensorsInstability() {
        var l = SensorLink(sensor: SensorAddress(address: 0xC0_FF_EE_00_00_01, type: 2))
        var t: Int64 = 0
        func attach() -> [String] {
            XCTAssertEqual(l.due(monoMs: t), [.connect(addressType: 2)])
            _ = l.connected(monoMs: t)
            return Self.heartRateConversation.flatMap { said(l.received(pdu($0), arrivalMs: t, monoMs: t)) }
        }
        // Flapping first: the back-off at 16 s, the lines' bucket empty.
        for _ in 0..<8 {
            _ = attach()
            _ = l.failed("the link ended", monoMs: t + 1000)
            t += 1000 + l.msUntilDue(monoMs: t + 1000)
        }
        _ = attach()
        XCTAssertTrue((1...300_000).contains(l.msUntilDue(monoMs: t)), "a held-back line waits for its token")
        t += 5000
        // The adapter goes down: the loss is said, tried again after 1 s, then every 2 s.
        let lost = said(l.failed("Software caused connection abort (ECONNABORTED)", monoMs: t, cause: .adapter))
        XCTAssertEqual(lost.count, 1)
        XCTAssertTrue(lost[0].contains("the adapter went down; trying again as soon as it is back"), lost[0])
        XCTAssertEqual(l.msUntilDue(monoMs: t), 1000)
        var waits: [Int64] = []
        for _ in 0..<4 {
            t += l.msUntilDue(monoMs: t)
            XCTAssertEqual(l.due(monoMs: t), [.connect(addressType: 2)])
            XCTAssertEqual(said(l.failed("no Bluetooth adapter is up (EHOSTUNREACH)", monoMs: t, cause: .adapter)), [])
            waits.append(l.msUntilDue(monoMs: t))
        }
        XCTAssertEqual(waits, [1000, 1000, 1000, 1000])
        t += 1000
        XCTAssertEqual(attach(), ["sensor C0:FF:EE:00:00:01 connected: heart rate"], "the return is said")
        // A sensor's own loss before the adapter's: forgiven when the adapter is seen down.
        t += 10_000
        _ = l.failed("Connection reset by peer (ECONNRESET)", monoMs: t)
        _ = l.failed("x", monoMs: t)
        l.adapterWentDown(monoMs: t + 100)
        XCTAssertLessThanOrEqual(l.msUntilDue(monoMs: t + 100), 1000)
    }

    /// A sensor configured without its address type: the type that connected is tried first
    /// after a loss (the other waits out the kernel's 40 s).
    func testTheTypeThatConnectedIsTriedFirst() {
        var l = SensorLink(sensor: hr)
        XCTAssertEqual(l.due(monoMs: 0), [.connect(addressType: 2)])
        _ = l.failed("x", monoMs: 0)
        XCTAssertEqual(l.due(monoMs: 1000), [.connect(addressType: 1)])
        _ = l.connected(monoMs: 1000)
        for s in Self.heartRateConversation { _ = l.received(pdu(s), arrivalMs: 1000, monoMs: 1000) }
        for i in 0..<4 {
            let t = Int64(i) * 100_000 + 100_000
            _ = l.failed("gone", monoMs: t)
            XCTAssertEqual(l.due(monoMs: t + 20_000), [.connect(addressType: 1)])
            _ = l.failed("Host is down", monoMs: t + 60_000)
        }
    }

    /// Which errors say the adapter went down, and when links ending together do.
    func testWhatSaysTheAdapterWentDown() {
        let table: [(Int32, Bool)] = [
            (EHOSTUNREACH, true), (ECONNABORTED, true), (ENETDOWN, true), (ENODEV, true),
            (ECONNRESET, false), (ETIMEDOUT, false), (EHOSTDOWN, false), (EAFNOSUPPORT, false), (EPERM, false)
        ]
        for (e, adapters) in table { XCTAssertEqual(AdapterDown.isAdapters(e), adapters, "\(e)") }
        XCTAssertEqual([0, 1, 2, 3].map(AdapterDown.fromLinksEnded), [false, false, true, true])
    }

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
