-- Debian's libsqlite3-mod-spatialite through the sqlite3 shell's .load (by
-- name: the loader adds the suffix and derives the entry point): geometry
-- functions, InitSpatialMetadata (hundreds of statements and triggers), a
-- geometry column with a spatial index (an R*Tree kept by triggers) and a
-- query through the SpatialIndex virtual table.
.load mod_spatialite
SELECT AsText(GeomFromText('POINT(1 2)', 4326)), ST_Area(GeomFromText('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'));
SELECT InitSpatialMetadata(1);
SELECT count(*) > 0 FROM spatial_ref_sys;
CREATE TABLE places(id INTEGER PRIMARY KEY, name TEXT);
SELECT AddGeometryColumn('places', 'geom', 4326, 'POINT', 'XY');
SELECT CreateSpatialIndex('places', 'geom');
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 99)
INSERT INTO places(name, geom) SELECT 'p' || i, MakePoint(i % 10, i / 10, 4326) FROM c;
INSERT INTO places(name, geom) VALUES('bad', MakePoint(1, 1, 3857));
SELECT count(*), (SELECT count(*) FROM idx_places_geom) FROM places;
SELECT group_concat(name) FROM (SELECT name FROM places WHERE ROWID IN (
  SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'places' AND search_frame = BuildMbr(2, 2, 3.5, 3.5, 4326)) ORDER BY id);
DELETE FROM places WHERE id > 50;
SELECT CheckSpatialIndex('places', 'geom'), (SELECT count(*) FROM idx_places_geom);
PRAGMA integrity_check;
