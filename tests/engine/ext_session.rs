//! The session extension (`src/ext/session/`) driven through the
//! engine's own API in a debug build, so that its checks run
//! (`session_record_width`, `session_value_round_trip`,
//! `session_change_round_trip`, `changegroup_shape`,
//! `session_bucket_chains`, `session_apply_savepoint`): changes recorded
//! from INSERT, UPDATE and DELETE on a rowid table, a WITHOUT ROWID table
//! and a table without a key (not recorded), written as a changeset and a
//! patchset, inverted, concatenated, combined in a changegroup, applied to
//! a database that differs (every kind of conflict), and a diff against
//! an attached copy. Every byte must be SQLite's.
//!
//! The expected bytes and rows are SQLite 3.54.1's: the `sqlite3.c`
//! libsqlite3-sys bundles, compiled with `SQLITE_ENABLE_SESSION` and
//! `SQLITE_ENABLE_PREUPDATE_HOOK` (its build leaves the extension out, so
//! the reference cannot run here), running the same statements through
//! `sqlite3session_*`, `sqlite3changeset_*` and `sqlite3changegroup_*`.
//! `capi/tests/t_ext_session.c` compares the two libraries live.

use crate::sql_common::{ours_open, run_ours, Outcome, V};
use ringlite::ext::session::{self, ApplyHandler, ChangeGroup, Item, Session, CONFLICT_CONFLICT, OMIT, REPLACE};
use ringlite::value::Value;
use ringlite::Connection;
use std::sync::{Arc, Mutex};

const SCHEMA: &str = "CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
    CREATE TABLE w(x TEXT, y INTEGER, z BLOB, PRIMARY KEY(x, y)) WITHOUT ROWID;
    CREATE TABLE nokey(p, q);";
const ROWS: &str = "INSERT INTO t VALUES(1,'one',1.5),(2,'two',NULL),(3,NULL,-0.25);
    INSERT INTO w VALUES('k',1,x'00ff'),('k',2,NULL);
    INSERT INTO nokey VALUES(1,2);";
/// Recorded by the first session (every table).
const CHANGES_A: &str = "INSERT INTO t VALUES(4,'four',4e100);
    UPDATE t SET b='ONE' WHERE a=1;
    UPDATE t SET c=2.5, b=NULL WHERE a=2;
    DELETE FROM t WHERE a=3;
    INSERT INTO w VALUES('m',-9223372036854775808,x'');
    UPDATE w SET z=x'abcdef' WHERE x='k' AND y=1;
    DELETE FROM w WHERE x='k' AND y=2;
    INSERT INTO nokey VALUES(3,4);
    INSERT INTO t VALUES(5,'five',5); DELETE FROM t WHERE a=5;
    UPDATE t SET b='four!' WHERE a=4;";
/// Recorded by the second session (table `t` only).
const CHANGES_B: &str = "UPDATE t SET b='uno' WHERE a=1;
    DELETE FROM t WHERE a=4;
    INSERT INTO t VALUES(6,'six',6);";
/// How the database the changeset is applied to differs.
const TARGET: &str = "UPDATE t SET c=9 WHERE a=2;
    DELETE FROM w WHERE x='k' AND y=2;
    INSERT INTO t VALUES(4,'mine',0);";

const CHANGESET_A: &str = concat!(
    "54030100007400170001000000000000000103036f6e65000003034f4e45001700010000000000000002030374776f05",
    "000502400400000000000009000100000000000000030502bfd000000000000012000100000000000000040305666f75",
    "72210254d249ad2594c37d54030102007700120003016d0180000000000000000400090003016b010000000000000002",
    "05170003016b010000000000000001040200ff00000403abcdef",
);
const PATCHSET_A: &str = concat!(
    "50030100007400170001000000000000000103034f4e4500170001000000000000000205024004000000000000090001",
    "000000000000000312000100000000000000040305666f7572210254d249ad2594c37d50030102007700120003016d01",
    "80000000000000000400090003016b010000000000000002170003016b0100000000000000010403abcdef",
);
const INVERTED_A: &str = concat!(
    "54030100007400170001000000000000000103034f4e45000003036f6e65001700010000000000000002050240040000",
    "0000000000030374776f0512000100000000000000030502bfd000000000000009000100000000000000040305666f75",
    "72210254d249ad2594c37d54030102007700090003016d0180000000000000000400120003016b010000000000000002",
    "05170003016b0100000000000000010403abcdef0000040200ff",
);
const CHANGESET_B: &str = concat!(
    "54030100007400170001000000000000000103034f4e4500000303756e6f0009000100000000000000040305666f7572",
    "210254d249ad2594c37d12000100000000000000060303736978024018000000000000",
);
const CONCAT_AB: &str = concat!(
    "54030100007400170001000000000000000103036f6e6500000303756e6f001700010000000000000002030374776f05",
    "000502400400000000000009000100000000000000030502bfd000000000000012000100000000000000060303736978",
    "02401800000000000054030102007700120003016d0180000000000000000400090003016b0100000000000000020517",
    "0003016b010000000000000001040200ff00000403abcdef",
);
const GROUP_BA: &str = concat!(
    "540301000074001700010000000000000002030374776f05000502400400000000000009000100000000000000030502",
    "bfd00000000000001200010000000000000006030373697802401800000000000054030102007700120003016d018000",
    "0000000000000400090003016b01000000000000000205170003016b010000000000000001040200ff00000403abcdef",
);
const REBASE: &str = concat!(
    "5403010000740012000100000000000000020502400400000000000012010100000000000000040305666f7572210254",
    "d249ad2594c37d54030102007700090003016b01000000000000000205",
);
const DIFF: &str = concat!(
    "54030100007400170001000000000000000203017802400000000000000000030374776f024022000000000000120001",
    "00000000000000030502bfd000000000000009000100000000000000070305736576656e02401c000000000000",
);

fn exec(c: &mut Connection, sql: &str) {
    for o in run_ours(c, sql) {
        assert!(matches!(o, Outcome::Rows { .. }), "{sql}: {o:?}");
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The rows of `t` and `w` as the reference's `sqlite3_exec` printed them.
fn dump(c: &mut Connection, label: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ["SELECT a, b, quote(c) FROM t ORDER BY a", "SELECT x, y, quote(z) FROM w ORDER BY x, y"] {
        let [Outcome::Rows { rows, .. }] = &run_ours(c, q)[..] else { panic!("{q}") };
        for r in rows {
            let cells: Vec<String> = r
                .iter()
                .map(|v| match v {
                    V::Null => "NULL".to_string(),
                    V::Int(i) => i.to_string(),
                    V::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    other => format!("{other:?}"),
                })
                .collect();
            out.push(format!("{label} {}", cells.join(" ")));
        }
    }
    out
}

/// A session on `main` recording through the pre-update hook, as
/// `sqlite3session_create` sets one up; returns it and the listener.
fn record(c: &mut Connection, table: Option<&str>) -> (Arc<Mutex<Session>>, u64) {
    let s = Arc::new(Mutex::new(Session::new("main")));
    s.lock().unwrap().attach(table);
    let core = s.clone();
    let id = c.add_preupdate_listener(Arc::new(move |host, ev| {
        if let (Some(conn), Ok(mut s)) = (Connection::from_host(host), core.try_lock()) {
            s.on_change(conn, ev).expect("recorded");
        }
    }));
    (s, id)
}

/// The reference's conflict handler: REPLACE for a CONFLICT, else OMIT;
/// each call noted as it printed it.
#[derive(Default)]
struct Handler {
    calls: Vec<String>,
}

impl ApplyHandler for Handler {
    fn filter(&mut self, _conn: &mut Connection, _item: &Item) -> bool {
        true
    }
    fn conflict(&mut self, _conn: &mut Connection, kind: i32, item: Option<&Item>, _row: Option<&[Value]>, _fk: i64) -> i32 {
        let it = item.expect("a change");
        self.calls.push(format!("conflict {kind} {} {}", it.table.name, it.change.op));
        if kind == CONFLICT_CONFLICT {
            REPLACE
        } else {
            OMIT
        }
    }
}

#[test]
fn changesets_as_sqlite_writes_them() {
    let mut c = ours_open();
    exec(&mut c, SCHEMA);
    exec(&mut c, ROWS);
    let (a, id) = record(&mut c, None);
    exec(&mut c, CHANGES_A);
    c.remove_preupdate_listener(id);
    let changeset_a = a.lock().unwrap().changeset(&mut c, false).unwrap();
    let patchset_a = a.lock().unwrap().changeset(&mut c, true).unwrap();
    assert_eq!(hex(&changeset_a), CHANGESET_A);
    assert_eq!(hex(&patchset_a), PATCHSET_A);
    let inverted_a = session::invert(&changeset_a).unwrap();
    assert_eq!(hex(&inverted_a), INVERTED_A);

    let (b, id) = record(&mut c, Some("t"));
    exec(&mut c, CHANGES_B);
    c.remove_preupdate_listener(id);
    let changeset_b = b.lock().unwrap().changeset(&mut c, false).unwrap();
    assert_eq!(hex(&changeset_b), CHANGESET_B);
    assert_eq!(hex(&session::concat(&changeset_a, &changeset_b).unwrap()), CONCAT_AB);
    let mut g = ChangeGroup::default();
    g.add(&changeset_b).unwrap();
    g.add(&changeset_a).unwrap();
    assert_eq!(hex(&g.output()), GROUP_BA);

    // Applied to a copy that differs: a DATA conflict (UPDATE of a=2), a
    // CONFLICT (INSERT of a=4, replaced), a NOTFOUND (DELETE of k,2).
    let mut t = ours_open();
    exec(&mut t, SCHEMA);
    exec(&mut t, ROWS);
    exec(&mut t, TARGET);
    let mut h = Handler::default();
    let rebase = session::apply(&mut t, &changeset_a, 0, &mut h).unwrap();
    assert_eq!(h.calls, [CONFLICTS_A[0], CONFLICTS_A[1], CONFLICTS_A[2]]);
    assert_eq!(hex(&rebase), REBASE);
    assert_eq!(dump(&mut t, "applied"), APPLIED);
    let mut h = Handler::default();
    session::apply(&mut t, &inverted_a, 0, &mut h).unwrap();
    assert_eq!(h.calls, CONFLICTS_INVERTED);
    assert_eq!(dump(&mut t, "inverted"), INVERTED);
    assert!(t.autocommit(), "the application's savepoint is released");

    // The changes that turn an attached copy's table into main's.
    exec(
        &mut t,
        "ATTACH ':memory:' AS aux;
         CREATE TABLE aux.t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
         INSERT INTO aux.t VALUES(1,'one',1.5),(2,'x',2),(7,'seven',7);",
    );
    let mut d = Session::new("main");
    d.diff(&mut t, "aux", "t").unwrap();
    assert_eq!(hex(&d.changeset(&mut t, false).unwrap()), DIFF);
}
const CONFLICTS_A: [&str; 3] = ["conflict 1 t 23", "conflict 3 t 18", "conflict 2 w 9"];
const CONFLICTS_INVERTED: [&str; 1] = ["conflict 1 t 23"];
const APPLIED: [&str; 5] =
    ["applied 1 ONE 1.5", "applied 2 two 9.0", "applied 4 four! 4.0e+100", "applied k 1 X'ABCDEF'", "applied m -9223372036854775808 X''"];
const INVERTED: [&str; 5] = ["inverted 1 one 1.5", "inverted 2 two 9.0", "inverted 3 NULL -0.25", "inverted k 1 X'00FF'", "inverted k 2 NULL"];
