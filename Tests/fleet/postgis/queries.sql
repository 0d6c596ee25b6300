-- The fleet's questions, after load.sql. Each query is named (`-- name:`) for the runner.
--     psql -v south=51.330 -v west=12.355 -v north=51.348 -v east=12.392 \
--          -v polygon='POLYGON((12.40 51.36, 12.46 51.36, 12.43 51.40, 12.40 51.36))' -f queries.sql

-- name: days
-- (a) Distance and moving time per board per UTC day. Distance: the steps inside segments (a
-- step across a gap is not counted: cairn's own figure bridges dropouts, so it can read a
-- little longer). Moving: a step of at most 60 s whose speed (the mean of the measured ones,
-- else the one there is, else distance over time) is at least 0.28 m/s (cairn's TripStats).
SELECT board, day, sum(metres) AS distance_m,
       sum(CASE WHEN seconds > 0 AND seconds <= 60
                 AND coalesce((speed0 + speed) / 2, speed, speed0, metres / nullif(seconds, 0)) >= 0.28
            THEN seconds ELSE 0 END) AS moving_s
FROM steps GROUP BY board, day ORDER BY board, day;

-- name: cells
-- (b) The explored geohash-7 cells across boards, as `cairn cells` walks them
-- (Sources/CairnExport/CELL_INDEX.md): each point's cell, and for each step the cells on both
-- sides of every grid line it crosses (a step over 4,096 cells or more: its ends only).
-- With the number of boards that were there.
WITH s AS (
    SELECT board, cell_x(lon0) AS x0, cell_y(lat0) AS y0, cell_x(lon) AS x1, cell_y(lat) AS y1 FROM steps
    WHERE abs(floor(cell_x(lon)) - floor(cell_x(lon0))) + abs(floor(cell_y(lat)) - floor(cell_y(lat0)))
          BETWEEN 1 AND 4095
), xs AS (
    SELECT board, k, floor(y0 + (k - x0) / (x1 - x0) * (y1 - y0)) AS iy
    FROM s, generate_series(floor(least(x0, x1))::bigint + 1, floor(greatest(x0, x1))::bigint) AS k
), ys AS (
    SELECT board, k, floor(x0 + (k - y0) / (y1 - y0) * (x1 - x0)) AS ix
    FROM s, generate_series(floor(least(y0, y1))::bigint + 1, floor(greatest(y0, y1))::bigint) AS k
), touched AS (
    SELECT board, floor(cell_x(lon)) AS ix, floor(cell_y(lat)) AS iy FROM points
    UNION SELECT board, k - 1, iy FROM xs UNION SELECT board, k, iy FROM xs
    UNION SELECT board, ix, k - 1 FROM ys UNION SELECT board, ix, k FROM ys
)
SELECT geohash7(ix, iy) AS cell, count(DISTINCT board) AS boards
FROM touched GROUP BY ix, iy ORDER BY cell;

-- name: box
-- (c) The trips that crossed a latitude/longitude box: a point inside it.
SELECT DISTINCT board, trip FROM points
WHERE lat BETWEEN :south AND :north AND lon BETWEEN :west AND :east
ORDER BY board, trip;

-- name: polygon
-- (c) The trips whose track meets a polygon (WKT, longitude first).
SELECT DISTINCT board, trip FROM tracks
WHERE ST_Intersects(geom, ST_GeomFromText(:'polygon', 4326))
ORDER BY board, trip;
