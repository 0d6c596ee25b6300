import CairnSystem
import Foundation
import XCTest

/// The disks a path lies on: mountinfo read, and two folders told apart as one card or two.
final class DisksTests: XCTestCase {
    let table = Disks.mounts(
        """
        27 1 179:2 / / rw,relatime - ext4 /dev/mmcblk0p2 rw
        30 27 179:1 / /boot/firmware rw,relatime - vfat /dev/mmcblk0p1 rw
        31 27 0:27 / /media/my\\040stick rw,relatime shared:5 - vfat /dev/sda1 rw
        32 27 0:28 / /srv/backup rw,relatime - btrfs /dev/mmcblk0p3 rw,subvol=/@backup
        33 27 0:29 / /srv/ov rw,relatime - overlay overlay rw,lowerdir=/a\\:b:/c,upperdir=/var/up,workdir=/var/wk
        34 31 0:30 / /media/my\\040stick rw,relatime - tmpfs tmpfs rw
        broken line
        """)

    func testMountinfoIsReadWithItsEscapes() {
        XCTAssertEqual(table.count, 6)
        XCTAssertEqual(table[2].mountPoint, "/media/my stick")
        XCTAssertEqual(table[2].source, "/dev/sda1")
        XCTAssertEqual(table[3].type, "btrfs")
        XCTAssertEqual(table[0].major, 179)
        XCTAssertEqual(table[0].minor, 2)
    }

    func testAPathLiesInTheDeepestMountOnTop() {
        XCTAssertEqual(Disks.mount(of: "/var/lib/cairn", in: table)?.mountPoint, "/")
        XCTAssertEqual(Disks.mount(of: "/boot/firmware/config.txt", in: table)?.type, "vfat")
        XCTAssertEqual(Disks.mount(of: "/boot/firmwareX", in: table)?.mountPoint, "/")
        XCTAssertEqual(Disks.mount(of: "/media/my stick/rides", in: table)?.type, "tmpfs", "the last mounted on one point")
    }

    /// The r17 attack's card-partition-mounted-over-stick: a stick mounted at /backup/stick, then
    /// a card partition mounted at /backup, hiding it: /backup/stick/x is on the card partition.
    func testAMountCoveredByALaterOneAboveItHoldsNothing() {
        let t = Disks.mounts(
            """
            27 1 179:2 / / rw - ext4 /dev/mmcblk0p2 rw
            40 27 8:1 / /backup/stick rw - vfat /dev/sda1 rw
            41 27 179:3 / /backup rw - ext4 /dev/mmcblk0p3 rw
            42 41 8:17 / /backup/other rw - vfat /dev/sdb1 rw
            """)
        XCTAssertEqual(Disks.mount(of: "/backup/stick/rides", in: t)?.source, "/dev/mmcblk0p3")
        XCTAssertEqual(Disks.mount(of: "/backup/other/rides", in: t)?.source, "/dev/sdb1", "mounted after, on top")
        XCTAssertEqual(Disks.mount(of: "/var/lib/cairn", in: t)?.source, "/dev/mmcblk0p2")
    }

    func testAnOverlaysLayersAreItsOptions() {
        XCTAssertEqual(Disks.overlayLayers(table[4]), ["/a:b", "/c", "/var/up", "/var/wk"])
    }

    func testDeviceNumbersSplitAsGlibcDoes() {
        // gnu_dev_makedev
        func makedev(_ major: UInt64, _ minor: UInt64) -> UInt64 {
            ((major & 0xffff_f000) << 32) | ((major & 0xfff) << 8) | ((minor & 0xffff_ff00) << 12) | (minor & 0xff)
        }
        for (major, minor) in [(179, 2), (0, 27), (254, 0), (0x1234_5abc, 0x89ab_cdef), (259, 65536)] as [(UInt32, UInt32)] {
            let got = Disks.split(makedev(UInt64(major), UInt64(minor)))
            XCTAssertEqual(got.major, major)
            XCTAssertEqual(got.minor, minor)
        }
        // as the kernel numbers the root's mount in mountinfo
        var st = stat()
        XCTAssertEqual(stat("/", &st), 0)
        let root = try? Disks.mount(of: "/", in: Disks.mounts(String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)))
        XCTAssertEqual(Disks.split(UInt64(st.st_dev)).major, root?.major)
        XCTAssertEqual(Disks.split(UInt64(st.st_dev)).minor, root?.minor)
    }

    /// On this machine: a folder and one below it (not yet made) share a disk; the temporary
    /// directory and /dev/shm (a tmpfs) do not.
    func testFoldersOnOneFileSystemShareItsDisks() throws {
        let d = NSTemporaryDirectory() + "disks-\(getpid())"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        XCTAssertFalse(Disks.of(d).isEmpty)
        XCTAssertTrue(Disks.share(d, d + "/not/made/yet"))
        XCTAssertEqual(Disks.of(d), Disks.of("/"))
        if (try? POSIX.status("/dev/shm"))?.st_dev != (try? POSIX.status(d))?.st_dev {
            XCTAssertFalse(Disks.share(d, "/dev/shm"))
        }
    }
}
