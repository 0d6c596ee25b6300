/// A sensor chosen by its Bluetooth device address (a `sensor` line in /etc/cairn.conf,
/// `--sensor`): `AA:BB:CC:DD:EE:FF`, then optionally `public` or `random` (the address type;
/// without it cairn tries both in turn).
public struct SensorAddress: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The 48 bits, `AA` the most significant byte.
    public var address: UInt64
    /// 1 LE public, 2 LE random (the kernel's BDADDR_LE_PUBLIC and BDADDR_LE_RANDOM); nil: both.
    public var type: UInt8?

    public static let publicType: UInt8 = 1
    public static let randomType: UInt8 = 2

    public init(address: UInt64, type: UInt8?) {
        self.address = address
        self.type = type
    }

    /// Parses `AA:BB:CC:DD:EE:FF [public|random]`; nil when it is not that.
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count == 1 || words.count == 2, let a = Self.parseAddress(words[0]) else { return nil }
        address = a
        if words.count == 2 {
            switch words[1].lowercased() {
            case "public": type = Self.publicType
            case "random": type = Self.randomType
            default: return nil
            }
        } else {
            type = nil
        }
    }

    static func parseAddress(_ s: Substring) -> UInt64? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for p in parts {
            guard p.count == 2, let b = UInt8(p, radix: 16) else { return nil }
            v = v << 8 | UInt64(b)
        }
        return v
    }

    /// `AA:BB:CC:DD:EE:FF`.
    public static func text(_ address: UInt64) -> String {
        (0..<6).reversed().map { i in hex(UInt8(truncatingIfNeeded: address >> (8 * UInt64(i)))) }.joined(separator: ":")
    }

    /// `AA:BB:CC:DD:EE:FF`, then ` public` or ` random` when the type is set.
    public var description: String {
        Self.text(address) + (type == Self.publicType ? " public" : type == Self.randomType ? " random" : "")
    }
}
