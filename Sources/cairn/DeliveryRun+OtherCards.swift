#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CairnSystem
import CairnLog
import CairnExport

/// With privacy zones, the page rows another card of the board delivered uncut (attack-r22 c29:
/// a zone added on a new card left the old card's ride showing home): each one's public GPX is
/// read back and tested against the zones; one that shows the place is withheld from the page,
/// and its conversions and picture deleted only where its log copy reads back whole in this run
/// (`DeliveryPlans.otherCardRow`). Rows a zone cut, or already withheld, are not read again.
extension DeliveryRun {
    /// Withholds such rows in `builder`; returns the files to delete with the page's obsolete
    /// ones. `own`: the keys of this card's trips.
    func withholdOtherCards(_ builder: PageBuilder, own: Set<String>) -> [String] {
        let discs = stageOptions.zones.discs
        guard !discs.isEmpty else { return [] }
        var gone: [String] = []
        for e in builder.index.entries where !own.contains(e.key) && !e.withheld {
            let cut = (e.leftOut ?? 0) > 0
            let shown = DeliveryPlans.safeShown(e.files + (e.picture.map { [$0] } ?? []))
            let inZone = cut ? nil : gpxInZone(e.files.first { $0.hasPrefix("gpx/") }, discs)
            let logs = e.files.filter(TripShipment.isLog)
            let whole = inZone == true && !logs.isEmpty && logs.allSatisfy(logReadsWhole)
            let row = DeliveryPlans.OtherRow(key: e.key, shown: shown, cut: cut, inZone: inZone, logWhole: whole)
            let what = "trip \(e.tripId) (\(e.key)), delivered by another card without this privacy zone,"
            let until = "the page shows it without its picture and files until that card delivers it with the zone"
            switch DeliveryPlans.otherCardRow(row, zones: true) {
            case .keep: continue
            case .withdraw(let paths):
                gone += paths
                builder.withhold(key: e.key)
                printErr("cairn: \(what) shows a place inside it: its conversions and picture are taken off \(base) (its log stays); \(until)")
            case .veil:
                builder.withhold(key: e.key)
                let why = inZone == true ? "shows a place inside it" : "may show a place inside it (its GPX not read)"
                printErr("cairn: \(what) \(why); its log is not whole on \(base), so nothing of it is deleted; \(until)")
            }
        }
        return gone
    }

    /// Whether the GPX at `relative` (under the board's folder) has a point in one of `discs`:
    /// nil when there is none to read or it cannot be read.
    func gpxInZone(_ relative: String?, _ discs: [CutCircle]) -> Bool? {
        guard let relative else { return nil }
        var carry: [UInt8] = [], inside = false
        do {
            try attempt { () throws(Rclone.Failure) in
                carry = []
                inside = false
                try transport.read(DeliverCommand.join(base, relative), limit: Self.otherGpxLimit) { chunk in
                    if inside { return }
                    carry += chunk
                    // Whole lines only: a point cut between chunks is read with the next.
                    guard let last = carry.lastIndex(of: 10) else { return }
                    inside = Self.gpxLinesInZone(carry[...last], discs)
                    carry.removeSubrange(...last)
                }
            }
        } catch {
            return nil
        }
        return inside || Self.gpxLinesInZone(carry[...], discs)
    }

    /// The most bytes of another card's GPX read back (a day's ride at 1 Hz is a few MB).
    static let otherGpxLimit = 64 << 20

    /// Whether a `<trkpt lat="…" lon="…">` in `bytes` (whole lines) lies in one of `discs`.
    static func gpxLinesInZone(_ bytes: ArraySlice<UInt8>, _ discs: [CutCircle]) -> Bool {
        for line in bytes.split(separator: 10) {
            guard let lat = attribute("lat", line), let lon = attribute("lon", line) else { continue }
            if discs.contains(where: { $0.contains(lat: lat, lon: lon) }) { return true }
        }
        return false
    }

    /// The number in ` NAME="…"` on a GPX line.
    static func attribute(_ name: String, _ line: ArraySlice<UInt8>) -> Double? {
        let key = Array((" " + name + "=\"").utf8)
        guard line.count > key.count, let at = line.indices.first(where: { line[$0...].starts(with: key) }) else { return nil }
        let from = at + key.count
        guard let end = line[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return Double(String(decoding: line[from..<end], as: UTF8.self))
    }

    /// Whether the log copy at `relative` reads back whole from the remote (every frame's CRC,
    /// no torn tail): read to a file beside the outbox (never shipped), scanned, removed.
    func logReadsWhole(_ relative: String) -> Bool {
        let path = POSIX.join(staging, "other-card-log")
        _ = POSIX.unlink(path)
        defer { _ = POSIX.unlink(path) }
        guard let fd = try? POSIX.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) else { return false }
        let ok = (try? download(relative, into: fd, limit: nil)) ?? false
        _ = POSIX.close(fd)
        guard ok, let report = try? LogReader(path: path).scan() else { return false }
        return report.isClean
    }
}
