# ringlite's stand-in for SQLite's test/tester.tcl.
#
# SQLite's own TCL tests are meant for `testfixture`, a tclsh with many
# test-only commands compiled in. We run them under a plain `tclsh` with
# Debian's `libsqlite3-tcl` package instead, so this file provides the
# common test vocabulary (do_test, do_execsql_test, do_catchsql_test,
# execsql, catchsql, ifcapable, finish_test, forcedelete, reset_db, ...)
# on top of the `sqlite3` Tcl command. Test files that need testfixture-
# only commands fail on the system SQLite too; the ratchet only holds
# files that pass there (see tcl/run.sh).
#
# The driver (driver.tcl) makes every `source .../tester.tcl` in a test
# file load this file instead.

package require sqlite3

# The suite's expected values print doubles with 15 significant digits.
set ::tcl_precision 15

set ::rl_ntest 0
set ::rl_nfail 0
set ::rl_failed {}
if {![info exists ::testprefix]} { set ::testprefix "" }

# -- database handles -------------------------------------------------------

proc forcedelete {args} {
  foreach f $args {
    catch {file delete -force -- $f}
  }
}
proc delete_file {args} { eval forcedelete $args }
proc forcecopy {from to} {
  catch {file delete -force -- $to}
  file copy -- $from $to
}

proc rl_delete_db {name} {
  forcedelete $name $name-journal $name-wal $name-shm
}

# Close the default handle, delete test.db and reopen it.
proc reset_db {} {
  catch {db close}
  rl_delete_db test.db
  sqlite3 db test.db
}
proc db_delete_and_reopen {{file test.db}} {
  catch {db close}
  rl_delete_db $file
  sqlite3 db $file
}

proc execsql {sql {db db}} {
  uplevel [list $db eval $sql]
}
proc catchsql {sql {db db}} {
  set rc [catch {uplevel [list $db eval $sql]} msg]
  list $rc $msg
}
# Column names interleaved with values.
proc execsql2 {sql {db db}} {
  set out {}
  $db eval $sql row {
    foreach c $row(*) { lappend out $c $row($c) }
  }
  return $out
}

# -- capabilities -----------------------------------------------------------

# Every compile-time option is assumed present: a plain build of SQLite
# has the commonly tested ones, and ringlite means to match it.
proc rl_capable {expr} {
  regsub -all {[a-zA-Z_][a-zA-Z_0-9]*} $expr 1 e
  expr $e
}
proc capable {expr} { rl_capable $expr }
proc ifcapable {expr code {else ""} {elsecode ""}} {
  if {[rl_capable $expr]} {
    set r [catch {uplevel 1 $code} msg]
  } elseif {$elsecode ne ""} {
    set r [catch {uplevel 1 $elsecode} msg]
  } else {
    return
  }
  if {$r == 1} { return -code error $msg }
  return $msg
}
proc permutation {} { return "" }
proc breakpoint {} {}
proc sqlite3_memdebug_settitle {args} {}
proc optimization_control {args} {}

# -- comparing results ------------------------------------------------------

# Expected forms: /RE/ (regexp matches), *GLOB* (string match), either
# negated by a leading ~, else equality (as strings, or as Tcl lists so
# that line breaks and indentation in the expected text do not matter).
proc rl_matches {result expected} {
  set negate 0
  if {[regexp {^~/.*/$|^~\*.*\*$} $expected]} {
    set negate 1
    set expected [string range $expected 1 end]
  }
  if {[regexp {^/.*/$} $expected]} {
    set ok [regexp -- [string range $expected 1 end-1] $result]
  } elseif {[regexp {^\*.*\*$} $expected]} {
    set ok [string match $expected $result]
  } elseif {$result eq $expected} {
    set ok 1
  } elseif {[catch {list {*}$result} r] || [catch {list {*}$expected} e]} {
    set ok 0
  } else {
    set ok [expr {$r eq $e}]
  }
  expr {$negate ? !$ok : $ok}
}

proc rl_fail {name why} {
  incr ::rl_nfail
  lappend ::rl_failed $name
  puts "$name... FAILED: $why"
}

# Names starting with a digit get the file's $testprefix in front.
proc rl_testname {name} {
  if {$::testprefix ne "" && [string is digit [string index $name 0]]} {
    return "$::testprefix-$name"
  }
  return $name
}

proc do_test {name cmd expected} {
  set name [rl_testname $name]
  incr ::rl_ntest
  if {[catch {uplevel #0 "$cmd;\n"} result]} {
    rl_fail $name "error: $result"
  } elseif {![rl_matches $result $expected]} {
    rl_fail $name "expected \[$expected\] got \[$result\]"
  } else {
    puts "$name... Ok"
  }
}

proc rl_db_arg {argsName} {
  upvar $argsName a
  set db db
  if {[lindex $a 0] eq "-db"} {
    set db [lindex $a 1]
    set a [lrange $a 2 end]
  }
  return $db
}

proc do_execsql_test {args} {
  set db [rl_db_arg args]
  lassign $args name sql expected
  if {[llength $args] < 3} { set expected {} }
  uplevel 1 [list do_test $name [list execsql $sql $db] [list {*}$expected]]
}
proc do_catchsql_test {args} {
  set db [rl_db_arg args]
  lassign $args name sql expected
  uplevel 1 [list do_test $name [list catchsql $sql $db] $expected]
}
proc do_eqp_test {name sql expected} {
  # Query plans are an implementation detail ringlite need not share.
  puts "$name... skipped (query plan)"
}
proc integrity_check {name {db db}} {
  do_test $name [list execsql {PRAGMA integrity_check} $db] ok
}
proc do_timed_execsql_test {args} { uplevel 1 do_execsql_test $args }

proc do_test_auto {args} { uplevel 1 do_test $args }

# -- testfixture helpers that need no C code ------------------------------

# Hooks for builds with encryption, fault injection or corruption checks:
# none of those apply here.
proc do_not_use_codec {} {}
proc sqlite3_fts3_may_be_corrupt {args} {}
proc sqlite3_fts5_may_be_corrupt {args} {}
proc database_may_be_corrupt {} {}
proc database_never_corrupt {} {}
proc save_prng_state {} {}
proc restore_prng_state {} {}
proc nonzero_reserved_bytes {} { return 0 }
proc atomic_batch_write {args} { return 0 }
proc working_64bit_int {} { return 1 }
proc wal_is_capable {} { return 1 }
proc extra_schema_checks {args} {}
proc sqlite3_soft_heap_limit {args} { return 0 }
set ::AUTOVACUUM 0
# Compile-time limits as testfixture exports them: the defaults of the
# SQLite the suite comes from (Debian's 3.40).
foreach {name value} {
  SQLITE_MAX_VARIABLE_NUMBER 32766 SQLITE_DEFAULT_FILE_FORMAT 4
  SQLITE_MAX_LENGTH 1000000000 SQLITE_MAX_COLUMN 2000
  SQLITE_MAX_EXPR_DEPTH 1000 SQLITE_MAX_COMPOUND_SELECT 500
  SQLITE_MAX_ATTACHED 10 SQLITE_MAX_FUNCTION_ARG 127
  SQLITE_MAX_TRIGGER_DEPTH 1000
} { set ::$name $value }

# testfixture's `sqlite3_db_config DB SQLITE_DBCONFIG_X ?VALUE?` through
# tclsqlite's `DB config x ?VALUE?`; returns the option's new value.
proc sqlite3_db_config {db option args} {
  set name [string tolower [regsub {^SQLITE_DBCONFIG_} $option ""]]
  set result [$db config $name {*}$args]
  if {[dict exists $result $name]} { return [dict get $result $name] }
  return $result
}

# testfixture's expand_all_sql calls sqlite3_expanded_sql() on every
# prepared statement of DB (a crash check; its result is never used).
# Plain tclsh cannot reach the statements, so it checks nothing here.
proc expand_all_sql {db} {}

# Debian builds with SQLITE_ENABLE_FTS3_PARENTHESIS: the enhanced query
# syntax is always on (testfixture links this variable to a run-time
# switch; here it only tells the tests which syntax is in use).
set ::sqlite_fts3_enable_parentheses 1

# `do_select_tests PREFIX ?SWITCHES? {TN SQL RESULT ...}`: one test per
# triple. Switches: -count (RESULT is the number of rows), -errorformat
# FMT (RESULT is a list of format arguments; the statement must fail
# with that message), -query SQL / -tclquery SCRIPT (run SQL, then
# compare SCRIPT's result, or SQL's rows, with RESULT), -repair SCRIPT
# (run before the tests and after each).
proc do_select_tests {prefix args} {
  set tests [lindex $args end]
  set errfmt ""
  set count 0
  set check ""
  set repair ""
  set opts [lrange $args 0 end-1]
  for {set i 0} {$i < [llength $opts]} {incr i} {
    switch -glob -- [lindex $opts $i] {
      -q* { set check [list execsql [lindex $opts [incr i]]] }
      -t* { set check [lindex $opts [incr i]] }
      -e* { set errfmt [lindex $opts [incr i]] }
      -r* { set repair [lindex $opts [incr i]] }
      -c* { set count 1 }
      default { error "do_select_tests: unknown switch [lindex $opts $i]" }
    }
  }
  if {[llength $tests] == 0 || [llength $tests] % 3} {
    error "do_select_tests: [llength $tests] elements, not triples"
  }
  uplevel 1 $repair
  foreach {tn sql res} $tests {
    set name $prefix.$tn
    if {$check ne ""} {
      uplevel 1 [list execsql $sql]
      uplevel 1 [list do_test $name $check [list {*}$res]]
    } elseif {$count} {
      set n 0
      db eval $sql { incr n }
      uplevel 1 [list do_test $name [list set {} $n] $res]
    } elseif {$errfmt eq ""} {
      uplevel 1 [list do_execsql_test $name $sql [list {*}$res]]
    } else {
      set msg [string trim [format $errfmt {*}$res]]
      uplevel 1 [list do_catchsql_test $name $sql [list 1 $msg]]
    }
    uplevel 1 $repair
  }
}

# A do_test whose result holds reals; compared as do_test does.
proc do_realnum_test {name cmd expected} {
  uplevel 1 [list do_test $name $cmd $expected]
}
proc fix_testname {varname} {
  upvar $varname name
  set name [rl_testname $name]
}

proc drop_all_tables {{db db}} {
  # As SQLite's tester: foreign keys off while the tables go (a parent
  # dropped before its children would otherwise fail).
  set fk [$db one "PRAGMA foreign_keys"]
  $db eval "PRAGMA foreign_keys = OFF"
  foreach {type name} [$db eval {
    SELECT type, name FROM sqlite_schema
    WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'
  }] {
    $db eval "DROP [string toupper $type] IF EXISTS \"$name\""
  }
  $db eval "PRAGMA foreign_keys = $fk"
}
proc drop_all_indexes {{db db}} {
  foreach name [$db eval {
    SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL
  }] {
    $db eval "DROP INDEX IF EXISTS \"$name\""
  }
}

# Saving test.db (and its journal/WAL) aside and bringing it back.
proc rl_copy_db {from to} {
  foreach suffix {"" -journal -wal -shm} {
    forcedelete $to$suffix
    if {[file exists $from$suffix]} { file copy -force -- $from$suffix $to$suffix }
  }
}
proc db_save {} { rl_copy_db test.db sv_test.db }
proc db_restore {} { rl_copy_db sv_test.db test.db }
proc db_save_and_close {} { db_save; catch {db close} }
proc db_restore_and_reopen {{dbfile test.db}} {
  catch {db close}
  db_restore
  sqlite3 db $dbfile
}
proc db_delete_and_reopen_all {} { db_delete_and_reopen }
proc faultsim_save {} { rl_copy_db test.db sv_fault.db }
proc faultsim_save_and_close {} { faultsim_save; catch {db close} }
proc faultsim_restore {} { rl_copy_db sv_fault.db test.db }
proc faultsim_restore_and_reopen {{dbfile test.db}} {
  catch {db close}
  faultsim_restore
  sqlite3 db $dbfile
}
proc faultsim_delete_and_reopen {{file test.db}} {
  catch {db close}
  rl_delete_db $file
  sqlite3 db $file
}
proc faultsim_integrity_check {{db db}} {
  set ic [$db eval {PRAGMA integrity_check}]
  if {$ic ne "ok"} { error "Integrity check: $ic" }
}

# Extended result code names, for verify_ex_errcode (`db errorcode` gives
# the number).
array set ::rl_codes {
  1 SQLITE_ERROR 19 SQLITE_CONSTRAINT 275 SQLITE_CONSTRAINT_CHECK
  531 SQLITE_CONSTRAINT_COMMITHOOK 787 SQLITE_CONSTRAINT_FOREIGNKEY
  1043 SQLITE_CONSTRAINT_FUNCTION 1299 SQLITE_CONSTRAINT_NOTNULL
  1555 SQLITE_CONSTRAINT_PRIMARYKEY 1811 SQLITE_CONSTRAINT_TRIGGER
  2067 SQLITE_CONSTRAINT_UNIQUE 2323 SQLITE_CONSTRAINT_VTAB
  2579 SQLITE_CONSTRAINT_ROWID 3091 SQLITE_CONSTRAINT_DATATYPE
  20 SQLITE_MISMATCH 8 SQLITE_READONLY 5 SQLITE_BUSY 6 SQLITE_LOCKED
  11 SQLITE_CORRUPT 13 SQLITE_FULL 21 SQLITE_MISUSE 25 SQLITE_RANGE
}
array set ::rl_primary {
  0 SQLITE_OK 1 SQLITE_ERROR 2 SQLITE_INTERNAL 3 SQLITE_PERM 4 SQLITE_ABORT
  5 SQLITE_BUSY 6 SQLITE_LOCKED 7 SQLITE_NOMEM 8 SQLITE_READONLY
  9 SQLITE_INTERRUPT 10 SQLITE_IOERR 11 SQLITE_CORRUPT 12 SQLITE_NOTFOUND
  13 SQLITE_FULL 14 SQLITE_CANTOPEN 15 SQLITE_PROTOCOL 16 SQLITE_EMPTY
  17 SQLITE_SCHEMA 18 SQLITE_TOOBIG 19 SQLITE_CONSTRAINT 20 SQLITE_MISMATCH
  21 SQLITE_MISUSE 22 SQLITE_NOLFS 23 SQLITE_AUTH 24 SQLITE_FORMAT
  25 SQLITE_RANGE 26 SQLITE_NOTADB
}
proc sqlite3_errcode {db} {
  set code [expr {[$db errorcode] & 0xff}]
  expr {[info exists ::rl_primary($code)] ? $::rl_primary($code) : $code}
}
proc sqlite3_extended_errcode {db} {
  set code [$db errorcode]
  if {[info exists ::rl_codes($code)]} { return $::rl_codes($code) }
  sqlite3_errcode $db
}
proc verify_ex_errcode {name expected {db db}} {
  set code [$db errorcode]
  set r [expr {[info exists ::rl_codes($code)] ? $::rl_codes($code) : $code}]
  do_test $name [list set {} $r] $expected
}

# -- the end ------------------------------------------------------------------

proc finish_test {} {
  catch {db close}
  catch {db2 close}
  catch {db3 close}
  puts "$::rl_nfail errors out of $::rl_ntest tests"
  if {$::rl_nfail > 0} {
    puts "Failures: $::rl_failed"
  }
  exit [expr {$::rl_nfail > 0}]
}

# Every test file starts on an empty test.db with the handle `db` open.
reset_db
