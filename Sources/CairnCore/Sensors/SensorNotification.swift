/// One notification as it came from a sensor, before any decoding: what the log keeps (the raw
/// bytes, so that a later cairn can decode them again), and what the transport hands the
/// recorder.
public struct SensorNotification: Equatable, Sendable {
    /// The sensor's Bluetooth device address, the 48 bits as written `AA:BB:CC:DD:EE:FF`
    /// (`AA` the most significant byte).
    public var address: UInt64
    /// The characteristic it came from: 0x2A37 heart rate, 0x2A5B speed and cadence, 0x2A63
    /// power, 0x2A19 battery level.
    public var characteristic: UInt16
    /// When it arrived, on the record loop's monotonic clock (`LoopClock.monotonicMs`): the
    /// kernel's receive time where the transport has it, else the time it was read.
    public var arrivalMonoMs: Int64
    /// The characteristic value as notified (or read, for the battery level).
    public var value: [UInt8]

    public init(address: UInt64, characteristic: UInt16, arrivalMonoMs: Int64, value: [UInt8]) {
        self.address = address
        self.characteristic = characteristic
        self.arrivalMonoMs = arrivalMonoMs
        self.value = value
    }
}

/// What the sensors' transport tells the record loop at a wake-up.
public enum SensorEvent: Equatable, Sendable {
    case notification(SensorNotification)
    /// Something a rider should read in the journal and the log's notes: a sensor connected,
    /// lost, refusing, or sending what no decoder takes. The text names the sensor.
    case said(String)
}
