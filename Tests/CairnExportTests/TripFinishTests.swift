import XCTest

@testable import CairnExport
@testable import CairnLog

/// `TripFinish`: a trip is over when closed, or when no recorder writes its last file; never
/// because of other files.
final class TripFinishTests: XCTestCase {
    typealias Key = DirectoryLock.FileKey
    let file = Key(device: 1, inode: 10)
    let other = Key(device: 1, inode: 11)

    func finished(closed: Bool = false, modified: Int64? = 100, _ r: DirectoryLock.Recorder) -> Bool {
        TripFinish.openReason(closed: closed, files: [file], lastModifiedNs: modified, recorder: r) == nil
    }

    func testTable() {
        XCTAssertTrue(finished(closed: true, .running(pid: 7, openFiles: [other], since: 0)), "closed: over")
        XCTAssertFalse(
            finished(closed: true, modified: 300, .running(pid: 7, openFiles: nil, since: 200)),
            "open files unknown: a trip end (perhaps a copied-in part's) proves nothing; written since the recorder started, it waits")
        XCTAssertTrue(finished(closed: true, modified: 100, .running(pid: 7, openFiles: nil, since: 200)), "closed before the recorder started")
        XCTAssertFalse(finished(closed: true, .running(pid: 7, openFiles: [file], since: 0)), "a file the recorder has open is being written")
        XCTAssertTrue(finished(.absent), "no recorder: a pulled battery's trip is over")
        XCTAssertFalse(finished(.running(pid: 7, openFiles: [file], since: 0)), "the recorder writes it")
        XCTAssertTrue(finished(.running(pid: 7, openFiles: [other], since: 0)), "the recorder writes another file")
        XCTAssertTrue(finished(.running(pid: 7, openFiles: [], since: 0)), "the recorder waits for a fix")
        XCTAssertTrue(finished(modified: 100, .running(pid: 7, openFiles: nil, since: 200)), "last written before the recorder started")
        XCTAssertFalse(finished(modified: 300, .running(pid: 7, openFiles: nil, since: 200)), "written since: may be the recorder's")
        XCTAssertFalse(finished(modified: nil, .running(pid: 7, openFiles: nil, since: 200)))
        XCTAssertFalse(finished(modified: 300, .unknown(since: 200)))
        XCTAssertTrue(finished(modified: 100, .unknown(since: 200)))
        XCTAssertFalse(finished(.unknown(since: nil)))
        XCTAssertFalse(
            TripFinish.openReason(closed: false, files: [other, nil], lastModifiedNs: 1, recorder: .running(pid: 7, openFiles: [], since: 0)) == nil,
            "a file that cannot be looked at is not taken as over")
        XCTAssertFalse(
            TripFinish.openReason(closed: false, files: [file, other], lastModifiedNs: 1, recorder: .running(pid: 7, openFiles: [file], since: 0))
                == nil,
            "an earlier part open: a later part copied in from another board does not finish the trip")
    }
}
