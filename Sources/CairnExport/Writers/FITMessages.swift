import CairnCore

/// FIT base types (the profile's `fit_base_type`) that cairn writes: the byte a definition
/// message gives a field, and the field's size.
enum FITBaseType: UInt8, Sendable {
    case enumeration = 0x00
    case sint8 = 0x01
    case uint8 = 0x02
    case sint16 = 0x83
    case uint16 = 0x84
    case sint32 = 0x85
    case uint32 = 0x86
    /// uint32 whose invalid value is 0 (serial numbers).
    case uint32z = 0x8C
    /// A NUL-terminated UTF-8 string in a field of fixed size: 33 bytes, a `BoardId` and its NUL.
    case string = 0x07

    var size: UInt8 {
        switch self {
        case .enumeration, .sint8, .uint8: return 1
        case .sint16, .uint16: return 2
        case .sint32, .uint32, .uint32z: return 4
        case .string: return UInt8(BoardId.maxLength + 1)
        }
    }
}

/// One field of a message: its number in the FIT profile, the profile's name for it, its type.
struct FITField: Sendable {
    let number: UInt8
    let name: StaticString
    let type: FITBaseType

    init(_ number: UInt8, _ name: StaticString, _ type: FITBaseType) {
        self.number = number
        self.name = name
        self.type = type
    }
}

/// One message as `FITWriter` writes it: the global message number and the fields in the order
/// they are written. The definition message is made from it (`definition(local:)`), and each
/// data message is checked against it field by field as it is written (`FITWriter.put`), so the
/// two cannot drift apart.
struct FITMessage: Sendable {
    let name: StaticString
    let global: UInt16
    let fields: [FITField]

    init(_ name: StaticString, global: UInt16, _ fields: [FITField]) {
        self.name = name
        self.global = global
        self.fields = fields
    }

    /// The bytes of a data message's values (without its header byte).
    var dataSize: Int { fields.reduce(0) { $0 + Int($1.type.size) } }

    /// The definition message for local type `local`: little-endian, one (number, size, base
    /// type) triple per field.
    func definition(local: UInt8) -> [UInt8] {
        var d: [UInt8] = [0x40 | local, 0, 0, UInt8(global & 0xFF), UInt8(global >> 8), UInt8(fields.count)]
        for f in fields { d += [f.number, f.type.size, f.type.rawValue] }
        return d
    }

    // MARK: The messages of an activity file, in the order they appear.

    static let fileId = FITMessage(
        "file_id", global: 0,
        [
            FITField(0, "type", .enumeration), FITField(1, "manufacturer", .uint16), FITField(2, "product", .uint16),
            FITField(3, "serial_number", .uint32z), FITField(4, "time_created", .uint32)
        ])

    /// The device that made the file (device_index 0).
    static let creator = FITMessage(
        "device_info", global: 23,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "device_index", .uint8), FITField(2, "manufacturer", .uint16),
            FITField(3, "serial_number", .uint32z), FITField(4, "product", .uint16), FITField(5, "software_version", .uint16)
        ])

    /// The creator with the board's id (`BoardId`) as its `descriptor` (field 19, a string the
    /// profile gives device_info to describe the device): file_id, which Strava and Garmin
    /// identify the file and device by, stays as it was.
    static let creatorWithBoard = FITMessage(
        "device_info", global: 23,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "device_index", .uint8), FITField(2, "manufacturer", .uint16),
            FITField(3, "serial_number", .uint32z), FITField(4, "product", .uint16), FITField(5, "software_version", .uint16),
            FITField(19, "descriptor", .string)
        ])

    /// The altitude's source when it is a barometer: no manufacturer or product.
    static let barometer = FITMessage(
        "device_info", global: 23,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "device_index", .uint8), FITField(1, "device_type", .uint8),
            FITField(25, "source_type", .enumeration)
        ])

    /// Timer start and stop.
    static let event = FITMessage(
        "event", global: 21,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "event", .enumeration), FITField(1, "event_type", .enumeration),
            FITField(4, "event_group", .uint8)
        ])

    /// The rider's stop: the timer event with its `data` (`timer_trigger` for event timer).
    static let eventWithData = FITMessage(
        "event", global: 21,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "event", .enumeration), FITField(1, "event_type", .enumeration),
            FITField(3, "data", .uint32), FITField(4, "event_group", .uint8)
        ])

    /// A point: the fields every record has, then the optional groups `recordFields` names.
    static func record(_ mask: UInt16) -> FITMessage {
        var fields = [
            FITField(253, "timestamp", .uint32), FITField(0, "position_lat", .sint32), FITField(1, "position_long", .sint32),
            FITField(5, "distance", .uint32)
        ]
        for (bit, group) in recordFields where mask & bit != 0 { fields += group }
        return FITMessage("record", global: 20, fields)
    }

    /// A record's optional fields, by the bit of `FITWriter`'s field mask that includes them.
    static let recordFields: [(UInt16, [FITField])] = [
        (UInt16(FITWriter.hasAltitude), [FITField(78, "enhanced_altitude", .uint32), FITField(2, "altitude", .uint16)]),
        (UInt16(FITWriter.hasSpeed), [FITField(73, "enhanced_speed", .uint32), FITField(6, "speed", .uint16)]),
        (UInt16(FITWriter.hasVerticalSpeed), [FITField(32, "vertical_speed", .sint16)]),
        (UInt16(FITWriter.hasAccuracy), [FITField(31, "gps_accuracy", .uint8)]),
        (UInt16(FITWriter.hasPressure), [FITField(91, "absolute_pressure", .uint32)]),
        (UInt16(FITWriter.hasTemperature), [FITField(13, "temperature", .sint8)]),
        (FITWriter.hasHeartRate, [FITField(3, "heart_rate", .uint8)]),
        (FITWriter.hasCadence, [FITField(4, "cadence", .uint8)]),
        (FITWriter.hasPower, [FITField(7, "power", .uint16)])
    ]

    /// Every record layout, by field mask (nine bits): made once, not per point.
    static let records: [FITMessage] = (0..<512).map { record(UInt16($0)) }

    static let lap = FITMessage(
        "lap", global: 19,
        [
            FITField(254, "message_index", .uint16), FITField(253, "timestamp", .uint32), FITField(0, "event", .enumeration),
            FITField(1, "event_type", .enumeration), FITField(2, "start_time", .uint32), FITField(3, "start_position_lat", .sint32),
            FITField(4, "start_position_long", .sint32), FITField(5, "end_position_lat", .sint32),
            FITField(6, "end_position_long", .sint32), FITField(7, "total_elapsed_time", .uint32),
            FITField(8, "total_timer_time", .uint32), FITField(9, "total_distance", .uint32),
            FITField(52, "total_moving_time", .uint32), FITField(13, "avg_speed", .uint16), FITField(14, "max_speed", .uint16),
            FITField(110, "enhanced_avg_speed", .uint32), FITField(111, "enhanced_max_speed", .uint32),
            FITField(21, "total_ascent", .uint16), FITField(22, "total_descent", .uint16), FITField(24, "lap_trigger", .enumeration),
            FITField(25, "sport", .enumeration), FITField(39, "sub_sport", .enumeration)
        ])

    /// A lap with the sensors' figures (`FITWriter.sensorFigures`), for trips with sensors.
    static let lapWithSensors = FITMessage(
        "lap", global: 19,
        lap.fields + [
            FITField(15, "avg_heart_rate", .uint8), FITField(16, "max_heart_rate", .uint8), FITField(17, "avg_cadence", .uint8),
            FITField(18, "max_cadence", .uint8), FITField(19, "avg_power", .uint16), FITField(20, "max_power", .uint16)
        ])

    static let session = FITMessage(
        "session", global: 18,
        [
            FITField(254, "message_index", .uint16), FITField(253, "timestamp", .uint32), FITField(0, "event", .enumeration),
            FITField(1, "event_type", .enumeration), FITField(2, "start_time", .uint32), FITField(3, "start_position_lat", .sint32),
            FITField(4, "start_position_long", .sint32), FITField(38, "end_position_lat", .sint32),
            FITField(39, "end_position_long", .sint32), FITField(5, "sport", .enumeration), FITField(6, "sub_sport", .enumeration),
            FITField(7, "total_elapsed_time", .uint32), FITField(8, "total_timer_time", .uint32),
            FITField(9, "total_distance", .uint32), FITField(59, "total_moving_time", .uint32), FITField(14, "avg_speed", .uint16),
            FITField(15, "max_speed", .uint16), FITField(124, "enhanced_avg_speed", .uint32),
            FITField(125, "enhanced_max_speed", .uint32), FITField(22, "total_ascent", .uint16),
            FITField(23, "total_descent", .uint16), FITField(25, "first_lap_index", .uint16), FITField(26, "num_laps", .uint16),
            FITField(28, "trigger", .enumeration)
        ])

    /// The session with the sensors' figures, for trips with sensors.
    static let sessionWithSensors = FITMessage(
        "session", global: 18,
        session.fields + [
            FITField(16, "avg_heart_rate", .uint8), FITField(17, "max_heart_rate", .uint8), FITField(18, "avg_cadence", .uint8),
            FITField(19, "max_cadence", .uint8), FITField(20, "avg_power", .uint16), FITField(21, "max_power", .uint16)
        ])

    static let activity = FITMessage(
        "activity", global: 34,
        [
            FITField(253, "timestamp", .uint32), FITField(0, "total_timer_time", .uint32), FITField(1, "num_sessions", .uint16),
            FITField(2, "type", .enumeration), FITField(3, "event", .enumeration), FITField(4, "event_type", .enumeration),
            FITField(5, "local_timestamp", .uint32)
        ])
}
