/// Douglas–Peucker simplification of a polyline in screen space, for drawing only (never for
/// data): a point is dropped when the line without it stays within `tolerance` pixels.
public enum Simplify {
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    }

    /// The indices kept, first and last always, in order. Iterative: a long run needs no deep stack.
    public static func douglasPeucker(_ p: [Point], tolerance: Double) -> [Int] {
        guard p.count > 2 else { return Array(p.indices) }
        var keep = [Bool](repeating: false, count: p.count)
        keep[0] = true
        keep[p.count - 1] = true
        var stack = [(0, p.count - 1)]
        let t2 = tolerance * tolerance
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            var worst = -1.0, at = a
            for i in (a + 1)..<b {
                let d = distanceSquared(p[i], p[a], p[b])
                if d > worst { worst = d; at = i }
            }
            if worst > t2 {
                keep[at] = true
                stack.append((a, at))
                stack.append((at, b))
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// Squared distance from `q` to the segment a–b.
    static func distanceSquared(_ q: Point, _ a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0
        t = min(max(t, 0), 1)
        let ex = a.x + t * dx - q.x, ey = a.y + t * dy - q.y
        return ex * ex + ey * ey
    }

    /// Simplifies a stream of points in chunks of at most `chunk` points (each chunk's last point
    /// starts the next), so memory stays bounded whatever the run's length; each chunk's ends are
    /// kept, which costs a few points a chunk against simplifying the run whole.
    public struct Stream {
        public let tolerance: Double
        public let chunk: Int
        private var buffer: [Point] = []

        public init(tolerance: Double, chunk: Int = 512) {
            self.tolerance = tolerance
            self.chunk = max(chunk, 3)
            buffer.reserveCapacity(self.chunk)
        }

        /// Adds a point; returns the points settled so far (to draw), possibly none.
        public mutating func add(_ q: Point) -> [Point] {
            // Points closer than a tenth of the tolerance to the last one add nothing to a picture.
            if let l = buffer.last, abs(l.x - q.x) + abs(l.y - q.y) < tolerance / 10 { return [] }
            buffer.append(q)
            guard buffer.count >= chunk else { return [] }
            let kept = douglasPeucker(buffer, tolerance: tolerance)
            let out = kept.dropLast().map { buffer[$0] }
            let last = buffer[buffer.count - 1]
            buffer.removeAll(keepingCapacity: true)
            buffer.append(last)
            return out
        }

        /// The rest of the points; the stream is empty afterwards.
        public mutating func finish() -> [Point] {
            defer { buffer.removeAll(keepingCapacity: true) }
            return douglasPeucker(buffer, tolerance: tolerance).map { buffer[$0] }
        }
    }
}
