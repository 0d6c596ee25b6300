import CairnCore

/// Trip-level facts an exporter may name.
public struct TripHeading: Sendable {
    public var id: UInt64
    public var activity: String?
    public init(id: UInt64, activity: String?) {
        self.id = id
        self.activity = activity
    }
}

/// A streaming writer for one output format: it sees the trips' events in order and never holds
/// a trip in memory.
public protocol TrackExporter: AnyObject {
    func begin()
    func beginTrip(_ heading: TripHeading)
    func beginSegment()
    func point(_ fix: Fix)
    func endTrip()
    /// Finishes the document; returns an error text if writing failed.
    func end() -> String?
}
