//! A prepared DROP ... IF EXISTS / CREATE ... IF NOT EXISTS that had
//! nothing to do must still notice a later schema change and act then
//! (Tcl's statement cache reuses it; TCL distinct, rowvalue3, rowvalue9).
use crate::sql_common;
use ringlite::StepResult;
use sql_common::{ours_open, run_ours, Outcome};

fn run_to_end(conn: &mut ringlite::Connection, st: &mut ringlite::Statement) {
    loop {
        match st.step(conn).expect("step") {
            StepResult::Done => break,
            StepResult::Row | StepResult::Io => {}
        }
    }
    st.reset(conn);
}

#[test]
fn if_exists_statements_follow_schema_changes() {
    let mut conn = ours_open();
    run_ours(&mut conn, "CREATE TABLE t1(a, b)");
    let (drop_index, _) = conn.prepare(b"DROP INDEX IF EXISTS i1").expect("prepare");
    let mut drop_index = drop_index.expect("statement");
    run_to_end(&mut conn, &mut drop_index);
    run_ours(&mut conn, "CREATE INDEX i1 ON t1(a, b)");
    run_to_end(&mut conn, &mut drop_index);
    assert_eq!(run_ours(&mut conn, "CREATE INDEX i1 ON t1(b, a)"), vec![Outcome::Rows { names: vec![], rows: vec![] }]);

    let (drop_table, _) = conn.prepare(b"DROP TABLE IF EXISTS t2").expect("prepare");
    let mut drop_table = drop_table.expect("statement");
    run_to_end(&mut conn, &mut drop_table);
    run_ours(&mut conn, "CREATE TABLE t2(x)");
    run_to_end(&mut conn, &mut drop_table);
    let names = run_ours(&mut conn, "SELECT name FROM sqlite_master WHERE name = 't2'");
    assert_eq!(names, vec![Outcome::Rows { names: vec!["name".into()], rows: vec![] }]);

    let (drop_trigger, _) = conn.prepare(b"DROP TRIGGER IF EXISTS r1").expect("prepare");
    let mut drop_trigger = drop_trigger.expect("statement");
    run_to_end(&mut conn, &mut drop_trigger);
    run_ours(&mut conn, "CREATE TRIGGER r1 AFTER INSERT ON t1 BEGIN SELECT 1; END");
    run_to_end(&mut conn, &mut drop_trigger);
    let names = run_ours(&mut conn, "SELECT name FROM sqlite_master WHERE type = 'trigger'");
    assert_eq!(names, vec![Outcome::Rows { names: vec!["name".into()], rows: vec![] }]);
}
