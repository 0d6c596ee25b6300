#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem

/// How the recorder pads its syncs, chosen by the file system the logs are on.
public enum SyncPadding {
    /// The padding (LogWriter.padding) that protects acknowledged bytes on the file system
    /// holding `dir`, and that file system's name. FAT and exFAT write back only the 512-byte
    /// sectors an append touches, so padding each sync to 512 keeps every acknowledged byte out
    /// of later writes (the power-loss model M3 loses records without it). ext4, f2fs, btrfs, XFS
    /// and tmpfs write whole 4 KiB blocks through the page cache: an append rewrites the block
    /// holding the last synced bytes whatever the padding, so 512 there would grow the file and
    /// protect nothing (only 4096 would, at ten times the bytes). Unknown file systems are
    /// padded to 512. Where the writer writes direct (O_DIRECT, whole 512-byte sectors) the
    /// recorder pads to 512 whatever this says (`LogWriter`'s `padDirect`).
    public static func forDirectory(_ dir: String) -> (bytes: Int, fileSystem: String) {
        // The directory may not exist yet: ask the nearest ancestor that does.
        var path = dir.isEmpty ? "." : dir
        var magic: UInt32
        while true {
            do throws(Errno) {
                magic = try POSIX.fileSystemMagic(path)
                break
            } catch {
                guard error == .noSuchFile, path != "." else { return (512, "unknown") }
                path = path.contains("/") ? POSIX.parent(of: path) : "."
            }
        }
        switch magic {
        case 0xEF53: return (0, "ext4")  // also ext2 and ext3
        case 0xF2F5_2010: return (0, "f2fs")
        case 0x9123_683E: return (0, "btrfs")
        case 0x5846_5342: return (0, "xfs")
        case 0x0102_1994: return (0, "tmpfs")
        case 0x4D44: return (512, "vfat")
        case 0x2011_BAB0: return (512, "exfat")
        default: return (512, "unknown")
        }
    }
}
