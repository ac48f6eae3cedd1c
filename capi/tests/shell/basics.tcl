# Tcl's sqlite3 package (libtclsqlite3, linked to libsqlite3.so.0): the
# commands Tcl programs use most, printed so runs can be compared.
package require sqlite3
sqlite3 db :memory:
db eval {CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL)}
db transaction {
  foreach {a b c} {1 one 1.5 2 two {} 3 three -2.25} {
    db eval {INSERT INTO t VALUES($a, $b, nullif($c, ''))}
  }
}
puts [db eval {SELECT * FROM t ORDER BY a}]
db eval {SELECT a, b FROM t ORDER BY a DESC} row { puts "$row(a)=$row(b) [lsort [array names row]]" }
puts [db onecolumn {SELECT count(*) FROM t}]
puts [db exists {SELECT 1 FROM t WHERE b = 'two'}]
puts [db changes]
puts [db total_changes]
puts [db last_insert_rowid]
db function double {apply {x {expr {$x * 2}}}}
puts [db eval {SELECT double(a) FROM t ORDER BY a}]
db collate backwards {apply {{x y} {string compare [string reverse $x] [string reverse $y]}}}
puts [db eval {SELECT b FROM t ORDER BY b COLLATE backwards}]
puts [catch {db eval {SELECT * FROM nosuch}} msg]
puts $msg
puts [db errorcode]
puts [catch {db eval {INSERT INTO t VALUES(1, 'dup', 0)}} msg]
puts $msg
set n 0
db progress 5 {incr n; expr 0}
db eval {SELECT count(*) FROM t t1, t t2}
db progress 0 {}
puts [expr {$n > 0}]
db update_hook {apply {{op db tbl rowid} {puts "hook $op $db $tbl $rowid"}}}
db eval {UPDATE t SET b = upper(b) WHERE a = 2; DELETE FROM t WHERE a = 3}
db update_hook {}
puts [db eval {SELECT quote(b), typeof(c) FROM t ORDER BY a}]
set blob [binary format H* 00ff7f]
db eval {CREATE TABLE b(x BLOB)}
db eval {INSERT INTO b VALUES(@blob)}
binary scan [db onecolumn {SELECT x FROM b}] H* hex
puts $hex
puts [db eval {SELECT name FROM sqlite_master ORDER BY name}]
db close
puts closed
