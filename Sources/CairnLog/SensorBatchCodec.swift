import CairnCore

/// The sensors record's body (LOG_FORMAT.md section 7d): a table of the batch's sources (sensor
/// address and characteristic), then per notification its source's index, its arrival as a
/// difference from the one before, and its bytes.
enum SensorBatchCodec {
    struct Source: Hashable {
        var address: UInt64
        var characteristic: UInt16
    }

    static func encode(_ batch: SensorBatch, into out: inout [UInt8]) {
        var sources: [Source] = []
        var index: [Source: Int] = [:]
        for n in batch.notifications {
            let s = Source(address: n.address & 0xFFFF_FFFF_FFFF, characteristic: n.characteristic)
            if index[s] == nil {
                index[s] = sources.count
                sources.append(s)
            }
        }
        out.appendVarint(UInt64(batch.notifications.count))
        out.append((batch.gpsMinusMonoMs != nil ? 1 : 0) | (batch.clockMinusMonoMs != nil ? 2 : 0))
        if let g = batch.gpsMinusMonoMs { out.appendZigzag(g) }
        if let c = batch.clockMinusMonoMs { out.appendZigzag(c) }
        out.appendVarint(batch.leftOutBefore)
        out.appendVarint(UInt64(sources.count))
        for s in sources {
            out.appendVarint(s.address)
            out.appendVarint(UInt64(s.characteristic))
        }
        var last: Int64 = 0
        for n in batch.notifications {
            let s = Source(address: n.address & 0xFFFF_FFFF_FFFF, characteristic: n.characteristic)
            out.appendVarint(UInt64(index[s]!))
            out.appendZigzag(n.arrivalMonoMs &- last)
            last = n.arrivalMonoMs
            let value = n.value.prefix(SensorBatchLimits.maxValueBytes)
            out.appendVarint(UInt64(value.count))
            out.append(contentsOf: value)
        }
        // Appended (issue 40): readers before it ignore the bytes after the last notification.
        if let mm = batch.wheelCircumferenceMm { out.appendVarint(UInt64(mm)) }
    }

    static func decode(_ r: inout ByteReader) throws(Malformed) -> SensorBatch {
        let n = try r.varint()
        guard n <= UInt64(SensorBatchLimits.readerMax) else { throw Malformed() }
        let flags = try r.u8()
        let gps: Int64? = flags & 1 != 0 ? try r.zigzag() : nil
        let clock: Int64? = flags & 2 != 0 ? try r.zigzag() : nil
        let leftOut = try r.varint()
        let k = try r.varint()
        guard k <= n, k <= UInt64(r.remaining / 2) else { throw Malformed() }
        var sources: [Source] = []
        sources.reserveCapacity(Int(k))
        for _ in 0..<k {
            let address = try r.varint()
            let characteristic = try r.varint()
            guard address <= 0xFFFF_FFFF_FFFF, characteristic <= 0xFFFF else { throw Malformed() }
            sources.append(Source(address: address, characteristic: UInt16(characteristic)))
        }
        // Each notification takes at least three bytes: a crafted count cannot reserve millions.
        guard n <= UInt64(r.remaining / 3) else { throw Malformed() }
        var notifications: [SensorNotification] = []
        notifications.reserveCapacity(Int(n))
        var arrival: Int64 = 0
        for _ in 0..<n {
            let i = try r.varint()
            guard i < UInt64(sources.count) else { throw Malformed() }
            arrival = arrival &+ (try r.zigzag())
            let length = try r.varint()
            guard length <= UInt64(SensorBatchLimits.maxValueBytes), length <= UInt64(r.remaining) else { throw Malformed() }
            let value = Array(try r.take(Int(length)))
            let s = sources[Int(i)]
            notifications.append(
                SensorNotification(address: s.address, characteristic: s.characteristic, arrivalMonoMs: arrival, value: value))
        }
        // A circumference no wheel has (a crafted record) is none: the default is read instead.
        var wheel: UInt32?
        if r.remaining > 0, let mm = try? r.varint(), WheelSpeed.circumferenceMmRange.contains(mm) { wheel = UInt32(mm) }
        return SensorBatch(
            notifications: notifications, gpsMinusMonoMs: gps, clockMinusMonoMs: clock, leftOutBefore: leftOut, wheelCircumferenceMm: wheel)
    }
}
