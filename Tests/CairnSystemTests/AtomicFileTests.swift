#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import XCTest
import CairnSystem

final class AtomicFileTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = "/tmp/cairn-atomic-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        XCTAssertNoThrow(try POSIX.makeDirectory(dir))
    }

    override func tearDown() {
        for name in (try? POSIX.listDirectory(dir)) ?? [] { POSIX.unlink(POSIX.join(dir, name)) }
        rmdir(dir)
    }

    private func contents(_ path: String) -> String? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { POSIX.close(fd) }
        return (try? POSIX.readToEnd(fd, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
    }

    func testWriteReplacesTheFileAndLeavesNoTemporary() throws {
        let path = POSIX.join(dir, "state")
        try AtomicFile.write(Array("one".utf8), to: path, temporaryPath: path + ".tmp")
        try AtomicFile.write(Array("two".utf8), to: path, temporaryPath: path + ".tmp", mode: 0o600)
        XCTAssertEqual(contents(path), "two")
        XCTAssertEqual(try POSIX.listDirectory(dir), ["state"])
        XCTAssertEqual(try POSIX.status(path).st_mode & 0o777, 0o600)
    }

    func testWithoutReplaceAFileThatAppearedIsKept() throws {
        let path = POSIX.join(dir, "out.gpx")
        let f = try AtomicFile(path: path, temporaryPath: POSIX.join(dir, ".out.gpx.part"))
        try f.write(Array("new".utf8))
        try AtomicFile.write(Array("theirs".utf8), to: path, temporaryPath: path + ".tmp")
        XCTAssertThrowsError(try f.commit(replace: false)) { e in
            guard case .exists? = e as? AtomicFile.Failure else { return XCTFail("\(e)") }
        }
        XCTAssertEqual(contents(path), "theirs")
        XCTAssertEqual(try POSIX.listDirectory(dir), ["out.gpx"])
    }

    func testADroppedFileLeavesThePathAlone() throws {
        let path = POSIX.join(dir, "status")
        try AtomicFile.write(Array("old".utf8), to: path, temporaryPath: path + ".tmp")
        do {
            let f = try AtomicFile(path: path, temporaryPath: path + ".tmp", exclusive: false)
            try f.write(Array("half".utf8))
        }  // neither committed nor discarded: the caller threw
        XCTAssertEqual(contents(path), "old")
        XCTAssertEqual(try POSIX.listDirectory(dir), ["status"])
    }

    func testExclusiveRefusesATemporaryThatIsThere() throws {
        let path = POSIX.join(dir, "a")
        let first = try AtomicFile(path: path, temporaryPath: path + ".part")
        XCTAssertThrowsError(try AtomicFile(path: path, temporaryPath: path + ".part")) { e in
            guard case .create(let code)? = e as? AtomicFile.Failure else { return XCTFail("\(e)") }
            XCTAssertEqual(code, .fileExists)
        }
        let second = try AtomicFile(path: path, temporaryPath: path + ".part", removeLeftover: true)
        try second.commit()
        first.discard()
        XCTAssertEqual(contents(path), "")
    }

    func testARenameThatFailsRemovesTheTemporary() throws {
        let target = POSIX.join(dir, "sub")
        try POSIX.makeDirectory(target)
        defer { rmdir(target) }
        POSIX.close(try POSIX.open(POSIX.join(target, "x"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644))  // not empty
        defer { POSIX.unlink(POSIX.join(target, "x")) }
        let f = try AtomicFile(path: target, temporaryPath: POSIX.join(dir, ".sub.part"))
        XCTAssertThrowsError(try f.commit()) { e in
            guard case .rename(let code)? = e as? AtomicFile.Failure else { return XCTFail("\(e)") }
            XCTAssertEqual(code, .isDirectory)
        }
        XCTAssertEqual(try POSIX.listDirectory(dir), ["sub"])
    }

    func testCommitOfAFileAnotherWriterMade() throws {
        let path = POSIX.join(dir, "trip.fit")
        let tmp = POSIX.join(dir, ".trip.fit.part")
        XCTAssertThrowsError(try AtomicFile.commit(written: tmp, to: path)) { e in
            guard case .reopen(let code)? = e as? AtomicFile.Failure else { return XCTFail("\(e)") }
            XCTAssertEqual(code, .noSuchFile)
        }
        let fd = try POSIX.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try POSIX.writeAll(fd, Array("fit".utf8))
        POSIX.close(fd)
        try AtomicFile.commit(written: tmp, to: path)
        XCTAssertEqual(contents(path), "fit")
        XCTAssertEqual(try POSIX.listDirectory(dir), ["trip.fit"])
    }
}
