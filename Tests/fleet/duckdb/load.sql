-- A fleet's delivered CSV files into DuckDB: every REMOTE/<board>/csv/*.csv (cairn deliver's
-- layout). Set the folder first:  SET VARIABLE remote = '/srv/fleet';
-- The board is the file's `board` column, or its folder when the column is empty or absent
-- (files written before cairn had board ids). Hidden temporaries (.cairn-tmp-*) are not matched.

-- Every column cairn's CSV can have: INSERT ... BY NAME leaves those a file lacks empty.
CREATE OR REPLACE TABLE fleet_raw (
    time VARCHAR, lat DOUBLE, lon DOUBLE, ele DOUBLE, speed DOUBLE, course DOUBLE, temp DOUBLE,
    pressure DOUBLE, climb DOUBLE, segment INTEGER, trip BIGINT, board VARCHAR, lap INTEGER,
    origin VARCHAR, verdict VARCHAR, filename VARCHAR);
INSERT INTO fleet_raw BY NAME
SELECT * FROM read_csv(getvariable('remote') || '/*/csv/*.csv', header = true, union_by_name = true,
                       filename = true, types = {'time': 'VARCHAR'});

-- One row a point; `day` is its UTC date.
CREATE OR REPLACE TABLE points AS
SELECT coalesce(nullif(board, ''), regexp_extract(filename, '([^/]+)/csv/[^/]+$', 1)) AS board,
       trip, segment, CAST(time AS TIMESTAMPTZ) AS time, CAST(left(time, 10) AS DATE) AS day,
       lat, lon, speed
FROM fleet_raw;
DROP TABLE fleet_raw;

-- cairn's Earth: a sphere of the WGS 84 mean radius (Sources/CairnCore/Geodesy.swift).
CREATE OR REPLACE MACRO haversine_m(lat1, lon1, lat2, lon2) AS
    2 * 6371008.8 * asin(least(1, sqrt(
        pow(sin(radians(lat2 - lat1) / 2), 2)
        + cos(radians(lat1)) * cos(radians(lat2)) * pow(sin(radians(lon2 - lon1) / 2), 2))));

-- One row a step: a point and the one before it in the same trip and segment (a new segment
-- starts after a pause or a gap: no step across it). The step's day is its end's.
CREATE OR REPLACE TABLE steps AS
SELECT board, trip, segment, day, lat0, lon0, lat, lon,
       haversine_m(lat0, lon0, lat, lon) AS metres,
       epoch(time) - epoch(time0) AS seconds,
       speed0, speed
FROM (SELECT *, lag(lat) OVER w AS lat0, lag(lon) OVER w AS lon0, lag(time) OVER w AS time0,
             lag(speed) OVER w AS speed0
      FROM points WINDOW w AS (PARTITION BY board, trip, segment ORDER BY time))
WHERE lat0 IS NOT NULL;

-- Geohash precision 7 as a grid: x in [0, 2^18) eastward from 180° W, y in [0, 2^17)
-- northward (Sources/CairnExport/Cells/Geohash.swift); the cell's text from its column and row.
CREATE OR REPLACE MACRO cell_x(lon) AS (lon + 180) / 360 * 262144;
CREATE OR REPLACE MACRO cell_y(lat) AS (lat + 90) / 180 * 131072;
CREATE OR REPLACE MACRO geohash7(ix, iy) AS array_to_string(
    [substr('0123456789bcdefghjkmnpqrstuvwxyz',
            CAST(((list_sum([((CAST(ix AS BIGINT) >> b) & 1) << (2 * b) for b in range(18)])
                   + list_sum([((CAST(iy AS BIGINT) >> b) & 1) << (2 * b + 1) for b in range(17)]))
                  >> (5 * (6 - c))) & 31 AS INTEGER) + 1, 1) for c in range(7)], '');
