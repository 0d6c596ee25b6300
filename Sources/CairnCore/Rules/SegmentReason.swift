/// Why a new segment (a GPX `<trkseg>`) begins. Stored as one byte; unknown values read as `.other`.
public enum SegmentReason: UInt8, Sendable, Equatable {
    /// The first segment of a file: the recorder started (boot, restart, new file after a fault).
    case start = 0
    /// No usable fix for longer than the gap limit (tunnel, dropout).
    case gap = 1
    /// A standstill long enough to be a pause inside the trip.
    case pause = 2
    /// gpsd went away and came back.
    case reconnect = 3
    /// The file continues a trip whose previous file ended without a trip end (power cut, crash).
    case resume = 4
    /// Five fixes in a row were impossible jumps from the last kept point: that point was the
    /// bad one, and no line is drawn from it to where the receiver really is.
    case reset = 5
    /// Written by exports only, never recorded: points inside a privacy zone were left out here
    /// (a stop at home in the middle of a ride). No line across and no distance: the export
    /// counts what it holds.
    case hidden = 6
    case other = 255
}
