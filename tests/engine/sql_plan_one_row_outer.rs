//! ORDER BY / GROUP BY / DISTINCT served by an inner loop nested under
//! loops that find one row each (a rowid or a whole UNIQUE key pinned by
//! `=`): the outer columns are constant, so the inner loop's index order
//! is the query's and SQLite uses no temporary b-tree. Plans and rows
//! (in order) must be SQLite's, also where the outer loop finds several
//! rows and a sort is needed.
use crate::sql_common::check_plans;

const SCHEMA: &str = "CREATE TABLE c(id INTEGER PRIMARY KEY, name TEXT, code TEXT UNIQUE);
CREATE TABLE o(id INTEGER PRIMARY KEY, cid INT, total REAL, day INT);
CREATE INDEX o_day ON o(day);
CREATE INDEX o_cid_day ON o(cid, day);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
INSERT INTO c SELECT i, 'n' || (i % 4), 'k' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 90)
INSERT INTO o SELECT i, (i * 7) % 13, (i * 37) % 101 / 4.0, (i * 11) % 17 FROM n;";

#[test]
fn inner_loop_under_one_row_loops_serves_the_order() {
    check_plans(
        SCHEMA,
        &[
            "SELECT o.id, o.day FROM c, o WHERE c.id = 1 AND o.cid = c.id ORDER BY o.day",
            "SELECT o.id, o.day FROM c JOIN o ON o.cid = c.id WHERE c.code = 'k3' ORDER BY o.day",
            "SELECT o.id, o.day FROM c JOIN o ON o.cid = c.id WHERE c.code = 'k3' ORDER BY o.day DESC",
            "SELECT c.name, o.id FROM c, o WHERE c.id = 2 ORDER BY o.id",
            "SELECT c.name, o.id FROM c, o WHERE c.id = 2 ORDER BY o.id DESC",
            "SELECT c.name, o.id FROM c, o WHERE c.id = 2 ORDER BY o.day, o.id",
            "SELECT c.name, o.id, o.day FROM c, o WHERE c.id = 2 AND o.day > 5 ORDER BY o.day",
            "SELECT o.day, count(*) FROM c, o WHERE c.id = 1 AND o.cid = c.id GROUP BY o.day",
            "SELECT DISTINCT o.day FROM c, o WHERE c.id = 1 AND o.cid = c.id",
            "SELECT o.id, o.day FROM c LEFT JOIN o ON o.cid = c.id WHERE c.id = 4 ORDER BY o.day",
            "SELECT o.id, o.day FROM c LEFT JOIN o ON o.cid = c.id WHERE c.id = 13 ORDER BY o.day",
            "SELECT max(o.day) FROM c, o WHERE c.id = 1 AND o.cid = c.id",
            "SELECT o.id, o.day FROM c, o WHERE c.id = 99 AND o.cid = c.id ORDER BY o.day",
        ],
    );
}

#[test]
fn several_outer_rows_still_sort() {
    check_plans(
        SCHEMA,
        &[
            "SELECT o.id FROM o, c WHERE c.id = o.cid AND c.id = 3 ORDER BY o.total DESC, o.id",
            "SELECT o.id, o.day FROM c, o WHERE c.name = 'n1' AND o.cid = c.id ORDER BY o.day, o.id",
            "SELECT o.id, o.day FROM c, o WHERE c.id IN (1, 2) AND o.cid = c.id ORDER BY o.day, o.id",
            // (A range on c.id bounds o.cid too, through `o.cid = c.id`.)
            "SELECT o.id, o.day FROM c, o WHERE c.id > 10 AND o.cid = c.id ORDER BY o.day, o.id",
            "SELECT o.id, o.day FROM c JOIN o ON o.cid = c.id WHERE c.id BETWEEN 2 AND 4",
            "SELECT * FROM o JOIN c ON c.id = o.cid WHERE o.cid = 5",
        ],
    );
}
