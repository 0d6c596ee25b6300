/// A fixed-capacity FIFO. Appending to a full ring overwrites the oldest element, so memory never
/// grows with ride length; `overwritten` counts what was lost that way.
public struct RingBuffer<Element> {
    private var storage: [Element?]
    private var head = 0  // index of the oldest element
    public private(set) var count = 0
    public private(set) var overwritten: UInt64 = 0

    public init(capacity: Int) {
        precondition(capacity > 0, "RingBuffer capacity must be positive")
        storage = Array(repeating: nil, count: capacity)
    }

    public var capacity: Int { storage.count }
    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == storage.count }

    /// The storage index of the element `offset` places after the oldest: the one wrap-around
    /// calculation (offsets run from 0 to the capacity, one past the newest of a full ring).
    @inline(__always)
    private func slot(forOffset offset: Int) -> Int {
        assert(offset >= 0 && offset <= storage.count, "RingBuffer offset out of range")
        let s = head + offset
        return s >= storage.count ? s - storage.count : s
    }

    public mutating func append(_ e: Element) {
        if isFull {
            storage[slot(forOffset: 0)] = e
            head = slot(forOffset: 1)
            overwritten += 1
        } else {
            storage[slot(forOffset: count)] = e
            count += 1
        }
    }

    @discardableResult
    public mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let oldest = slot(forOffset: 0)
        let e = storage[oldest]
        storage[oldest] = nil
        head = slot(forOffset: 1)
        count -= 1
        return e
    }

    public mutating func removeAll() {
        while popFirst() != nil {}
    }

    /// The i-th element from the oldest (0) to the newest (count - 1).
    public subscript(i: Int) -> Element {
        precondition(i >= 0 && i < count, "RingBuffer index out of range")
        return storage[slot(forOffset: i)]!
    }

    public var first: Element? { count > 0 ? self[0] : nil }
    public var last: Element? { count > 0 ? self[count - 1] : nil }
}

extension RingBuffer: Sendable where Element: Sendable {}
