-- A fleet's delivered CSV files into PostGIS: every REMOTE/<board>/csv/*.csv (cairn deliver's
-- layout), read by the server itself: a superuser (or a role in pg_read_server_files granted
-- EXECUTE on pg_ls_dir, pg_stat_file and pg_read_file):
--     psql -v remote=/srv/fleet -f load.sql
-- The board is the file's `board` column, or its folder when the column is empty or absent
-- (files written before cairn had board ids). Hidden temporaries (.cairn-tmp-*) are skipped.
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS postgis;
DROP TABLE IF EXISTS fleet_raw, points, steps, tracks;

-- Every column cairn's CSV can have; each file's COPY names its own header's columns.
CREATE UNLOGGED TABLE fleet_raw (
    time text, lat float8, lon float8, ele float8, speed float8, course float8, temp float8,
    pressure float8, climb float8, segment int, trip bigint, board text, lap int, origin text,
    verdict text, src text);
-- One COPY a file, its path kept as the column default meanwhile (\gexec runs each cell).
SELECT format('ALTER TABLE fleet_raw ALTER src SET DEFAULT %L', f),
       format('COPY fleet_raw (%s) FROM %L WITH (FORMAT csv, HEADER true)', header, f)
FROM (SELECT f, split_part(pg_read_file(f, 0, 400), E'\n', 1) AS header
      FROM (SELECT :'remote' || '/' || b || '/csv/' || c AS f
            FROM pg_ls_dir(:'remote') AS b,
                 LATERAL pg_ls_dir(:'remote' || '/' || b || '/csv', true, false) AS c
            WHERE (pg_stat_file(:'remote' || '/' || b)).isdir AND c LIKE '%.csv' AND c NOT LIKE '.%') AS files
     ) AS headed
WHERE header ~ '^time(,[a-z]+)+$'
ORDER BY f
\gexec

-- One row a point; `day` is its UTC date.
CREATE TABLE points AS
SELECT coalesce(nullif(board, ''), substring(src FROM '([^/]+)/csv/[^/]+$')) AS board,
       trip, segment, time::timestamptz AS time, left(time, 10)::date AS day, lat, lon, speed
FROM fleet_raw;
DROP TABLE fleet_raw;

-- One row a step: a point and the one before it in the same trip and segment (no step across
-- a pause or a gap). ST_DistanceSphere: haversine on the mean Earth radius, as cairn measures.
CREATE TABLE steps AS
SELECT board, trip, segment, day, lat0, lon0, lat, lon,
       ST_DistanceSphere(ST_MakePoint(lon0, lat0), ST_MakePoint(lon, lat)) AS metres,
       extract(epoch FROM time - time0)::float8 AS seconds, speed0, speed
FROM (SELECT *, lag(lat) OVER w AS lat0, lag(lon) OVER w AS lon0, lag(time) OVER w AS time0,
             lag(speed) OVER w AS speed0
      FROM points WINDOW w AS (PARTITION BY board, trip, segment ORDER BY time)) AS w
WHERE lat0 IS NOT NULL;

-- One line a trip's segment (a point when the segment has one), for the area questions.
CREATE TABLE tracks AS
SELECT board, trip, segment,
       CASE WHEN count(*) > 1 THEN ST_MakeLine(ST_SetSRID(ST_MakePoint(lon, lat), 4326) ORDER BY time)
            ELSE ST_SetSRID(ST_MakePoint(min(lon), min(lat)), 4326) END AS geom
FROM points GROUP BY board, trip, segment;
CREATE INDEX ON tracks USING gist (geom);
ANALYZE points; ANALYZE steps; ANALYZE tracks;

-- Geohash precision 7 as a grid: x in [0, 2^18) eastward from 180° W, y in [0, 2^17)
-- northward (Sources/CairnExport/Cells/Geohash.swift).
CREATE OR REPLACE FUNCTION cell_x(lon float8) RETURNS float8 IMMUTABLE LANGUAGE sql
    AS 'SELECT (lon + 180) / 360 * 262144';
CREATE OR REPLACE FUNCTION cell_y(lat float8) RETURNS float8 IMMUTABLE LANGUAGE sql
    AS 'SELECT (lat + 90) / 180 * 131072';
-- A cell's geohash: PostGIS's own, of the cell's centre.
CREATE OR REPLACE FUNCTION geohash7(ix float8, iy float8) RETURNS text IMMUTABLE LANGUAGE sql
    AS 'SELECT ST_GeoHash(ST_SetSRID(ST_MakePoint(-180 + (ix + 0.5) * 360 / 262144, -90 + (iy + 0.5) * 180 / 131072), 4326), 7)';
