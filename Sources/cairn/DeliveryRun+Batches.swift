import CairnSystem
import CairnCore
import CairnLog
import CairnExport
import CairnDevice

/// Sending: the run's batches (DeliveryBatches) sent, and how that ended for the run.
extension DeliveryRun {
    /// A batch moved into place, not yet read back under its final names (`DeliveryBatches.settle`).
    struct Moved {
        var trips: [Waiting]
        var files: [DeliveryPlans.Staged]
        /// What did not read back right in the shipping folder (never moved).
        var wrong: [String]
        var key: DeliveryPlans.Staged?
        var page: Bool
        var takeDown: Bool
    }

    /// How sending ended: all sent, stopped (the run goes on to its receipts and status), or
    /// refused with the run's exit status (the remote the board's own storage).
    enum SendEnd {
        case sent
        case stopped(Stop)
        case refused(Int32)
    }

    func send(_ batches: inout DeliveryBatches) -> SendEnd {
        do {
            try batches.send()
        } catch let e as Stop {
            // What earlier batches moved into place is receipted still, when the remote
            // answers (a remote with room for some trips takes those); not while a ride is
            // recorded (the read-back downloads every byte): the next run finds them there.
            if case .remote = e { try? batches.settle() }
            return .stopped(e)
        } catch let e as Failure where e.status == ExitCode.config {
            removeStaging(staging)
            printErr("cairn deliver: \(e.message)")
            return .refused(e.status)
        } catch {
            return .stopped(.remote("\(error)"))
        }
        return .sent
    }
}
