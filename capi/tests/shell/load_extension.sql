-- .load and load_extension() in the sqlite3 shell: the test extension
-- (ext_demo.c, built by run.sh into EXT_DIR) and Debian's sqlite3-pcre.
.load EXT_DIR/libdemoext
SELECT half(10), shout('shell');
SELECT product(x) FROM (SELECT 6 AS x UNION ALL SELECT 7);
SELECT x FROM (SELECT 'a' AS x UNION ALL SELECT 'b') ORDER BY x COLLATE rev;
.load EXT_DIR/libdemoext demo_alt_init
SELECT half_alt(3);
.load EXT_DIR/nosuch
.load EXT_DIR/libdemoext.so demo_fail_init
SELECT load_extension('EXT_DIR/libdemoext.so', 'demo_busy_init');
SELECT entry FROM temp.demo_log;
.load /usr/lib/sqlite3/pcre
SELECT 'hello' REGEXP 'l+o', 'hello' REGEXP '^L';
SELECT 'x' REGEXP '[';
