/// A first-in-first-out queue of what waits to be passed on (events held for their raw fixes,
/// heights waiting for their record), in one array: taking moves an index past the front, and
/// the taken front is dropped when the queue empties or once more than `compactAfter` items have
/// been taken, so a take costs O(1) amortised and the array keeps at most that many taken items
/// beside the waiting ones. Unbounded: its users cap what waits.
public struct HeldQueue<Element> {
    private var items: [Element] = []
    private var front = 0  // index of the oldest waiting item
    /// Taken items the array may keep before it drops them.
    static var compactAfter: Int { 1024 }

    public init() {}

    /// The items waiting.
    public var count: Int { items.count - front }
    public var isEmpty: Bool { front == items.count }
    /// The oldest item waiting.
    public var first: Element? { isEmpty ? nil : items[front] }
    /// The array's length: the waiting items and the taken ones not yet dropped.
    var storedCount: Int { items.count }

    public mutating func reserveCapacity(_ n: Int) { items.reserveCapacity(n) }

    public mutating func append(_ e: Element) { items.append(e) }

    /// Takes the oldest item waiting (nil: none).
    @discardableResult
    public mutating func popFirst() -> Element? {
        guard front < items.count else { return nil }
        let e = items[front]
        front += 1
        if front == items.count {
            items.removeAll(keepingCapacity: true)
            front = 0
        } else if front > Self.compactAfter {
            items.removeFirst(front)
            front = 0
        }
        return e
    }

    /// Forgets every waiting item, keeping the array's storage.
    public mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        front = 0
    }
}
