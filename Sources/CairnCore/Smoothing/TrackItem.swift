/// Where an exported point's position comes from.
public enum PointOrigin: UInt8, Sendable, Equatable {
    /// As the receiver measured it (what the log holds).
    case measured
    /// The receiver's point, moved by the smoother (`TrackSmoother`).
    case smoothed
    /// Not measured: made up across a dropout (`GapFiller`).
    case interpolated
}

/// What the export-side stages pass along: a trip's segment starts and points, in order.
public enum TrackItem: Sendable {
    case segment(SegmentReason)
    case point(Fix, PointOrigin)
}
