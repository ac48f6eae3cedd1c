# SQLite's own TCL tests, run with tclsh + Debian's libsqlite3-tcl against
# the system libsqlite3 (checks the harness) and against ringlite's
# libsqlite3.so.0 (via LD_LIBRARY_PATH). Included from compat-tests/compat.mk.
#
#   make compat-tcl-fetch    Debian's sqlite3 source package into
#                            tcl/sqlite-src/ (git-ignored; needs root for apt)
#   make compat-tcl          both runs, each checked against its ratchet
#   make compat-tcl-ratchet  grow the ratchets to what passes now
#   make compat-tcl-results  the ringlite results file, rerun only when
#                            older than the library, the tester or the list
#
# Every run saves one line per file (status, counts, first failure) in
# target/tcl-results-<lib>.tsv, which `make compat-status` reads.

TCL_DIR := tcl
TCL_SRC := $(TCL_DIR)/sqlite-src
TCL_JOBS ?= 2
# Per file. No file hangs any more; the slowest, fuzz.test (35,035
# tests), takes 138 s on the system SQLite and 144-149 s on ringlite on
# this project's 2-core machines: the limit leaves it room.
TCL_TIMEOUT ?= 300
RINGLITE_LIBDIR ?= build/lib
TCL_RUN := $(TCL_DIR)/run.sh --jobs $(TCL_JOBS) --timeout $(TCL_TIMEOUT)
TCL_RESULTS_SYSTEM := target/tcl-results-system.tsv
TCL_RESULTS_RINGLITE := target/tcl-results-ringlite.tsv

.PHONY: compat-tcl-fetch compat-tcl compat-tcl-system compat-tcl-ringlite compat-tcl-ratchet compat-tcl-results

$(TCL_SRC)/test:
	@command -v tclsh >/dev/null || { apt-get update -qq && apt-get install -y -qq tcl; }
	@dpkg -s libsqlite3-tcl >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq libsqlite3-tcl; }
	@grep -rqs '^Types: deb-src' /etc/apt/sources.list.d/ || { \
	  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
	    > /etc/apt/sources.list.d/debian-src.sources && apt-get update; }
	mkdir -p $(TCL_SRC)
	cd $(TCL_SRC) && apt-get source --download-only sqlite3
	cd $(TCL_SRC) && tar -xJf $$(ls sqlite3_*.orig.tar.xz | grep -v www) --wildcards '*/test/*'
	cd $(TCL_SRC) && ln -sfn $$(ls -d sqlite3-*/ | head -1)test test

# The extensions' test files (ext/fts5/test, ext/rtree, ext/session; the
# FTS3/FTS4 ones are in test/), from the same source package.
$(TCL_SRC)/ext: | $(TCL_SRC)/test
	cd $(TCL_SRC) && tar -xJf $$(ls sqlite3_*.orig.tar.xz | grep -v www) --wildcards '*/ext/fts5/*' '*/ext/rtree/*' '*/ext/session/*' '*/ext/fts3/*'
	cd $(TCL_SRC) && ln -sfn $$(ls -d sqlite3-*/ | head -1)ext ext

compat-tcl-fetch: $(TCL_SRC)/test $(TCL_SRC)/ext

compat-tcl-system: $(TCL_SRC)/test $(TCL_SRC)/ext
	$(TCL_RUN) --lib system --ratchet $(TCL_DIR)/ratchet/system.txt --results $(TCL_RESULTS_SYSTEM)

# Only the files the system SQLite passes are meaningful for ringlite.
compat-tcl-ringlite: $(TCL_SRC)/test $(TCL_SRC)/ext
	RINGLITE_LIBDIR=$(RINGLITE_LIBDIR) $(TCL_RUN) --lib ringlite --list $(TCL_DIR)/ratchet/system.txt --ratchet $(TCL_DIR)/ratchet/ringlite.txt --results $(TCL_RESULTS_RINGLITE)

compat-tcl: compat-tcl-system compat-tcl-ringlite

compat-tcl-ratchet: $(TCL_SRC)/test $(TCL_SRC)/ext
	$(TCL_RUN) --lib system --ratchet $(TCL_DIR)/ratchet/system.txt --update-ratchet --results $(TCL_RESULTS_SYSTEM)
	RINGLITE_LIBDIR=$(RINGLITE_LIBDIR) $(TCL_RUN) --lib ringlite --list $(TCL_DIR)/ratchet/system.txt --ratchet $(TCL_DIR)/ratchet/ringlite.txt --update-ratchet --results $(TCL_RESULTS_RINGLITE)

# Fresh ringlite results for STATUS.md: rerun only when stale (a failing
# run still leaves its results).
compat-tcl-results: $(TCL_RESULTS_RINGLITE)

$(TCL_RESULTS_RINGLITE): $(wildcard $(RINGLITE_LIBDIR)/libsqlite3.so.0) $(TCL_DIR)/ratchet/system.txt $(TCL_DIR)/tester.tcl $(TCL_DIR)/run.sh | $(TCL_SRC)/test $(TCL_SRC)/ext
	RINGLITE_LIBDIR=$(RINGLITE_LIBDIR) $(TCL_RUN) --lib ringlite --list $(TCL_DIR)/ratchet/system.txt --results $@ > /dev/null || true
