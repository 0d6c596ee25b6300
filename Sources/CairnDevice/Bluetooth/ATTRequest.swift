/// What cairn's ATT client sends (Bluetooth Core 5.4, Vol 3, Part F, 3.4): the requests of
/// discovery and subscribing, and the answers it owes the sensor. Encoded little-endian.
public enum ATTRequest: Equatable, Sendable {
    case exchangeMTU(clientMTU: UInt16)
    case findInformation(start: UInt16, end: UInt16)
    case readByType(start: UInt16, end: UInt16, type: UInt16)
    case read(handle: UInt16)
    case readByGroupType(start: UInt16, end: UInt16, type: UInt16)
    case write(handle: UInt16, value: [UInt8])
    /// The answer to an Exchange MTU Request the sensor sent.
    case exchangeMTUResponse(serverMTU: UInt16)
    /// The answer to any other request the sensor sent: cairn serves no attributes.
    case error(requestOpcode: UInt8, handle: UInt16, code: UInt8)
    /// The answer to a Handle Value Indication.
    case confirmation

    /// Whether the sensor answers it (and nothing else may be asked meanwhile).
    public var expectsResponse: Bool {
        switch self {
        case .exchangeMTU, .findInformation, .readByType, .read, .readByGroupType, .write: return true
        case .exchangeMTUResponse, .error, .confirmation: return false
        }
    }

    public var bytes: [UInt8] {
        switch self {
        case .exchangeMTU(let mtu): return [ATTOpcode.exchangeMTURequest] + le(mtu)
        case .findInformation(let s, let e): return [ATTOpcode.findInformationRequest] + le(s) + le(e)
        case .readByType(let s, let e, let t): return [ATTOpcode.readByTypeRequest] + le(s) + le(e) + le(t)
        case .read(let h): return [ATTOpcode.readRequest] + le(h)
        case .readByGroupType(let s, let e, let t): return [ATTOpcode.readByGroupTypeRequest] + le(s) + le(e) + le(t)
        case .write(let h, let v): return [ATTOpcode.writeRequest] + le(h) + v
        case .exchangeMTUResponse(let mtu): return [ATTOpcode.exchangeMTUResponse] + le(mtu)
        case .error(let op, let h, let code): return [ATTOpcode.errorResponse, op] + le(h) + [code]
        case .confirmation: return [ATTOpcode.handleValueConfirmation]
        }
    }
}

private func le(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }

/// ATT opcodes cairn meets.
public enum ATTOpcode {
    public static let errorResponse: UInt8 = 0x01
    public static let exchangeMTURequest: UInt8 = 0x02
    public static let exchangeMTUResponse: UInt8 = 0x03
    public static let findInformationRequest: UInt8 = 0x04
    public static let findInformationResponse: UInt8 = 0x05
    public static let readByTypeRequest: UInt8 = 0x08
    public static let readByTypeResponse: UInt8 = 0x09
    public static let readRequest: UInt8 = 0x0A
    public static let readResponse: UInt8 = 0x0B
    public static let readByGroupTypeRequest: UInt8 = 0x10
    public static let readByGroupTypeResponse: UInt8 = 0x11
    public static let writeRequest: UInt8 = 0x12
    public static let writeResponse: UInt8 = 0x13
    public static let handleValueNotification: UInt8 = 0x1B
    public static let handleValueIndication: UInt8 = 0x1D
    public static let handleValueConfirmation: UInt8 = 0x1E
    /// Error codes.
    public static let attributeNotFound: UInt8 = 0x0A
    public static let requestNotSupported: UInt8 = 0x06
}
