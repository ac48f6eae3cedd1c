"""Debian's libsqlite3-mod-spatialite, loaded unchanged through Python's
sqlite3 module: its initialisation (InitSpatialMetadata runs hundreds of
statements, creates tables, views, triggers and inserts the spatial
reference systems), geometry functions, a geometry column with its
triggers, a spatial index (an R*Tree kept by triggers), queries through
the SpatialIndex virtual table, and the index checks. Prints "not
installed" when the package is missing (the Makefile's deps install it)."""
import os
import sqlite3
import sys

# Some Python builds leave extension loading out of their sqlite3 module;
# the system interpreter has it.
if not hasattr(sqlite3.Connection, "load_extension"):
    for other in ("/usr/bin/python3", "/bin/python3"):
        if os.path.realpath(other) != os.path.realpath(sys.executable) and os.access(other, os.X_OK):
            os.execv(other, [other, os.path.abspath(__file__)])
    print("this Python's sqlite3 module cannot load extensions")
    sys.exit(0)

found = [d for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
         if os.path.exists(os.path.join(d, "mod_spatialite.so"))]
if not found:
    print("libsqlite3-mod-spatialite not installed")
    sys.exit(0)


def attempt(label, fn):
    try:
        print(label, "->", fn())
    except sqlite3.Error as e:
        print(label, "->", type(e).__name__, e)


def rows(conn, sql, params=()):
    attempt(sql, lambda: conn.execute(sql, params).fetchall())


conn = sqlite3.connect(":memory:", isolation_level=None)
conn.enable_load_extension(True)
# By the name alone: the loader adds the suffix and derives the entry
# point (sqlite3_modspatialite_init) from the file name.
attempt("load mod_spatialite", lambda: conn.load_extension("mod_spatialite"))
rows(conn, "SELECT AsText(GeomFromText('POINT(1 2)', 4326))")
rows(conn, "SELECT ST_Area(GeomFromText('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))")
rows(conn, "SELECT ST_Distance(MakePoint(0, 0), MakePoint(3, 4))")
rows(conn, "SELECT AsText(ST_Buffer(MakePoint(0, 0), 1, 2)) IS NOT NULL, ST_NPoints(ST_Buffer(MakePoint(0, 0), 1, 2))")
rows(conn, "SELECT AsText(ST_Union(GeomFromText('POINT(1 1)'), GeomFromText('POINT(2 2)')))")
rows(conn, "SELECT ST_Within(MakePoint(1, 1), GeomFromText('POLYGON((0 0, 4 0, 4 3, 0 3, 0 0))'))")

# A spatial database end to end.
rows(conn, "SELECT InitSpatialMetadata(1)")
rows(conn, "SELECT count(*) > 0 FROM spatial_ref_sys")
rows(conn, "SELECT srid, auth_name, ref_sys_name FROM spatial_ref_sys WHERE srid IN (4326, 3857) ORDER BY srid")
conn.execute("CREATE TABLE places(id INTEGER PRIMARY KEY, name TEXT)")
rows(conn, "SELECT AddGeometryColumn('places', 'geom', 4326, 'POINT', 'XY')")
rows(conn, "SELECT CreateSpatialIndex('places', 'geom')")
conn.execute("BEGIN")
for i in range(200):
    conn.execute("INSERT INTO places(name, geom) VALUES(?, MakePoint(?, ?, 4326))", ("p%d" % i, (i * 7) % 100 / 10.0, (i * 13) % 100 / 10.0))
conn.execute("COMMIT")
# Refused by the column's triggers (another SRID).
rows(conn, "INSERT INTO places(name, geom) VALUES('bad', MakePoint(1, 1, 3857))")
rows(conn, "SELECT count(*) FROM places")
rows(conn, "SELECT count(*) FROM idx_places_geom")
rows(conn, """SELECT count(*) FROM places WHERE ST_Within(geom, BuildMbr(2, 2, 5, 5, 4326))""")
rows(conn, """SELECT group_concat(name) FROM (SELECT name FROM places WHERE ROWID IN (
              SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'places' AND search_frame = BuildMbr(2, 2, 5, 5, 4326))
              ORDER BY id)""")
conn.execute("UPDATE places SET geom = MakePoint(50, 50, 4326) WHERE id <= 10")
conn.execute("DELETE FROM places WHERE id > 190")
rows(conn, "SELECT count(*) FROM idx_places_geom")
rows(conn, "SELECT count(*) FROM idx_places_geom WHERE xmin >= 49")
rows(conn, "SELECT CheckSpatialIndex('places', 'geom')")
rows(conn, "SELECT f_table_name, f_geometry_column, geometry_type, srid, spatial_index_enabled FROM geometry_columns")
rows(conn, "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'places'")
rows(conn, "PRAGMA integrity_check")
conn.close()
