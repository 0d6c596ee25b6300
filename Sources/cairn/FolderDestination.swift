import CairnSystem
import CairnLog
import CairnExport

/// A trip's shipment into a folder on this machine (`cairn export`'s stick): each file written
/// there through a temporary name and read back from the medium, what was there already kept
/// when it is the same (`existingCopy`, read before the trip). What befell the trip is kept here for `ExportRun`'s counts and state.
struct FolderDestination: ShipmentDestination {
    let folder: String
    /// "trip 3 (00000003.cairn)": how the lines said of the trip begin.
    let label: String
    let laps: LapRule
    /// What the folder held at each log copy's name (relative path), read before the trip.
    let existing: [String: ShippingPlan.ExistingCopy]
    let verified: Bool

    var copiedFiles = 0, copiedBytes = 0, wroteConversions = 0
    /// Something of the trip failed (said): it is not marked exported.
    var problem = false
    /// An earlier verified export here no longer holds (a copy damaged since).
    var forget = false

    let shipsUncut = true

    func holds(_ relative: String) -> Bool { pathExists(POSIX.join(folder, relative)) }

    /// The log's bytes copied, then read back before the trip counts as exported.
    mutating func putLog(_ file: LogFileRef, _ copy: ExportState.CopiedFile, at relative: String) -> Bool {
        let target = POSIX.join(folder, relative)
        switch existing[relative] ?? ShippingPlan.ExistingCopy.none {
        case .same: return false
        case .other(let why):
            printErr("cairn: \(target): exists and is another file (\(why)); not replaced: export to another directory")
            forget = true
            problem = true
            return false
        case .earlierCopy:
            printErr("cairn: \(target): an earlier copy of this log, which has grown since; replaced")
        case .none: break
        }
        do {
            let copied = try copyFileAtomically(file.path, target)
            let back = try FileDigest.of(target, fromMedium: true)
            if copied != copy.digest {
                throw Failure("\(file.path): changed while being copied (\(copy.digest.text) before, \(copied.text) copied); run again")
            }
            if back != copied {
                POSIX.unlink(target)
                throw Failure("\(target): reads back as \(back.text), not the \(copied.text) written (a failing card?); removed")
            }
            copiedBytes += copied.size
            copiedFiles += 1
            return true
        } catch let e as Failure {
            printErr("cairn: \(label): \(e.message)")
        } catch {
            printErr("cairn: \(label): \(error)")
        }
        problem = true
        return false
    }

    /// Said before the trip's logs went (`ExportRun.ship`); its page entry links them.
    func undatable(_ whole: TripSummary) -> Bool { true }

    mutating func hidesAll(_ shipment: TripShipment, formats: [ExportFormat]) -> Bool {
        for format in formats { printErr("cairn: \(label): every point is inside a privacy zone; no \(format.name) written") }
        return true
    }

    func cannotHold(_ format: ExportFormat) {
        printErr("cairn: \(label): no positions (a trainer ride, distance from the wheel): \(format.name) cannot hold it; none written")
    }

    mutating func putConversion(_ shipment: TripShipment, _ format: ExportFormat, at relative: String) -> Bool {
        if let err = shipment.write(format, to: POSIX.join(folder, relative), laps: laps) {
            printErr("cairn: \(label): \(format.name) not written: \(err)")
            problem = true
            return false
        }
        wroteConversions += 1
        return true
    }

    /// Nothing of it is on the stick, so it is not marked exported (retention would take it
    /// for one that is).
    mutating func holdsNothing(beforeEndPress: Bool) {
        printErr(
            "cairn: \(label): not exported: no format asked for holds a trip without positions and its logs are not copied "
                + "(--format fit or csv, or --logs yes)")
        problem = true
    }

    /// Whether `target` is a cairn log of another card: a log header whose salt is not `salt`.
    /// Anything else there (this log's copy, damaged or not, a file that is no log) is no reason
    /// to go beside it: it is refused or replaced as before.
    static func otherCardsLog(at target: String, salt: UInt32) -> Bool {
        guard fileSize(target) != nil, let r = try? LogReader(path: target) else { return false }
        return r.header.salt != salt
    }

    /// What is at `target` already, against the log `source` whose bytes are `digest`
    /// (`ShippingPlan.existingCopy` decides). Always read whole: a copy verified
    /// by an earlier export may have been damaged on the stick since.
    static func existingCopy(_ target: String, of source: String, _ digest: FileDigest) -> ShippingPlan.ExistingCopy {
        let found = fileSize(target) != nil
        let theirs = found ? try? FileDigest.of(target) : nil
        let prefix = theirs.flatMap { t in t.size < digest.size && t != digest ? try? FileDigest.of(source, limit: t.size) : nil }
        return ShippingPlan.existingCopy(found: found, theirs: theirs, ours: digest, prefix: prefix)
    }
}
