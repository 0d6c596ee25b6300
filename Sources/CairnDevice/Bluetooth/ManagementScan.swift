/// Listing what advertises nearby through the kernel's management interface (`cairn sensors`),
/// pure: the commands as bytes, the events parsed (Device Found with its advertising data, the
/// answers to Start Discovery). `MGMT_OP_START_DISCOVERY` needs CAP_NET_ADMIN; the kernel says
/// Permission Denied to others.
public enum ManagementScan {
    static let startDiscovery: UInt16 = 0x0023
    static let stopDiscovery: UInt16 = 0x0024
    /// LE public and LE random (the address types' bits 1 and 2).
    static let leTypes: UInt8 = 0x06

    /// Start (or stop) Discovery on adapter `index` for LE devices.
    public static func command(start: Bool, index: UInt16) -> [UInt8] {
        let op = start ? startDiscovery : stopDiscovery
        return [UInt8(op & 0xFF), UInt8(op >> 8), UInt8(index & 0xFF), UInt8(index >> 8), 1, 0, leTypes]
    }

    /// One device heard: its address and type, name and the services it advertises.
    public struct Device: Equatable, Sendable {
        public var address: UInt64
        /// 1 LE public, 2 LE random.
        public var type: UInt8
        public var rssi: Int8
        public var name: String?
        public var services: [UInt16]

        public init(address: UInt64, type: UInt8, rssi: Int8, name: String?, services: [UInt16]) {
            self.address = address
            self.type = type
            self.rssi = rssi
            self.name = name
            self.services = services
        }
    }

    public enum Event: Equatable, Sendable {
        case found(Device)
        /// The answer to a command: its opcode and status (0 success, 0x14 permission denied).
        case answered(opcode: UInt16, status: UInt8)
        /// Discovering started (true) or stopped.
        case discovering(Bool)
        case other
    }

    /// One packet from the management socket.
    public static func event(_ p: [UInt8]) -> Event {
        guard p.count >= 6 else { return .other }
        func u16(_ i: Int) -> UInt16 { UInt16(p[i]) | UInt16(p[i + 1]) << 8 }
        let code = u16(0), length = Int(u16(4))
        guard p.count >= 6 + length else { return .other }
        let body = Array(p[6..<(6 + length)])
        switch code {
        case 0x0001 where body.count >= 3, 0x0002 where body.count >= 3:
            return .answered(opcode: UInt16(body[0]) | UInt16(body[1]) << 8, status: body[2])
        case 0x0013 where body.count >= 2:
            return .discovering(body[1] != 0)
        case 0x0012 where body.count >= 14:
            var address: UInt64 = 0
            for i in (0..<6).reversed() { address = address << 8 | UInt64(body[i]) }
            let eirLength = Int(UInt16(body[12]) | UInt16(body[13]) << 8)
            guard body.count >= 14 + eirLength else { return .other }
            let (name, services) = advertisingData(Array(body[14..<(14 + eirLength)]))
            return .found(Device(address: address, type: body[6], rssi: Int8(bitPattern: body[7]), name: name, services: services))
        default:
            return .other
        }
    }

    /// The name (complete or shortened) and the 16-bit service UUIDs (complete or incomplete
    /// lists) of advertising data; a malformed tail ends the reading.
    static func advertisingData(_ d: [UInt8]) -> (String?, [UInt16]) {
        var name: String?
        var services: [UInt16] = []
        var i = 0
        while i < d.count {
            let n = Int(d[i])
            guard n > 0, i + 1 + n <= d.count else { break }
            let type = d[i + 1], value = Array(d[(i + 2)..<(i + 1 + n)])
            switch type {
            case 0x08 where name == nil, 0x09:
                name = String(decoding: value, as: UTF8.self)
            case 0x02, 0x03:
                var j = 0
                while j + 1 < value.count {
                    let u = UInt16(value[j]) | UInt16(value[j + 1]) << 8
                    if !services.contains(u) { services.append(u) }
                    j += 2
                }
            default: break
            }
            i += 1 + n
        }
        return (name, services)
    }

    /// The services cairn takes, in a rider's words ("heart rate, battery"); "-" when none.
    public static func servicesText(_ services: [UInt16]) -> String {
        let names: [(UInt16, String)] = [(0x180D, "heart rate"), (0x1816, "speed and cadence"), (0x1818, "power"), (0x180F, "battery")]
        let ours = names.filter { services.contains($0.0) }.map(\.1)
        return ours.isEmpty ? "-" : ours.joined(separator: ", ")
    }
}
