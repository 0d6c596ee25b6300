import CairnCore
import Foundation
import XCTest

@testable import CairnDevice

/// How `GpsdSource` cuts gpsd's byte stream into lines: lines split across reads, CR LF,
/// empty lines, a line too long to keep, many lines in one read, a batch taken whole. A
/// listening socket on 127.0.0.1 stands in for gpsd.
final class GpsdSourceLinesTests: XCTestCase {
    static let tpv =
        #"{"class":"TPV","device":"/dev/pts/1","mode":3,"time":"2025-06-01T08:00:%02d.000Z","lat":47.376883333,"lon":8.541763333,"altHAE":467.100,"speed":6.436,"track":95.2000,"eph":4.512}"#
    static func line(_ second: Int) -> String { String(format: tpv, second) }

    /// A gpsd that accepts one client; `send` writes raw bytes to it.
    final class FakeGpsd {
        let listener: Int32
        var client: Int32 = -1
        let port: UInt16
        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = 0
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            let ok = withUnsafeMutablePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, len) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &len) == 0
                }
            }
            listener = fd
            guard ok else { throw NSError(domain: "listen", code: Int(errno)) }
            port = UInt16(bigEndian: addr.sin_port)
        }
        func accept() { client = Glibc.accept(listener, nil, nil) }
        func send(_ s: String) { send(Array(s.utf8)) }
        func send(_ b: [UInt8]) {
            var off = 0
            while off < b.count {
                let n = b[off...].withUnsafeBufferPointer { Glibc.send(client, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return }
                off += n
            }
        }
        deinit {
            if client >= 0 { close(client) }
            close(listener)
        }
    }

    /// A source connected to a fresh fake gpsd that has accepted it.
    func connected() throws -> (FakeGpsd, GpsdSource) {
        let gpsd = try FakeGpsd()
        let source = GpsdSource(host: "127.0.0.1", port: String(gpsd.port))
        XCTAssertNil(source.open())
        gpsd.accept()
        return (gpsd, source)
    }

    /// Reads until `count` messages came or nothing arrives for half a second; the fixes' seconds.
    func collect(_ source: GpsdSource, _ count: Int, takeQueued: Bool = false) -> (seconds: [Int], messages: Int) {
        var seconds: [Int] = []
        var messages = 0
        var idle = 0
        while messages < count && idle < 5 {
            switch source.read(timeoutUs: 100_000, takeQueued: takeQueued) {
            case .message(let r):
                messages += 1
                if case .fix(let f)? = r { seconds.append(Int((f.timeMs / 1000) % 60)) }
            case .idle: idle += 1
            case .closed(let why): XCTFail("closed: \(why)"); return (seconds, messages)
            }
        }
        return (seconds, messages)
    }

    func testLinesAcrossReadsCRLFEmptyAndOverlong() throws {
        let (gpsd, source) = try connected()
        defer { source.close() }

        // Two whole lines in one write, CR LF and LF.
        gpsd.send(Self.line(1) + "\r\n" + Self.line(2) + "\n")
        XCTAssertEqual(collect(source, 2).seconds, [1, 2])
        // One line in three writes, cut inside the JSON; an empty line and a lone CR line.
        let l3 = Array((Self.line(3) + "\r\n").utf8)
        gpsd.send(Array(l3[..<7]))
        XCTAssertEqual(collect(source, 1).messages, 0, "half a line is not a message")
        gpsd.send(Array(l3[7..<100]))
        gpsd.send(Array(l3[100...]) + Array("\n\r\n".utf8))
        XCTAssertEqual(collect(source, 1).seconds, [3])
        // A line longer than 16 KiB is dropped whole and counted; the next line is read.
        let before = source.unreadable
        gpsd.send("{\"class\":\"TPV\",\"device\":\"" + String(repeating: "x", count: 40_000) + "\"}\n" + Self.line(4) + "\n")
        XCTAssertEqual(collect(source, 1).seconds, [4])
        XCTAssertEqual(source.unreadable, before + 1)
        // Non-TPV classes are messages without a report.
        gpsd.send(#"{"class":"SKY","device":"/dev/pts/1"}"# + "\n" + Self.line(5) + "\n")
        let sky = collect(source, 2)
        XCTAssertEqual(sky.messages, 2)
        XCTAssertEqual(sky.seconds, [5])
    }

    /// A batch: with `wakeAtBytes` at 16 KiB nothing wakes the reader for a few lines, and
    /// `takeQueued` takes them all, in order, including a batch larger than one read.
    func testBatchIsTakenWholeInOrder() throws {
        let (gpsd, source) = try connected()
        defer { source.close() }
        source.wakeAtBytes = GpsdSource.batchBytes

        gpsd.send((0..<3).map { Self.line($0) + "\r\n" }.joined())
        usleep(50_000)
        if case .message = source.read(timeoutUs: 100_000) { XCTFail("woke before 16 KiB were queued") }
        XCTAssertEqual(collect(source, 3, takeQueued: true).seconds, [0, 1, 2])

        // ~200 lines (~40 KB): more than two reads' worth, cut at arbitrary places.
        let many = (0..<200).map { Self.line($0 % 60) + "\r\n" }.joined()
        gpsd.send(many)
        usleep(50_000)
        let got = collect(source, 200, takeQueued: true)
        XCTAssertEqual(got.seconds, (0..<200).map { $0 % 60 })
    }
    /// A stop that came before the wait (`stopFd` readable: the stop pipe after a SIGTERM that
    /// arrived during a sync) ends the wait at once instead of after its whole timeout, and
    /// what gpsd has queued is still taken.
    func testAStopBeforeTheWaitEndsItAtOnce() throws {
        let (gpsd, source) = try connected()
        defer { source.close() }
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        source.stopFd = fds[0]
        _ = collect(source, 10)  // whatever libgps's handshake left

        func timed(_ timeoutUs: Int32, takeQueued: Bool = false) -> (GpsdSource.ReadResult, Double) {
            var t0 = timespec(), t1 = timespec()
            clock_gettime(CLOCK_MONOTONIC, &t0)
            let r = source.read(timeoutUs: timeoutUs, takeQueued: takeQueued)
            clock_gettime(CLOCK_MONOTONIC, &t1)
            return (r, Double(t1.tv_sec - t0.tv_sec) + Double(t1.tv_nsec - t0.tv_nsec) / 1e9)
        }
        // No stop yet: the wait runs its time.
        let (quiet, waited) = timed(300_000)
        guard case .idle = quiet else { return XCTFail("expected idle, got \(quiet)") }
        XCTAssertGreaterThan(waited, 0.25)

        var byte: UInt8 = 1
        XCTAssertEqual(write(fds[1], &byte, 1), 1)
        let (stopped, took) = timed(5_000_000)
        guard case .idle = stopped else { return XCTFail("expected idle, got \(stopped)") }
        XCTAssertLessThan(took, 1.0, "a pending stop must end the wait at once, not after 5 s")

        // What gpsd queued is still read: a report as it comes, and a batch below 16 KiB.
        gpsd.send(Self.line(7) + "\r\n")
        usleep(50_000)
        XCTAssertEqual(collect(source, 1).seconds, [7])
        source.wakeAtBytes = GpsdSource.batchBytes
        gpsd.send(Self.line(8) + "\r\n" + Self.line(9) + "\r\n")
        usleep(50_000)
        let (batch, batchTook) = timed(5_000_000, takeQueued: true)
        guard case .message(let r) = batch, case .fix(let f)? = r else { return XCTFail("expected the batch, got \(batch)") }
        XCTAssertEqual(f.timeMs / 1000 % 60, 8)
        XCTAssertLessThan(batchTook, 1.0)
        XCTAssertEqual(collect(source, 1, takeQueued: true).seconds, [9])
    }
}
