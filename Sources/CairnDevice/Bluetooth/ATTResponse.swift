/// What a sensor sends cairn's ATT client, decoded from one L2CAP packet (Bluetooth Core 5.4,
/// Vol 3, Part F, 3.4). Anything cairn does not take is `.other`, never a crash.
public enum ATTResponse: Equatable, Sendable {
    case error(requestOpcode: UInt8, handle: UInt16, code: UInt8)
    case exchangeMTU(serverMTU: UInt16)
    /// Handles with their 16-bit UUIDs; 128-bit entries (format 2) are skipped, with their
    /// handles kept so that discovery moves past them.
    case findInformation([(handle: UInt16, uuid: UInt16?)])
    case readByType([(handle: UInt16, value: [UInt8])])
    case read(value: [UInt8])
    case readByGroupType([(start: UInt16, end: UInt16, value: [UInt8])])
    case write
    case notification(handle: UInt16, value: [UInt8])
    case indication(handle: UInt16, value: [UInt8])
    /// A request from the sensor (its own Exchange MTU, or a read of attributes cairn lacks).
    case request(opcode: UInt8, bytes: [UInt8])
    /// Malformed, or a PDU cairn has no use for.
    case other(opcode: UInt8)

    public init(decoding pdu: [UInt8]) {
        guard let op = pdu.first else { self = .other(opcode: 0); return }
        let body = pdu.dropFirst()
        func u16(_ i: Int) -> UInt16 { UInt16(pdu[i]) | UInt16(pdu[i + 1]) << 8 }
        switch op {
        case ATTOpcode.errorResponse where pdu.count == 5:
            self = .error(requestOpcode: pdu[1], handle: u16(2), code: pdu[4])
        case ATTOpcode.exchangeMTUResponse where pdu.count == 3:
            self = .exchangeMTU(serverMTU: u16(1))
        case ATTOpcode.findInformationResponse where pdu.count >= 2:
            let width = pdu[1] == 1 ? 2 : pdu[1] == 2 ? 16 : 0
            let n = (pdu.count - 2) / (2 + max(width, 1))
            guard width > 0, n > 0, (pdu.count - 2) % (2 + width) == 0 else { self = .other(opcode: op); return }
            self = .findInformation(
                (0..<n).map { i in
                    let at = 2 + i * (2 + width)
                    return (u16(at), width == 2 ? u16(at + 2) : nil)
                })
        case ATTOpcode.readByTypeResponse where pdu.count >= 2:
            let len = Int(pdu[1])
            guard len >= 2, (pdu.count - 2) % len == 0, pdu.count > 2 else { self = .other(opcode: op); return }
            self = .readByType(
                (0..<(pdu.count - 2) / len).map { i in
                    let at = 2 + i * len
                    return (u16(at), Array(pdu[(at + 2)..<(at + len)]))
                })
        case ATTOpcode.readResponse:
            self = .read(value: Array(body))
        case ATTOpcode.readByGroupTypeResponse where pdu.count >= 2:
            let len = Int(pdu[1])
            guard len >= 4, (pdu.count - 2) % len == 0, pdu.count > 2 else { self = .other(opcode: op); return }
            self = .readByGroupType(
                (0..<(pdu.count - 2) / len).map { i in
                    let at = 2 + i * len
                    return (u16(at), u16(at + 2), Array(pdu[(at + 4)..<(at + len)]))
                })
        case ATTOpcode.writeResponse where pdu.count == 1:
            self = .write
        case ATTOpcode.handleValueNotification where pdu.count >= 3:
            self = .notification(handle: u16(1), value: Array(pdu[3...]))
        case ATTOpcode.handleValueIndication where pdu.count >= 3:
            self = .indication(handle: u16(1), value: Array(pdu[3...]))
        default:
            // Requests and commands have bit 6 (command) or are in the request opcode set; the
            // client answers requests, whose opcodes are even below 0x1F.
            if ATTResponse.isRequest(op) { self = .request(opcode: op, bytes: pdu) } else { self = .other(opcode: op) }
        }
    }

    /// Whether this can be the answer to `q`: its response opcode, or an error naming its
    /// opcode. ATT has no transaction numbers; the kind is all there is to go by.
    func answers(_ q: ATTRequest) -> Bool {
        switch (self, q) {
        case (.error(let op, _, _), _): return q.bytes.first == op
        case (.exchangeMTU, .exchangeMTU), (.findInformation, .findInformation), (.readByType, .readByType),
            (.read, .read), (.readByGroupType, .readByGroupType), (.write, .write):
            return true
        default: return false
        }
    }

    /// The opcodes of ATT requests (which the peer must be answered for).
    static func isRequest(_ op: UInt8) -> Bool {
        [0x02, 0x04, 0x06, 0x08, 0x0A, 0x0C, 0x0E, 0x10, 0x12, 0x16, 0x18, 0x20].contains(op)
    }

    public static func == (a: ATTResponse, b: ATTResponse) -> Bool {
        switch (a, b) {
        case (.error(let o1, let h1, let c1), .error(let o2, let h2, let c2)): return o1 == o2 && h1 == h2 && c1 == c2
        case (.exchangeMTU(let m1), .exchangeMTU(let m2)): return m1 == m2
        case (.findInformation(let e1), .findInformation(let e2)):
            return e1.count == e2.count && zip(e1, e2).allSatisfy { $0.handle == $1.handle && $0.uuid == $1.uuid }
        case (.readByType(let e1), .readByType(let e2)):
            return e1.count == e2.count && zip(e1, e2).allSatisfy { $0.handle == $1.handle && $0.value == $1.value }
        case (.read(let v1), .read(let v2)): return v1 == v2
        case (.readByGroupType(let e1), .readByGroupType(let e2)):
            return e1.count == e2.count
                && zip(e1, e2).allSatisfy { $0.start == $1.start && $0.end == $1.end && $0.value == $1.value }
        case (.write, .write): return true
        case (.notification(let h1, let v1), .notification(let h2, let v2)): return h1 == h2 && v1 == v2
        case (.indication(let h1, let v1), .indication(let h2, let v2)): return h1 == h2 && v1 == v2
        case (.request(let o1, let b1), .request(let o2, let b2)): return o1 == o2 && b1 == b2
        case (.other(let o1), .other(let o2)): return o1 == o2
        default: return false
        }
    }
}
