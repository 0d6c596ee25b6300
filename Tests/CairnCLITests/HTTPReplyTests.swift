import XCTest

@testable import cairn

/// The reply parser of `RcloneDaemon`'s HTTP client: Content-Length, chunked and until-close
/// bodies, fed whole and a byte at a time; replies cut short or not HTTP refused.
final class HTTPReplyTests: XCTestCase {
    func parse(_ text: String, step: Int, closed: Bool = true) -> (status: Int?, body: String, failure: HTTPReply.Failure?) {
        var p = HTTPReply()
        var body: [UInt8] = []
        let bytes = Array(text.utf8)
        var i = 0
        do {
            while i < bytes.count {
                try p.feed(bytes[i..<min(i + step, bytes.count)]) { _, piece in body += piece }
                i += step
            }
            if closed { try p.end() }
        } catch {
            return (p.status, String(decoding: body, as: UTF8.self), error)
        }
        return (p.status, String(decoding: body, as: UTF8.self), nil)
    }

    func testReplies() {
        let cases: [(String, Int?, String, HTTPReply.Failure?)] = [
            ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}\n", 200, "{}\n", nil),
            ("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n{}\nextra", 200, "{}\n", nil),
            ("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n", 404, "", nil),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\na;x=1\r\n0123456789\r\n0\r\n\r\n", 200, "abcd0123456789", nil),
            ("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n1\r\nz\r\n0\r\nTrailer: t\r\n\r\n", 200, "z", nil),
            ("HTTP/1.1 200 OK\r\n\r\nuntil the end", 200, "until the end", nil),
            ("HTTP/1.1 200 OK\nContent-Length: 2\n\nok", 200, "ok", nil),
            ("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", 200, "short", .truncated),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nab", 200, "ab", .truncated),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 200, "", .malformed("chunk size zz")),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n", 200, "ab", .malformed("no line end after a chunk")),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 200, "", .malformed("Content-Length -1")),
            ("SSH-2.0-OpenSSH\r\n", nil, "", .malformed("status line SSH-2.0-OpenSSH")),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", 200, "", .malformed("header no colon")),
            ("", nil, "", .truncated)
        ]
        for (text, status, body, failure) in cases {
            for step in [1, 3, 1000] {
                let r = parse(text, step: step)
                XCTAssertEqual(r.status, status, "\(text.debugDescription) step \(step)")
                XCTAssertEqual(r.body, body, "\(text.debugDescription) step \(step)")
                XCTAssertEqual(r.failure, failure, "\(text.debugDescription) step \(step)")
            }
        }
    }

    func testHeadOverSixteenKiBIsRefused() {
        let r = parse("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20000) + "\r\n\r\n", step: 1000)
        XCTAssertEqual(r.failure, .malformed("a line over 16 KiB"))
    }

    func testRequest() {
        XCTAssertEqual(
            String(decoding: HTTPReply.request("POST", "/rc/noop", authorization: "dTpw", body: Array("{}".utf8)), as: UTF8.self),
            "POST /rc/noop HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic dTpw\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
        XCTAssertEqual(
            String(decoding: HTTPReply.request("GET", "/[a]/b", authorization: "dTpw", body: []), as: UTF8.self),
            "GET /[a]/b HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic dTpw\r\nConnection: close\r\n\r\n")
    }
}
