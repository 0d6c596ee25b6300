/// Geohash cells (Niemeyer's base-32 grid): a cell at precision `p` is a `5p`-bit number whose
/// bits alternate longitude and latitude, longitude first. Cells are kept as numbers at the
/// finest precision cairn walks (`Geohash.finest`); the cell of a coarser precision is the same
/// number shifted right by five bits a character, so one walk serves every precision.
public enum Geohash {
    public static let alphabet: [UInt8] = Array("0123456789bcdefghjkmnpqrstuvwxyz".utf8)
    /// The precisions `cairn cells` offers: 5 (~4.9 × 4.9 km), 6 (~1.2 × 0.6 km), 7 (~153 × 153 m).
    public static let precisions = 5...7
    public static let finest = 7

    /// Bits of longitude and of latitude in a cell number of `precision` characters.
    public static func bits(_ precision: Int) -> (lon: Int, lat: Int) {
        let total = 5 * precision
        return ((total + 1) / 2, total / 2)
    }

    /// The cell holding a position (degrees; latitude clamped to ±90, longitude wrapped).
    public static func cell(lat: Double, lon: Double, precision: Int = finest) -> UInt64 {
        let g = Grid(precision: precision)
        return g.cell(x: g.x(lon: lon), y: g.y(lat: lat))
    }

    /// The cell's characters.
    public static func string(_ cell: UInt64, precision: Int) -> String {
        var s = [UInt8](repeating: 0, count: precision)
        var c = cell
        for i in stride(from: precision - 1, through: 0, by: -1) {
            s[i] = alphabet[Int(c & 31)]
            c >>= 5
        }
        return String(decoding: s, as: UTF8.self)
    }

    /// The cell number of a geohash string, or nil when a character is not in the alphabet
    /// (geohashes are lower case; upper case is accepted and read as lower case).
    public static func cell(_ text: String) -> UInt64? {
        var c: UInt64 = 0
        for b in text.utf8 {
            let lower = (b >= 65 && b <= 90) ? b + 32 : b
            guard let v = alphabet.firstIndex(of: lower) else { return nil }
            c = c << 5 | UInt64(v)
        }
        return text.utf8.count <= 12 ? c : nil
    }

    /// The cell's bounds in degrees.
    public static func bounds(_ cell: UInt64, precision: Int) -> (south: Double, west: Double, north: Double, east: Double) {
        let (lonBits, latBits) = bits(precision)
        var x: UInt64 = 0, y: UInt64 = 0
        // From the most significant bit: longitude, latitude, longitude, ...
        let total = 5 * precision
        for i in 0..<total {
            let bit = (cell >> UInt64(total - 1 - i)) & 1
            if i % 2 == 0 { x = x << 1 | bit } else { y = y << 1 | bit }
        }
        let w = 360 / Double(UInt64(1) << UInt64(lonBits)), h = 180 / Double(UInt64(1) << UInt64(latBits))
        let west = -180 + Double(x) * w, south = -90 + Double(y) * h
        return (south, west, south + h, west + w)
    }

    /// The cell containing `cell` at a coarser `precision`.
    @inline(__always)
    public static func parent(_ cell: UInt64, from fine: Int = finest, to precision: Int) -> UInt64 {
        cell >> UInt64(5 * (fine - precision))
    }

    /// The cell grid at one precision as continuous coordinates: x in [0, 2^lonBits) eastward
    /// from 180° W, y in [0, 2^latBits) northward from the South Pole; cell (ix, iy) is the unit
    /// square at floor(x), floor(y).
    public struct Grid: Sendable {
        public let precision: Int
        public let columns: Double, rows: Double
        let lonBits: Int, latBits: Int

        public init(precision: Int) {
            self.precision = precision
            (lonBits, latBits) = Geohash.bits(precision)
            columns = Double(UInt64(1) << UInt64(lonBits))
            rows = Double(UInt64(1) << UInt64(latBits))
        }

        public func x(lon: Double) -> Double {
            var l = lon.truncatingRemainder(dividingBy: 360)
            if l >= 180 { l -= 360 } else if l < -180 { l += 360 }
            return (l + 180) / 360 * columns
        }

        public func y(lat: Double) -> Double { (min(max(lat, -90), 90) + 90) / 180 * rows }

        /// The number of the cell holding grid point (x, y); points on the far edges belong to
        /// the last column or row.
        public func cell(x: Double, y: Double) -> UInt64 {
            let ix = UInt64(min(max(x, 0), columns - 1))
            let iy = UInt64(min(max(y, 0), rows - 1))
            return cell(ix: ix, iy: iy)
        }

        public func cell(ix: UInt64, iy: UInt64) -> UInt64 {
            // An odd bit count starts and ends with longitude: it takes the even positions.
            let lonShift: UInt64 = (lonBits + latBits) % 2 == 1 ? 0 : 1
            return Geohash.spread(ix) << lonShift | Geohash.spread(iy) << (1 - lonShift)
        }
    }

    /// Bit k of `v` moved to bit 2k.
    static func spread(_ v: UInt64) -> UInt64 {
        var x = v & 0xFFFF_FFFF
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        x = (x | x << 4) & 0x0F0F_0F0F_0F0F_0F0F
        x = (x | x << 2) & 0x3333_3333_3333_3333
        x = (x | x << 1) & 0x5555_5555_5555_5555
        return x
    }
}
