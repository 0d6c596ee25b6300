-- A fleet's delivered CSV files into DuckDB: every REMOTE/<board>/csv/*.csv (cairn deliver's
-- layout). Set the folder first:  SET VARIABLE remote = '/srv/fleet';
-- The board is the file's `board` column, or its folder when the column is empty or absent
-- (files written before cairn had board ids). Hidden temporaries (.cairn-tmp-*) are not matched.

-- Every file read as text by position, its header row too, without sniffing each file (DuckDB's
-- union_by_name sniffs every file: 70 ms a file, five minutes for 4,475 files). cairn's CSV
-- starts with the same 11 columns always (time ... trip); `board`, when the file has it, is the
-- 12th (then lap, origin, verdict as asked for): the file's header row says which.
CREATE OR REPLACE TABLE fleet_raw AS
SELECT * FROM read_csv(getvariable('remote') || '/*/csv/*.csv', header = false, auto_detect = false,
                       delim = ',', quote = '"', escape = '"', null_padding = true, filename = true,
                       columns = {'c1': 'VARCHAR', 'c2': 'VARCHAR', 'c3': 'VARCHAR', 'c4': 'VARCHAR',
                                  'c5': 'VARCHAR', 'c6': 'VARCHAR', 'c7': 'VARCHAR', 'c8': 'VARCHAR',
                                  'c9': 'VARCHAR', 'c10': 'VARCHAR', 'c11': 'VARCHAR', 'c12': 'VARCHAR',
                                  'c13': 'VARCHAR', 'c14': 'VARCHAR', 'c15': 'VARCHAR'});

-- One row a point; `day` is its UTC date.
CREATE OR REPLACE TABLE points AS
SELECT coalesce(CASE WHEN h.c12 = 'board' THEN r.c12 END,
                regexp_extract(r.filename, '([^/]+)/csv/[^/]+$', 1)) AS board,
       CAST(r.c11 AS BIGINT) AS trip, CAST(r.c10 AS INTEGER) AS segment,
       CAST(r.c1 AS TIMESTAMPTZ) AS time, CAST(left(r.c1, 10) AS DATE) AS day,
       CAST(r.c2 AS DOUBLE) AS lat, CAST(r.c3 AS DOUBLE) AS lon, CAST(r.c5 AS DOUBLE) AS speed
FROM fleet_raw AS r JOIN (SELECT filename, c12 FROM fleet_raw WHERE c1 = 'time') AS h USING (filename)
WHERE r.c1 <> 'time';
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
