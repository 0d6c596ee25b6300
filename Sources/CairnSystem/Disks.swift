#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The disks a path's bytes lie on, so that two folders can be told apart as two devices (a card
/// and a stick) or one (two partitions of one card, a btrfs subvolume beside another, an overlay
/// whose upper layer is on the card, a loop image kept on the card). Two file systems can share
/// a disk: comparing st_dev alone tells only file systems apart.
public enum Disks {
    /// One line of /proc/self/mountinfo: where a file system is mounted, its device number, its
    /// type, its source and its options.
    public struct Mount: Equatable, Sendable {
        public var mountPoint: String
        public var major: UInt32
        public var minor: UInt32
        public var type: String
        public var source: String
        public var superOptions: [String]

        public init(mountPoint: String, major: UInt32, minor: UInt32, type: String, source: String, superOptions: [String]) {
            self.mountPoint = mountPoint
            self.major = major
            self.minor = minor
            self.type = type
            self.source = source
            self.superOptions = superOptions
        }
    }

    /// The mounts of a mountinfo text (proc(5)), in its order; lines that do not read are left out.
    public static func mounts(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            // id parent major:minor root mountpoint options [optional fields...] - type source superoptions
            guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 3 < fields.count else { return nil }
            let dev = fields[2].split(separator: ":")
            guard dev.count == 2, let major = UInt32(dev[0]), let minor = UInt32(dev[1]) else { return nil }
            return Mount(
                mountPoint: unescape(fields[4]), major: major, minor: minor, type: unescape(fields[dash + 1]),
                source: unescape(fields[dash + 2]), superOptions: fields[dash + 3].split(separator: ",").map { unescape(String($0)) })
        }
    }

    /// mountinfo's octal escapes (`\040` a space, `\011` a tab, `\012` a newline, `\134` a backslash).
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var out: [UInt8] = []
        let b = Array(field.utf8)
        var i = 0
        while i < b.count {
            if b[i] == 0x5C, i + 3 < b.count, let v = UInt8(String(decoding: b[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                out.append(v)
                i += 4
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The mount `path` (absolute, links resolved) lies in: the deepest mount point above it
    /// that no later mount covers (one mounted on the same point or above it hides it).
    public static func mount(of path: String, in mounts: [Mount]) -> Mount? {
        var visible: [Mount] = []
        for m in mounts {
            visible.removeAll { isUnder($0.mountPoint, m.mountPoint) }
            visible.append(m)
        }
        var best: Mount?
        for m in visible where isUnder(path, m.mountPoint) {
            if best == nil || m.mountPoint.utf8.count > best!.mountPoint.utf8.count { best = m }
        }
        return best
    }

    static func isUnder(_ path: String, _ dir: String) -> Bool {
        if dir == "/" { return path.hasPrefix("/") }
        return path == dir || path.hasPrefix(dir + "/")
    }

    /// The paths an overlay's layers lie at (its upper, work and lower directories), from its
    /// options: copies written through it land in the upper one, and reads may come from any.
    public static func overlayLayers(_ m: Mount) -> [String] {
        var paths: [String] = []
        for o in m.superOptions {
            guard let eq = o.firstIndex(of: "=") else { continue }
            let key = o[..<eq]
            let value = String(o[o.index(after: eq)...])
            if key == "upperdir" || key == "workdir" { paths.append(value) }
            // lowerdir=a:b:c, a colon inside a name escaped as "\:"
            if key == "lowerdir" || key == "lowerdir+" || key == "datadir+" {
                var cur = ""
                var escaped = false
                for c in value {
                    if escaped {
                        cur.append(c)
                        escaped = false
                    } else if c == "\\" {
                        escaped = true
                    } else if c == ":" {
                        paths.append(cur)
                        cur = ""
                    } else {
                        cur.append(c)
                    }
                }
                paths.append(cur)
            }
        }
        return paths.filter { $0.hasPrefix("/") }
    }

    /// The major and minor numbers of a device number (glibc's encoding).
    public static func split(_ dev: UInt64) -> (major: UInt32, minor: UInt32) {
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    /// What cannot be told: a disk whose /sys entry cannot be read ("unknown:..."). Two paths
    /// either of which lies on one may share a disk.
    static let unknownPrefix = "unknown:"

    /// The disks `path` lies on, or the nearest folder above it that exists (where a copy would
    /// be made): names such as "block:mmcblk0" (the whole disk of a partition, the disks under
    /// a device-mapper or RAID device, the disk holding a loop device's image), or
    /// "fs:MAJOR:MINOR" for a file system on no disk (tmpfs, a network share, FUSE), or
    /// "unknown:..." where that cannot be read.
    public static func of(_ path: String) -> Set<String> {
        guard let table = mountTable() else { return [unknownPrefix + "mountinfo"] }
        return of(path, mounts: table, depth: 0)
    }

    /// Whether `a` and `b` (or the nearest folders above them that exist) share a file system or
    /// a disk; true too where that cannot be told (a copy that may be on the card is no copy
    /// off it).
    public static func share(_ a: String, _ b: String) -> Bool {
        guard let sa = nearest(a).flatMap({ try? POSIX.status($0) }), let sb = nearest(b).flatMap({ try? POSIX.status($0) }) else { return false }
        if sa.st_dev == sb.st_dev { return true }
        guard let table = mountTable() else { return true }
        let da = of(a, mounts: table, depth: 0)
        let db = of(b, mounts: table, depth: 0)
        if da.isEmpty || db.isEmpty || (da.union(db)).contains(where: { $0.hasPrefix(unknownPrefix) }) { return true }
        return !da.isDisjoint(with: db)
    }

    /// This process's mounts; nil when mountinfo cannot be read whole.
    static func mountTable() -> [Mount]? {
        let limit = 64 << 20
        guard let text = readSmall("/proc/self/mountinfo", limit: limit), text.utf8.count <= limit else { return nil }
        return mounts(text)
    }

    /// `path` with its links resolved, or the nearest folder above it that exists.
    static func nearest(_ path: String) -> String? {
        var p = path
        while !p.isEmpty {
            if let r = try? POSIX.realPath(p) { return r }
            if p == "/" || p == "." { return nil }
            p = POSIX.parent(of: p)
        }
        return nil
    }

    static func of(_ path: String, mounts: [Mount], depth: Int) -> Set<String> {
        guard depth < 8, let real = nearest(path), let m = mount(of: real, in: mounts) else { return [unknownPrefix + path] }
        // a device node (a loop device's backing a partition): the disk it is
        if let st = try? POSIX.status(real), (st.st_mode & S_IFMT) == S_IFBLK {
            let (major, minor) = split(UInt64(st.st_rdev))
            return blockDisks(major, minor, mounts: mounts, depth: depth + 1)
        }
        if m.type == "overlay" {
            var disks: Set<String> = ["fs:\(m.major):\(m.minor)"]
            for layer in overlayLayers(m) { disks.formUnion(of(layer, mounts: mounts, depth: depth + 1)) }
            return disks
        }
        if m.major != 0 { return blockDisks(m.major, m.minor, mounts: mounts, depth: depth) }
        // btrfs and others number their mounts anonymously: the source names the device
        if m.source.hasPrefix("/dev/") {
            // a block file system whose device this sandbox cannot see (PrivateDevices=)
            guard let st = try? POSIX.status(m.source) else { return [unknownPrefix + m.source] }
            if (st.st_mode & S_IFMT) == S_IFBLK {
                let (major, minor) = split(UInt64(st.st_rdev))
                var disks = blockDisks(major, minor, mounts: mounts, depth: depth)
                if m.type == "btrfs" { disks.formUnion(btrfsDevices(major, minor, mounts: mounts, depth: depth)) }
                return disks
            }
        }
        if m.type == "zfs", let pool = m.source.split(separator: "/").first { return ["zfs:\(pool)"] }
        return ["fs:\(m.major):\(m.minor)"]
    }

    static func blockDisks(_ major: UInt32, _ minor: UInt32, mounts: [Mount], depth: Int) -> Set<String> {
        guard depth < 8, var dir = try? POSIX.realPath("/sys/dev/block/\(major):\(minor)") else { return [unknownPrefix + "block:\(major):\(minor)"] }
        if POSIX.exists(POSIX.join(dir, "partition")) { dir = POSIX.parent(of: dir) }
        var disks: Set<String> = []
        // device-mapper, RAID: the disks beneath
        for slave in (try? POSIX.listDirectory(POSIX.join(dir, "slaves"))) ?? [] {
            guard let dev = readSmall(POSIX.join(dir, "slaves/\(slave)/dev"), limit: 64) else { continue }
            let parts = dev.split(whereSeparator: { $0 == ":" || $0 == "\n" })
            if parts.count >= 2, let a = UInt32(parts[0]), let b = UInt32(parts[1]) {
                disks.formUnion(blockDisks(a, b, mounts: mounts, depth: depth + 1))
            }
        }
        // a loop device: the disk its image lies on
        if var file = readSmall(POSIX.join(dir, "loop/backing_file"), limit: 8192) {
            while file.hasSuffix("\n") { file.removeLast() }
            if file.hasSuffix(" (deleted)") { file.removeLast(10) }
            disks.formUnion(of(file, mounts: mounts, depth: depth + 1))
        }
        if disks.isEmpty { disks.insert("block:" + String(dir.split(separator: "/").last ?? "")) }
        return disks
    }

    /// The disks of every device of the btrfs file system one of whose devices is MAJOR:MINOR
    /// (mountinfo names only one: /sys/fs/btrfs/FSID/devices lists them all).
    static func btrfsDevices(_ major: UInt32, _ minor: UInt32, mounts: [Mount], depth: Int) -> Set<String> {
        guard let dir = try? POSIX.realPath("/sys/dev/block/\(major):\(minor)") else { return [] }
        let name = String(dir.split(separator: "/").last ?? "")
        var disks: Set<String> = []
        for fs in (try? POSIX.listDirectory("/sys/fs/btrfs")) ?? [] {
            let devices = (try? POSIX.listDirectory("/sys/fs/btrfs/\(fs)/devices")) ?? []
            guard devices.contains(name) else { continue }
            for d in devices {
                guard let dev = readSmall("/sys/class/block/\(d)/dev", limit: 64) else { continue }
                let parts = dev.split(whereSeparator: { $0 == ":" || $0 == "\n" })
                if parts.count >= 2, let a = UInt32(parts[0]), let b = UInt32(parts[1]) {
                    disks.formUnion(blockDisks(a, b, mounts: mounts, depth: depth + 1))
                }
            }
        }
        return disks
    }

    static func readSmall(_ path: String, limit: Int) -> String? {
        guard let fd = try? POSIX.open(path, O_RDONLY | O_CLOEXEC) else { return nil }
        defer { _ = POSIX.close(fd) }
        guard let bytes = try? POSIX.readToEnd(fd, limit: limit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
