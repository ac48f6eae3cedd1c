# Run one SQLite TCL test file under plain tclsh with ringlite's tester.
#
#   tclsh driver.tcl <tester.tcl> <file.test>
#
# Runs in a scratch directory (the caller's cwd), with $argv0 set to the
# test file so that `set testdir [file dirname $argv0]` finds its helpers,
# and with `source .../tester.tcl` redirected to ours.

lassign $argv ::rl_tester ::rl_testfile
set argv0 [file normalize $::rl_testfile]
set argv {}
set ::rl_tester [file normalize $::rl_tester]

rename source ::rl_real_source
proc source {args} {
  if {[file tail [lindex $args end]] eq "tester.tcl"} {
    return [uplevel 1 [list ::rl_real_source $::rl_tester]]
  }
  uplevel 1 [list ::rl_real_source {*}$args]
}

if {[catch {uplevel #0 [list source $argv0]} msg]} {
  puts "ABORTED: $msg"
  exit 2
}
# A file that never called finish_test did not finish.
puts "ABORTED: no finish_test"
exit 2
