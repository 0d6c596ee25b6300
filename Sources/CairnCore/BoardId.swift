/// The name of the board a log was recorded on (`--board`, config key `board`): what tells one
/// recorder's trips from another's once their files meet (export names, a delivery's folder).
/// 1-32 characters of [A-Za-z0-9._-], not starting with '.' or '-', so that it is safe in a file
/// name, a path component, a CSV cell and an XML text unchanged.
public struct BoardId: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 32

    /// The id as given (always valid).
    public let text: String

    /// Why `text` is not an id.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The id `text` names; throws saying what is wrong (the caller adds the option or line).
    public init(parsing text: String) throws(Invalid) {
        if let why = Self.problem(text) { throw Invalid(reason: why) }
        self.text = text
    }

    /// The id, or nil when `text` is none (a log's stored id that a crafted file made unsafe).
    public init?(_ text: String) {
        guard Self.problem(text) == nil else { return nil }
        self.text = text
    }

    public var description: String { text }

    /// What makes `text` no id, or nil when it is one.
    public static func problem(_ text: String) -> String? {
        let u = Array(text.utf8)
        if u.isEmpty { return "a board id must not be empty" }
        if u.count > maxLength { return "a board id has at most \(maxLength) characters (this one has \(u.count) bytes)" }
        for c in u where !allowed(c) {
            let shown = c >= 0x20 && c < 0x7F ? String(UnicodeScalar(c)) : "byte 0x" + String(c, radix: 16)
            return "a board id holds only letters, digits, '.', '_' and '-' (not '\(shown)')"
        }
        if u[0] == UInt8(ascii: ".") || u[0] == UInt8(ascii: "-") {
            return "a board id must not start with '.' or '-' (\"\(text)\")"
        }
        return nil
    }

    @inline(__always)
    static func allowed(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
    }
}
