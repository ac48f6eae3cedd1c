# Sourced by run.sh (uses its ok/bad/skp, $root, $work).
#
# SQLite's own benchmark program, test/speedtest1.c from the fetched SQLite
# source (make compat-tcl-fetch), built exactly as an application would be:
# `make install PREFIX=...`, then compiled against the installed sqlite3.h
# and linked with `pkg-config --libs sqlite3`. Each test set must run to
# its TOTAL line without an SQL error. The main set runs at its default
# size (100: about 15 s on ringlite against 3 s on SQLite 3.54.1 on a quiet
# machine, see the summary of bench/RESULTS.md); the copy without VACUUM and the other sets stay small
# (cte: --size 1) so the whole run takes about a minute.
#
# An engine gap that stops a set ("... is not supported by ringlite") is
# reported as SKIP. The main set (VACUUM at test 200, WITHOUT ROWID at test
# 500) now runs to its end; it is also run with its VACUUM line removed.
speedtest_src=$(ls "$root"/tcl/sqlite-src/sqlite3-*/test/speedtest1.c 2>/dev/null | head -1)
if [ -z "$speedtest_src" ]; then
  skp speedtest1 "SQLite source not fetched: make compat-tcl-fetch"
elif ! command -v pkg-config >/dev/null; then
  skp speedtest1 "pkg-config missing"
elif ! make -s -C "$root" install PREFIX="$work/prefix" > "$work/install.log" 2>&1; then
  tail -5 "$work/install.log"; bad "speedtest1 (make install)"
else
  # The installed .pc names the prefix it was built with: let pkg-config
  # derive it from where the file is.
  export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
  flags=$(pkg-config --define-prefix --cflags --libs sqlite3)
  sed 's|^  speedtest1_exec("VACUUM");$|  /* VACUUM left out */|' "$speedtest_src" > "$work/speedtest1_novacuum.c"
  # ldd's output goes through a file: `ldd | grep -q` under pipefail fails
  # whenever grep exits before ldd has written its last line (SIGPIPE).
  if cc -O1 -o "$work/speedtest1" "$speedtest_src" $flags -Wl,-rpath,"$work/prefix/lib" 2> "$work/speedtest1_cc.log" \
     && cc -O1 -o "$work/speedtest1_novacuum" "$work/speedtest1_novacuum.c" $flags -Wl,-rpath,"$work/prefix/lib" 2>> "$work/speedtest1_cc.log" \
     && LD_LIBRARY_PATH="" ldd "$work/speedtest1" > "$work/speedtest1_ldd.txt" 2>&1 \
     && grep -q "libsqlite3.so.0 => $work/prefix/lib/" "$work/speedtest1_ldd.txt"; then
    ok "speedtest1 (compiled and linked through pkg-config against the installed library)"
    speedtest_run() { # name program args...
      local name=$1 prog=$2; shift 2
      rm -f "$work/st.db"*
      (cd "$work" && timeout 300 "$prog" "$@" st.db > "$work/$name.out" 2>&1)
      if grep -q 'TOTAL\.\.\.' "$work/$name.out" && ! grep -q 'SQL error' "$work/$name.out"; then
        ok "$name ($(grep -c '^ *[0-9]* - ' "$work/$name.out") tests, $(grep TOTAL "$work/$name.out" | awk '{print $NF}'))"
      elif stop=$(grep -m1 'is not supported by ringlite' "$work/$name.out"); then
        skp "$name" "known engine gap, stops at test$(echo "$stop" | sed 's/\.\.\.*/:/; s/  */ /g')"
      else
        tail -5 "$work/$name.out"; bad "$name"
      fi
    }
    speedtest_run speedtest1-main "$work/speedtest1"
    speedtest_run speedtest1-main-novacuum "$work/speedtest1_novacuum" --size 3
    speedtest_run speedtest1-cte "$work/speedtest1" --testset cte --size 1
    speedtest_run speedtest1-orm "$work/speedtest1" --testset orm --size 5
    speedtest_run speedtest1-fp "$work/speedtest1" --testset fp --size 5
  else
    echo "flags: $flags"; tail -20 "$work/speedtest1_cc.log"; cat "$work/speedtest1_ldd.txt" 2>/dev/null
    bad "speedtest1 (compile/link)"
  fi
fi
