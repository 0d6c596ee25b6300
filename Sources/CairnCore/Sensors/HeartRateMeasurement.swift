/// Heart Rate Measurement (characteristic 0x2A37 of the Heart Rate service 0x180D).
///
/// A flags byte, then the heart rate (uint8, or uint16 when flag bit 0 is set), the energy
/// expended (uint16 kJ, bit 3) and as many RR intervals as the rest holds (uint16 each in
/// 1/1024 s, bit 4). Bits 1-2 say whether the strap can tell skin contact and whether it has it.
/// Bits 5-7 are reserved and ignored. Field layout: the Bluetooth SIG's characteristic definition
/// (org.bluetooth.characteristic.heart_rate_measurement); see Sources/CairnDevice/Bluetooth/DECISION.md.
public struct HeartRateMeasurement: Equatable, Sendable {
    /// Skin contact, from flag bits 1-2: 0 and 1 not supported, 2 no contact, 3 contact.
    public enum Contact: Equatable, Sendable {
        case notSupported, notDetected, detected
    }

    /// Beats per minute; 0 is what straps send without a reading.
    public var beatsPerMinute: UInt16
    public var contact: Contact
    /// Kilojoules since the strap's count was last reset (it stops at 0xFFFF).
    public var energyExpendedKJ: UInt16?
    /// The intervals between beats since the last notification, oldest first, in 1/1024 s.
    public var rrIntervals: [UInt16]

    /// Above this, the rate is no heart's: a notification carrying it is `outOfRange`.
    public static let maxBeatsPerMinute: UInt16 = 300

    public init(
        beatsPerMinute: UInt16, contact: Contact = .notSupported, energyExpendedKJ: UInt16? = nil,
        rrIntervals: [UInt16] = []
    ) {
        self.beatsPerMinute = beatsPerMinute
        self.contact = contact
        self.energyExpendedKJ = energyExpendedKJ
        self.rrIntervals = rrIntervals
    }

    public init(decoding bytes: [UInt8]) throws(NotificationError) {
        var reader = NotificationReader(bytes)
        let flags = try reader.uint8(.flags)
        beatsPerMinute =
            try flags & 0x01 != 0 ? reader.uint16(.heartRate) : UInt16(reader.uint8(.heartRate))
        guard beatsPerMinute <= Self.maxBeatsPerMinute else {
            throw .outOfRange(.heartRate, value: Int(beatsPerMinute))
        }
        switch (flags >> 1) & 0x03 {
        case 3: contact = .detected
        case 2: contact = .notDetected
        default: contact = .notSupported
        }
        energyExpendedKJ = try flags & 0x08 != 0 ? reader.uint16(.energyExpended) : nil
        rrIntervals = []
        if flags & 0x10 != 0 {
            // Every pair of bytes left. The flag with none (straps send it between beats) keeps
            // the rate: only the intervals are missing.
            while reader.remaining >= 2 { rrIntervals.append(try reader.uint16(.rrInterval)) }
            guard reader.remaining == 0 else { throw .oddByte(.rrInterval) }
        }
    }

    /// `rrIntervals` in milliseconds.
    public var rrIntervalsMs: [Double] { rrIntervals.map { Double($0) * 1000 / 1024 } }
}
