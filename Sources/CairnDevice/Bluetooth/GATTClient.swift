/// The GATT client of one sensor connection, pure: the discovery sequence (MTU, the services,
/// their characteristics, each one's Client Characteristic Configuration descriptor), the
/// subscriptions and the battery read, one request at a time as ATT requires; then the
/// notifications and indications as values. Bytes in, requests and values out; the executor
/// (`BluetoothSensors`) does the I/O.
public struct GATTClient: Sendable {
    /// The services and characteristics cairn takes, service UUID to characteristic UUID:
    /// heart rate, cycling speed and cadence, cycling power, battery.
    public static let wanted: [(service: UInt16, characteristic: UInt16)] = [
        (0x180D, 0x2A37), (0x1816, 0x2A5B), (0x1818, 0x2A63), (0x180F, 0x2A19)
    ]
    static let primaryService: UInt16 = 0x2800
    static let characteristicDeclaration: UInt16 = 0x2803
    static let clientConfiguration: UInt16 = 0x2902
    static let batteryLevel: UInt16 = 0x2A19
    /// The ATT MTU cairn offers: the largest notification it takes is far under it.
    public static let clientMTU: UInt16 = 185

    public struct Characteristic: Equatable, Sendable {
        public var uuid: UInt16
        public var properties: UInt8
        public var valueHandle: UInt16
        /// The last handle of its descriptors.
        public var end: UInt16
        public var configHandle: UInt16?
        public var canNotify: Bool { properties & 0x10 != 0 }
        public var canIndicate: Bool { properties & 0x20 != 0 }
        public var canRead: Bool { properties & 0x02 != 0 }
    }

    public enum Output: Equatable, Sendable {
        case send(ATTRequest)
        /// A characteristic's value: notified, indicated or read (the battery).
        case value(characteristic: UInt16, bytes: [UInt8])
        /// Discovery and subscribing are over: these characteristics notify.
        case subscribed([UInt16])
        /// The sensor has none of the wanted services, or refused every subscription.
        case failed(String)
        /// A subscription refused, a PDU out of place: counted, said once by the caller.
        case oddity(String)
    }

    enum Phase: Equatable, Sendable {
        case idle, mtu, services, characteristics, descriptors, subscribing, battery, ready
    }

    private(set) var phase = Phase.idle
    public private(set) var mtu: UInt16 = 23
    /// The request the sensor has yet to answer.
    public private(set) var outstanding: ATTRequest?
    private var services: [(uuid: UInt16, start: UInt16, end: UInt16)] = []
    private var serviceIndex = 0
    private var declarations: [UInt16] = []
    private var nextHandle: UInt16 = 1
    public private(set) var characteristics: [Characteristic] = []
    private var charIndex = 0

    public init() {}

    public var isReady: Bool { phase == .ready }

    /// The first request of a new connection.
    public mutating func start() -> [Output] {
        phase = .mtu
        return [ask(.exchangeMTU(clientMTU: Self.clientMTU))]
    }

    /// A read of the battery level when it is due and the client is idle (none when there is no
    /// readable battery level, or a request is outstanding).
    public mutating func readBattery() -> [Output] {
        guard phase == .ready, outstanding == nil,
            let b = characteristics.first(where: { $0.uuid == Self.batteryLevel && $0.canRead })
        else { return [] }
        return [ask(.read(handle: b.valueHandle))]
    }

    /// One PDU from the sensor.
    public mutating func receive(_ pdu: [UInt8]) -> [Output] {
        let r = ATTResponse(decoding: pdu)
        switch r {
        case .notification(let h, let v):
            return value(handle: h, v)
        case .indication(let h, let v):
            return [.send(.confirmation)] + value(handle: h, v)
        case .request(let op, let bytes):
            if op == ATTOpcode.exchangeMTURequest, bytes.count == 3 {
                let theirs = UInt16(bytes[1]) | UInt16(bytes[2]) << 8
                mtu = max(23, min(theirs, Self.clientMTU))
                return [.send(.exchangeMTUResponse(serverMTU: Self.clientMTU))]
            }
            let h = bytes.count >= 3 ? UInt16(bytes[1]) | UInt16(bytes[2]) << 8 : 0
            return [.send(.error(requestOpcode: op, handle: h, code: ATTOpcode.requestNotSupported))]
        case .other(let op):
            return [.oddity("a PDU cairn does not take (opcode 0x\(hex(op)))")]
        default:
            guard let asked = outstanding else { return [.oddity("an answer to nothing asked")] }
            // A response of another kind (a duplicate, a stale answer) leaves the request
            // outstanding, with its timeout: taken as the answer, it would end discovery.
            guard r.answers(asked) else { return [.oddity("an answer out of place")] }
            outstanding = nil
            return answered(asked, r)
        }
    }

    private mutating func ask(_ q: ATTRequest) -> Output {
        outstanding = q
        return .send(q)
    }

    private func value(handle: UInt16, _ v: [UInt8]) -> [Output] {
        guard let c = characteristics.first(where: { $0.valueHandle == handle }) else {
            return [.oddity("a value of an unknown handle \(handle)")]
        }
        return [.value(characteristic: c.uuid, bytes: v)]
    }

    private mutating func answered(_ asked: ATTRequest, _ r: ATTResponse) -> [Output] {
        switch (phase, r) {
        case (.mtu, .exchangeMTU(let theirs)):
            mtu = max(23, min(theirs, Self.clientMTU))
            return beginServices()
        case (.mtu, .error):
            return beginServices()
        case (.services, .readByGroupType(let entries)):
            var last: UInt16 = 0
            for e in entries {
                last = e.end
                guard e.value.count == 2 else { continue }
                let uuid = UInt16(e.value[0]) | UInt16(e.value[1]) << 8
                if Self.wanted.contains(where: { $0.service == uuid }), e.start <= e.end {
                    services.append((uuid, e.start, e.end))
                }
            }
            if last == 0xFFFF || last < nextHandle { return beginCharacteristics() }
            nextHandle = last + 1
            return [ask(.readByGroupType(start: nextHandle, end: 0xFFFF, type: Self.primaryService))]
        case (.services, .error):
            return beginCharacteristics()
        case (.characteristics, .readByType(let entries)):
            let s = services[serviceIndex]
            var last: UInt16 = 0
            for e in entries where e.handle >= nextHandle && e.handle <= s.end {
                last = e.handle
                declarations.append(e.handle)
                guard e.value.count == 5 else { continue }  // 128-bit UUIDs: not ours
                let uuid = UInt16(e.value[3]) | UInt16(e.value[4]) << 8
                let wantedHere = Self.wanted.contains { $0.service == s.uuid && $0.characteristic == uuid }
                guard wantedHere else { continue }
                let valueHandle = UInt16(e.value[1]) | UInt16(e.value[2]) << 8
                characteristics.append(
                    Characteristic(uuid: uuid, properties: e.value[0], valueHandle: valueHandle, end: s.end))
            }
            if last == 0 || last >= s.end { return nextService() }
            nextHandle = last + 1
            return [ask(.readByType(start: nextHandle, end: s.end, type: Self.characteristicDeclaration))]
        case (.characteristics, .error):
            return nextService()
        case (.descriptors, .findInformation(let entries)):
            let c = characteristics[charIndex]
            var last: UInt16 = 0
            for e in entries where e.handle >= nextHandle && e.handle <= c.end {
                last = e.handle
                if e.uuid == Self.clientConfiguration { characteristics[charIndex].configHandle = e.handle }
            }
            if characteristics[charIndex].configHandle != nil || last == 0 || last >= c.end {
                charIndex += 1
                return nextDescriptors()
            }
            nextHandle = last + 1
            return [ask(.findInformation(start: nextHandle, end: c.end))]
        case (.descriptors, .error):
            charIndex += 1
            return nextDescriptors()
        case (.subscribing, .write):
            charIndex += 1
            return nextSubscription(refused: nil)
        case (.subscribing, .error(_, _, let code)):
            let c = characteristics[charIndex]
            characteristics[charIndex].configHandle = nil
            charIndex += 1
            return nextSubscription(refused: "0x\(hex(c.uuid)) refused the subscription (ATT error 0x\(hex(code)))")
        case (.battery, .read(let v)), (.ready, .read(let v)):
            let out: [Output] = [.value(characteristic: Self.batteryLevel, bytes: v)]
            if phase == .battery { return out + finish() }
            return out
        case (.battery, .error):
            return finish()
        case (.ready, .error):
            return []
        default:
            outstanding = asked
            return [.oddity("an answer out of place")]
        }
    }

    private mutating func beginServices() -> [Output] {
        phase = .services
        nextHandle = 1
        return [ask(.readByGroupType(start: 1, end: 0xFFFF, type: Self.primaryService))]
    }

    private mutating func beginCharacteristics() -> [Output] {
        guard !services.isEmpty else {
            return [.failed("offers none of heart rate, speed and cadence, power or battery")]
        }
        phase = .characteristics
        serviceIndex = -1
        return nextService()
    }

    private mutating func nextService() -> [Output] {
        if serviceIndex >= 0 { closeCharacteristics(of: services[serviceIndex]) }
        serviceIndex += 1
        guard serviceIndex < services.count else {
            phase = .descriptors
            charIndex = 0
            return nextDescriptors()
        }
        let s = services[serviceIndex]
        declarations = []
        nextHandle = s.start
        return [ask(.readByType(start: s.start, end: s.end, type: Self.characteristicDeclaration))]
    }

    /// Each characteristic of the service ends where the next declaration begins.
    private mutating func closeCharacteristics(of s: (uuid: UInt16, start: UInt16, end: UInt16)) {
        for i in characteristics.indices where characteristics[i].valueHandle >= s.start && characteristics[i].valueHandle <= s.end {
            if let next = declarations.filter({ $0 > characteristics[i].valueHandle }).min() {
                characteristics[i].end = next - 1
            }
        }
    }

    private mutating func nextDescriptors() -> [Output] {
        while charIndex < characteristics.count {
            let c = characteristics[charIndex]
            if (c.canNotify || c.canIndicate) && c.valueHandle < c.end {
                nextHandle = c.valueHandle + 1
                return [ask(.findInformation(start: nextHandle, end: c.end))]
            }
            charIndex += 1
        }
        phase = .subscribing
        charIndex = 0
        return nextSubscription(refused: nil)
    }

    private mutating func nextSubscription(refused: String?) -> [Output] {
        let said: [Output] = refused.map { [.oddity($0)] } ?? []
        while charIndex < characteristics.count {
            let c = characteristics[charIndex]
            if let h = c.configHandle {
                return said + [ask(.write(handle: h, value: c.canNotify ? [0x01, 0x00] : [0x02, 0x00]))]
            }
            charIndex += 1
        }
        let subscribed = characteristics.filter { $0.configHandle != nil }.map(\.uuid)
        if subscribed.isEmpty, !characteristics.contains(where: { $0.uuid == Self.batteryLevel && $0.canRead }) {
            return said + [.failed("notifies none of heart rate, speed and cadence, power or battery")]
        }
        phase = .battery
        if let b = characteristics.first(where: { $0.uuid == Self.batteryLevel && $0.canRead }) {
            return said + [ask(.read(handle: b.valueHandle))]
        }
        return said + finish()
    }

    private mutating func finish() -> [Output] {
        phase = .ready
        return [.subscribed(characteristics.filter { $0.configHandle != nil }.map(\.uuid))]
    }
}

func hex(_ v: UInt16) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

func hex(_ v: UInt8) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return s.count < 2 ? "0" + s : s
}
