/// A fixed-capacity FIFO. Appending to a full ring overwrites the oldest element, so memory never
/// grows with ride length; `overwritten` counts what was lost that way. Its storage grows with
/// what it holds at once, doubling up to the capacity: a ring for a rare case (the records a
/// failing card could not take: 4,096 of them, 292 kB) costs no resident memory until used.
public struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0  // index of the oldest element
    public private(set) var count = 0
    public private(set) var overwritten: UInt64 = 0
    public let capacity: Int

    public init(capacity: Int) {
        precondition(capacity > 0, "RingBuffer capacity must be positive")
        self.capacity = capacity
    }

    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }
    /// The slots allocated now (at most `capacity`).
    var storageSize: Int { storage.count }

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
            if count == storage.count { grow() }
            storage[slot(forOffset: count)] = e
            count += 1
        }
    }

    /// A full storage short of the capacity doubles (to 4 at first), its elements laid out
    /// from slot 0.
    private mutating func grow() {
        let size = Swift.min(Swift.max(storage.count * 2, 4), capacity)
        var bigger: [Element?] = []
        bigger.reserveCapacity(size)
        for i in 0..<count { bigger.append(storage[slot(forOffset: i)]) }
        bigger.append(contentsOf: repeatElement(nil, count: size - count))
        storage = bigger
        head = 0
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
