/// An HTTP/1.1 reply read as it comes (from `rclone rcd`): the status line and headers, then the
/// body by its Content-Length, in chunks (Transfer-Encoding: chunked), or up to the end of the
/// connection; each piece of the body goes to the caller as it arrives, so that a body of any
/// size is read in bounded memory.
struct HTTPReply {
    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case truncated
        var description: String {
            switch self {
            case .malformed(let why): "a reply HTTP does not allow (\(why))"
            case .truncated: "the reply ended part way"
            }
        }
    }

    private enum State: Equatable {
        case head
        case sized(Int)
        case chunkSize
        case chunk(Int)
        case chunkEnd
        case trailer
        case untilClose
        case done
    }

    private var state = State.head
    private var pending: [UInt8] = []
    /// The status code (200, 404, ...), once the head is in.
    private(set) var status: Int?
    /// The headers, names lowercased.
    private(set) var headers: [String: String] = [:]
    var isDone: Bool { state == .done }

    /// The request `method path` with `body` (JSON) and basic authentication, closing the
    /// connection after the reply.
    static func request(_ method: String, _ path: String, authorization: String, body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic \(authorization)\r\nConnection: close\r\n"
        if method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// Takes the next bytes of the reply; the body's bytes go to `body`. Bytes after the end of
    /// the reply are ignored; `body` gets the status with each piece.
    mutating func feed(_ bytes: ArraySlice<UInt8>, body: (_ status: Int, ArraySlice<UInt8>) -> Void) throws(Failure) {
        var input = bytes
        while !input.isEmpty && state != .done {
            switch state {
            case .head, .chunkSize, .chunkEnd, .trailer:
                guard let nl = input.firstIndex(of: 0x0A) else {
                    pending += input
                    if pending.count > 16384 { throw .malformed("a line over 16 KiB") }
                    return
                }
                pending += input[..<nl]
                input = input[(nl + 1)...]
                if pending.last == 0x0D { pending.removeLast() }
                let line = pending
                pending = []
                try takeLine(line)
            case .sized(let left), .chunk(let left):
                let n = min(left, input.count)
                body(status ?? 0, input.prefix(n))
                input = input.dropFirst(n)
                if case .sized = state {
                    state = left == n ? .done : .sized(left - n)
                } else {
                    state = left == n ? .chunkEnd : .chunk(left - n)
                }
            case .untilClose:
                body(status ?? 0, input)
                return
            case .done:
                return
            }
        }
    }

    /// The connection closed: fine only when the reply is whole.
    mutating func end() throws(Failure) {
        if state == .untilClose { state = .done }
        if state != .done { throw .truncated }
    }

    private mutating func takeLine(_ line: [UInt8]) throws(Failure) {
        let text = String(decoding: line, as: UTF8.self)
        switch state {
        case .head where status == nil:
            // "HTTP/1.1 200 OK"
            let parts = text.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]) else {
                throw .malformed("status line \(text.prefix(40))")
            }
            status = code
        case .head:
            if !line.isEmpty {
                guard let colon = text.firstIndex(of: ":") else { throw .malformed("header \(text.prefix(40))") }
                headers[text[..<colon].lowercased()] = String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
                return
            }
            if headers["transfer-encoding"]?.lowercased() == "chunked" {
                state = .chunkSize
            } else if let l = headers["content-length"] {
                guard let n = Int(l), n >= 0 else { throw .malformed("Content-Length \(l.prefix(20))") }
                state = n == 0 ? .done : .sized(n)
            } else {
                state = .untilClose
            }
        case .chunkSize:
            // "1a2b" or "1a2b;extension"
            let hex = text.prefix { $0 != ";" }.trimmingSpaces
            guard !hex.isEmpty, hex.count <= 15, let n = Int(hex, radix: 16) else { throw .malformed("chunk size \(text.prefix(20))") }
            state = n == 0 ? .trailer : .chunk(n)
        case .chunkEnd:
            guard line.isEmpty else { throw .malformed("no line end after a chunk") }
            state = .chunkSize
        case .trailer:
            if line.isEmpty { state = .done }
        default:
            break
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String { String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()) }
}
