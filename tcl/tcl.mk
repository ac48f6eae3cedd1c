# SQLite's own TCL tests, run with tclsh + Debian's libsqlite3-tcl against
# the system libsqlite3 (checks the harness) and against ringlite's
# libsqlite3.so.0 (via LD_LIBRARY_PATH). Included from compat-tests/compat.mk.
#
#   make compat-tcl-fetch    Debian's sqlite3 source package into
#                            tcl/sqlite-src/ (git-ignored; needs root for apt)
#   make compat-tcl          both runs, each checked against its ratchet
#   make compat-tcl-ratchet  grow the ratchets to what passes now

TCL_DIR := tcl
TCL_SRC := $(TCL_DIR)/sqlite-src
TCL_JOBS ?= 2
TCL_TIMEOUT ?= 60
RINGLITE_LIBDIR ?= build/lib
TCL_RUN := $(TCL_DIR)/run.sh --jobs $(TCL_JOBS) --timeout $(TCL_TIMEOUT)

.PHONY: compat-tcl-fetch compat-tcl compat-tcl-system compat-tcl-ringlite compat-tcl-ratchet

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

compat-tcl-fetch: $(TCL_SRC)/test

compat-tcl-system: $(TCL_SRC)/test
	$(TCL_RUN) --lib system --ratchet $(TCL_DIR)/ratchet/system.txt

# Only the files the system SQLite passes are meaningful for ringlite.
compat-tcl-ringlite: $(TCL_SRC)/test
	RINGLITE_LIBDIR=$(RINGLITE_LIBDIR) $(TCL_RUN) --lib ringlite --list $(TCL_DIR)/ratchet/system.txt --ratchet $(TCL_DIR)/ratchet/ringlite.txt

compat-tcl: compat-tcl-system compat-tcl-ringlite

compat-tcl-ratchet: $(TCL_SRC)/test
	$(TCL_RUN) --lib system --ratchet $(TCL_DIR)/ratchet/system.txt --update-ratchet
	RINGLITE_LIBDIR=$(RINGLITE_LIBDIR) $(TCL_RUN) --lib ringlite --list $(TCL_DIR)/ratchet/system.txt --ratchet $(TCL_DIR)/ratchet/ringlite.txt --update-ratchet
