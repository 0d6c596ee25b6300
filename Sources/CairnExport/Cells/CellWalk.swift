/// When a cell was visited: the first and last time (ms since the epoch, UTC).
public struct CellVisit: Sendable, Equatable {
    public var firstMs: Int64
    public var lastMs: Int64

    public init(firstMs: Int64, lastMs: Int64) {
        self.firstMs = firstMs
        self.lastMs = lastMs
    }

    public mutating func merge(_ o: CellVisit) {
        firstMs = min(firstMs, o.firstMs)
        lastMs = max(lastMs, o.lastMs)
    }
}

/// The geohash cells a track touched: each point's cell, and every cell the straight line
/// (in latitude and longitude, what a geohash cell is cut in) from one point to the next of a
/// segment crosses, so a fast ride with points 300 m apart leaves no holes between 150 m cells.
/// The times of the cells in between are interpolated along the line, to the second. Memory is
/// the cells, not the points.
public struct CellWalk: Sendable {
    /// A step crossing more cells than this (a line over ~600 km at precision 7: no ride, a
    /// receiver's jump the rules did not see) marks only its two ends.
    public static let maxCellsPerStep = 4096
    /// The cells a walk may pass through (new or already marked), growing with its points: a
    /// ride at 1 Hz crosses a cell or two a point, a tunnel's chord a few dozen once. A step
    /// that would pass the budget marks only its two ends (`stepsCut`). Without it a crafted log
    /// of cheap points each 4,000 cells from the last (a few bytes for thousands of points)
    /// made `cells` walk and print millions of cells.
    public static let baseVisits = 4096
    public static let visitsPerPoint = 32
    /// The most distinct cells one walk (one log file) holds: 100,000 cells of 153 m, over
    /// 15,000 km of new road at the equator, far more than one trip rides. More are left out
    /// (`cellsLeftOut`).
    public static let maxCells = 100_000

    /// The most cells a walk over `points` points can hold (what an index entry may hold).
    public static func maxCells(points: Int) -> Int {
        // Within the budget a step marks one cell more than it crosses; a step cut or too long
        // marks its two ends whatever the budget.
        min(maxCells, baseVisits + 1 + (visitsPerPoint + 2) * min(max(points, 0), maxCells))
    }

    public let grid: Geohash.Grid
    public private(set) var cells: [UInt64: CellVisit] = [:]
    /// Steps that marked only their ends for want of budget, and new cells left out past `maxCells`.
    public private(set) var stepsCut = 0
    public private(set) var cellsLeftOut = 0
    private var last: (x: Double, y: Double, t: Int64)?
    public private(set) var points = 0
    private var visits = 0

    public init(precision: Int = Geohash.finest) { grid = Geohash.Grid(precision: precision) }

    /// The next segment's first point is not joined to this one's last.
    public mutating func breakLine() { last = nil }

    public mutating func add(lat: Double, lon: Double, timeMs: Int64) {
        guard lat.isFinite, lon.isFinite else { return }
        let x = grid.x(lon: lon), y = grid.y(lat: lat)
        points += 1
        if let p = last { walk(from: p, to: (x, y, timeMs)) } else { mark(grid.cell(x: x, y: y), timeMs, timeMs) }
        last = (x, y, timeMs)
    }

    private mutating func mark(_ cell: UInt64, _ first: Int64, _ last: Int64) {
        let v = CellVisit(firstMs: min(first, last), lastMs: max(first, last))
        visits += 1
        if cells[cell] != nil {
            cells[cell]!.merge(v)
        } else if cells.count < Self.maxCells {
            cells[cell] = v
        } else {
            cellsLeftOut += 1
        }
    }

    /// Amanatides and Woo's grid traversal over the segment, its end unwrapped across the
    /// antimeridian so a line over 180° takes the short way round.
    private mutating func walk(from a: (x: Double, y: Double, t: Int64), to b: (x: Double, y: Double, t: Int64)) {
        var bx = b.x
        if bx - a.x > grid.columns / 2 { bx -= grid.columns } else if a.x - bx > grid.columns / 2 { bx += grid.columns }
        let rowsMax = grid.rows - 1
        var ix = Int64(a.x.rounded(.down)), iy = Int64(min(a.y, rowsMax).rounded(.down))
        let endX = Int64(bx.rounded(.down)), endY = Int64(min(b.y, rowsMax).rounded(.down))
        let steps = abs(endX - ix) + abs(endY - iy)
        let endCell = cellAt(endX, endY)
        if steps == 0 { mark(endCell, a.t, b.t); return }
        let budget = Self.baseVisits + Self.visitsPerPoint * points
        let overBudget = steps > Int64(budget - visits)
        if overBudget && steps < Int64(Self.maxCellsPerStep) { stepsCut += 1 }
        if steps >= Int64(Self.maxCellsPerStep) || overBudget {
            mark(cellAt(ix, iy), a.t, a.t)
            mark(endCell, b.t, b.t)
            return
        }
        let dx = bx - a.x, dy = b.y - a.y
        let stepX: Int64 = dx > 0 ? 1 : -1, stepY: Int64 = dy > 0 ? 1 : -1
        let deltaX = dx == 0 ? Double.infinity : abs(1 / dx), deltaY = dy == 0 ? Double.infinity : abs(1 / dy)
        var maxX = dx == 0 ? Double.infinity : (dx > 0 ? (Double(ix) + 1 - a.x) : (a.x - Double(ix))) * deltaX
        var maxY = dy == 0 ? Double.infinity : (dy > 0 ? (Double(iy) + 1 - a.y) : (a.y - Double(iy))) * deltaY
        let span = Double(b.t - a.t)
        // An interpolated time is an estimate: to the second, between the step's own times.
        func time(_ s: Double) -> Int64 {
            let t = Double(a.t) + span * min(max(s, 0), 1)
            return min(max(Int64((t / 1000).rounded()) * 1000, a.t), b.t)
        }
        var enter = 0.0
        var remainingX = abs(endX - ix), remainingY = abs(endY - iy)
        while remainingX + remainingY > 0 {
            // Step across whichever grid line the segment meets first; never past the end cell.
            let alongX = remainingY == 0 || (remainingX > 0 && maxX <= maxY)
            let leave = alongX ? maxX : maxY
            mark(cellAt(ix, iy), time(enter), time(leave))
            enter = leave
            if alongX { ix += stepX; maxX += deltaX; remainingX -= 1 } else { iy += stepY; maxY += deltaY; remainingY -= 1 }
        }
        mark(endCell, time(enter), b.t)
    }

    private func cellAt(_ ix: Int64, _ iy: Int64) -> UInt64 {
        let cols = Int64(grid.columns)
        let wrapped = ((ix % cols) + cols) % cols
        let row = min(max(iy, 0), Int64(grid.rows) - 1)
        return grid.cell(ix: UInt64(wrapped), iy: UInt64(row))
    }
}
