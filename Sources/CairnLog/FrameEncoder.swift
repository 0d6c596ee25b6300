/// Turns records into frames (LOG_FORMAT.md, "Frames"): numbers them, checksums them with the
/// file's salt, and makes padding frames. Pure: the frames collect in `bytes` until the writer
/// hands them to its file; no I/O here.
struct FrameEncoder {
    /// Framed bytes not yet written.
    var bytes: [UInt8] = []
    /// The sequence number the next frame gets.
    private(set) var nextSeq: UInt64 = 1
    private let saltRegister: UInt32

    init(salt: UInt32) {
        saltRegister = CRC32C.saltRegister(salt)
    }

    /// The highest sequence number framed so far (0 before the first frame).
    var lastSeq: UInt64 { nextSeq - 1 }

    /// The framed size of a body of `count` bytes, if it were framed next.
    func framedSize(bodyCount count: Int) -> Int {
        FrameFormat.frameHeaderLength + Varint.length(nextSeq) + count
    }

    /// Appends one frame whose body `body` writes. Returns false (and leaves `bytes` as they
    /// were, the sequence number unused) if the payload would exceed the frame limit.
    mutating func frame(type: UInt8, _ body: (inout [UInt8]) -> Void) -> Bool {
        let start = bytes.count
        bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, 0] as [UInt8])
        bytes.appendVarint(nextSeq)
        body(&bytes)
        let length = bytes.count - start - FrameFormat.frameHeaderLength
        if length > FrameFormat.maxPayload {
            bytes.removeSubrange(start...)
            return false
        }
        bytes[start + 4] = UInt8(truncatingIfNeeded: length)
        bytes[start + 5] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[start + 6] = type
        let crc = bytes.withUnsafeBytes { ~CRC32C.update(saltRegister, UnsafeRawBufferPointer(rebasing: $0[(start + 4)...])) }
        let m = CRC32C.mask(crc)
        for i in 0..<4 { bytes[start + i] = UInt8(truncatingIfNeeded: m >> (8 * UInt32(i))) }
        nextSeq += 1
        return true
    }

    /// Appends a padding frame so that a file whose data ends at `end` before these bytes will
    /// end on a multiple of `padding`. Returns the bytes it added (0 when already aligned).
    mutating func pad(fileEnd end: Int, to padding: Int) -> Int {
        let at = end + bytes.count
        var gap = (padding - at % padding) % padding
        if gap == 0 { return 0 }
        let smallest = framedSize(bodyCount: 0)
        if gap < smallest { gap += padding }
        let zeros = gap - smallest
        let ok = frame(type: FrameFormat.RecordType.padding) { $0.append(contentsOf: repeatElement(0, count: zeros)) }
        precondition(ok, "a padding frame always fits")
        return gap
    }
}
