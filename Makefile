# ringlite: build, install, demo and test.
#   make            release library, header, sqlite3.pc (in build/)
#   make demo       run unchanged system programs on the fresh library
#   make test       everything CI runs (.ci/run calls exactly this)
#   make install    PREFIX=/usr/local DESTDIR=
#   make header     regenerate include/sqlite3.h with cbindgen
#
#   make install-system / uninstall-system   switch this machine's programs
#                   to ringlite in /usr/local, and back (see README)
#
# SQLITE_VERSION_FROM=system makes the library report the version and source
# id of /usr/include/sqlite3.h (Debian's sqlite3 shell checks the source id).
# The reported version is chosen when the shared library is linked (a C
# object from capi/shim/version.c), so changing it never rebuilds Rust.
SHELL := /bin/bash
.DEFAULT_GOAL := all
CARGO ?= cargo
CC ?= cc
PREFIX ?= /usr/local
DESTDIR ?=
# One version number: the crates' (Cargo.toml), in the release tarball's
# name and in the shared library's file name, which keeps the libtool
# numbers of Debian's libsqlite3 it stands in for.
RINGLITE_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
SO_FILE := libsqlite3.so.0.8.6-ringlite-$(RINGLITE_VERSION)
BUILD := build
LIBDIR := $(BUILD)/lib
SYS_HEADER := /usr/include/sqlite3.h
SYS_SQLITE_VERSION = $(shell sed -n 's/^\#define SQLITE_VERSION  *"\(.*\)"/\1/p' $(SYS_HEADER))
SYS_SQLITE_SOURCE_ID = $(shell sed -n 's/^\#define SQLITE_SOURCE_ID  *"\(.*\)"/\1/p' $(SYS_HEADER))
SQLITE_VERSION_FROM ?= reference

# RINGLITE_SQLITE_VERSION and RINGLITE_SQLITE_SOURCE_ID may also be given
# directly; empty means SQLite 3.54.1's.
ifeq ($(SQLITE_VERSION_FROM),system)
RINGLITE_SQLITE_VERSION := $(SYS_SQLITE_VERSION)
RINGLITE_SQLITE_SOURCE_ID := $(SYS_SQLITE_SOURCE_ID)
endif

# Links the shared library $(1) from the crate's static library, with the
# reported version $(2) and source id $(3) when given. Linked from the
# static library so that the C shim's variadic functions are exported too,
# and only sqlite3* symbols are.
# Relative relocations packed (DT_RELR) where the linker and the C library
# support them (GNU ld 2.38+, glibc 2.36+): 170 KB fewer relocation entries
# in a library whose tables and vtables are full of pointers. The library
# then needs a glibc with DT_RELR, which the machine building it has.
RELR_FLAG := $(shell printf 'int x; int *p = &x;\n' | $(CC) -shared -fPIC -x c - -o /dev/null -Wl,-z,pack-relative-relocs 2>/dev/null && echo -Wl,-z,pack-relative-relocs)

# Identical code folding (lld's --icf=all) where the Rust toolchain ships
# lld (rustup's gcc-ld wrapper): byte-identical functions (generic
# instances, drop glue, closures) kept once, ~46 KB. The exported API
# functions (every name the header declares) are kept unique, so C callers still see
# distinct addresses where the compiler had not already merged them; Rust
# promises no distinct addresses for its own functions. Without that lld
# the system linker is used as before.
LLD_DIR := $(shell d="$$(rustc --print sysroot 2>/dev/null)/lib/rustlib/$$(rustc -vV 2>/dev/null | sed -n 's/^host: //p')/bin/gcc-ld"; \
  [ -x "$$d/ld.lld" ] && printf 'int x;\n' | $(CC) -B"$$d" -fuse-ld=lld -shared -fPIC -x c - -o /dev/null 2>/dev/null && echo "$$d")
ifneq ($(LLD_DIR),)
ICF_FLAGS = -B$(LLD_DIR) -fuse-ld=lld -Wl,--icf=all \
  $$(grep -oE '\bsqlite3[a-z]*_[a-z0-9_]+ *\([^*]' include/sqlite3.h | sed 's/ *(.*//' | sort -u | sed 's/^/-Wl,--keep-unique=/')
endif

define link_shared
	mkdir -p $(dir $(1)) $(BUILD)/obj
	$(if $(2),$(CC) -c -fPIC -o $(BUILD)/obj/version-$(notdir $(1)).o \
	  -DRINGLITE_SQLITE_VERSION='"$(2)"' -DRINGLITE_SQLITE_SOURCE_ID='"$(3)"' capi/shim/version.c)
	$(CC) -shared -o $(1) $(if $(2),$(BUILD)/obj/version-$(notdir $(1)).o) \
	  -Wl,--whole-archive target/release/libsqlite3.a -Wl,--no-whole-archive \
	  -Wl,-soname,libsqlite3.so.0 -Wl,--version-script=capi/sqlite3.map \
	  -Wl,--gc-sections $(RELR_FLAG) $(ICF_FLAGS) -lpthread -ldl -lm -lgcc_s -lc
endef

# Reference SQLite 3.54.1 for the differential C tests, from the source
# bundled in libsqlite3-sys (fetched by cargo for the engine's tests).
REF_SRC = $(firstword $(wildcard $(HOME)/.cargo/registry/src/*/libsqlite3-sys-0.39.1/sqlite3/sqlite3.c))
# Compiled in as Debian compiles its libsqlite3 (PRAGMA compile_options of
# the system library), so the built-in extensions are compared too, and
# Tcl's sqlite3 package (which calls sqlite3_unlock_notify) loads it.
REF_FEATURES = -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS3_TOKENIZER \
  -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE -DSQLITE_ENABLE_DBSTAT_VTAB \
  -DSQLITE_ENABLE_STMTVTAB -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_MATH_FUNCTIONS -DSQLITE_ENABLE_UNLOCK_NOTIFY
REF_OBJ := $(BUILD)/ref/sqlite3.o
$(REF_OBJ):
	cargo fetch -q || true
	mkdir -p $(BUILD)/ref
	src='$(REF_SRC)'; [ -n "$$src" ] || src=$$(ls $(HOME)/.cargo/registry/src/*/libsqlite3-sys-0.39.1/sqlite3/sqlite3.c 2>/dev/null | head -1); \
	if [ -n "$$src" ]; then $(CC) -O1 -fPIC -w -c -DSQLITE_THREADSAFE=1 -DSQLITE_ENABLE_COLUMN_METADATA -DSQLITE_ENABLE_PREUPDATE_HOOK $(REF_FEATURES) -o $@ $$src \
	  && $(CC) -shared -o $(BUILD)/ref/libsqlite3.so.0 -Wl,-soname,libsqlite3.so.0 $@ -lpthread -ldl -lm; \
	else echo "libsqlite3-sys source not found: C tests will use the system library"; fi

# Test suites: each helper adds its own target here.
# The differential sqllogictest harness, its fuzzer and SQLite's TCL tests.
include compat-tests/compat.mk

TEST_SUITES := test-lint test-cargo test-capi compat-test test-tcl test-shell test-readme test-dqlite test-cpython

.PHONY: all lib lib-sysver header deps cbindgen install demo test test-dqlite soak shell dist test-dist $(TEST_SUITES) clean-build

all: lib $(BUILD)/include/sqlite3.h $(LIBDIR)/pkgconfig/sqlite3.pc

lib:
	$(CARGO) build --release -p ringlite-capi
	mkdir -p $(LIBDIR)
	cp target/release/libsqlite3.a $(LIBDIR)/libsqlite3.a
	$(call link_shared,$(LIBDIR)/$(SO_FILE),$(RINGLITE_SQLITE_VERSION),$(RINGLITE_SQLITE_SOURCE_ID))
	ln -sf $(SO_FILE) $(LIBDIR)/libsqlite3.so.0
	ln -sf libsqlite3.so.0 $(LIBDIR)/libsqlite3.so

$(BUILD)/include/sqlite3.h: include/sqlite3.h
	mkdir -p $(BUILD)/include
	cp include/sqlite3.h $@

$(LIBDIR)/pkgconfig/sqlite3.pc: capi/sqlite3.pc.in
	mkdir -p $(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(or $(RINGLITE_SQLITE_VERSION),3.54.1)|g' $< > $@

header: cbindgen
	cd capi && cbindgen --quiet --config cbindgen.toml --crate ringlite-capi --output ../include/sqlite3.h .

# Tools the demo and tests use, installed when missing (sqlite3-pcre and
# libsqlite3-mod-spatialite: packaged extensions the loadable-extension
# tests load on both libraries).
deps:
	@need=""; \
	dpkg -s libsqlite3-dev >/dev/null 2>&1 || need="$$need libsqlite3-dev"; \
	command -v sqlite3 >/dev/null || need="$$need sqlite3"; \
	command -v python3 >/dev/null || need="$$need python3"; \
	command -v pkg-config >/dev/null || need="$$need pkg-config"; \
	command -v nm >/dev/null || need="$$need binutils"; \
	command -v cc >/dev/null || need="$$need gcc"; \
	if [ -n "$$need" ]; then apt-get update -qq && apt-get install -y -qq $$need; fi
	@dpkg -s sqlite3-pcre >/dev/null 2>&1 || apt-get install -y -qq sqlite3-pcre \
	  || echo "sqlite3-pcre could not be installed: p_load_extension.py skips its part"
	@dpkg -s libsqlite3-mod-spatialite >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-mod-spatialite \
	  || echo "libsqlite3-mod-spatialite could not be installed: p_spatialite.py and shell/spatialite.sql skip it"

# cbindgen generates include/sqlite3.h (committed): only `make header` and
# the header-freshness check of test-capi need it, never the build.
cbindgen:
	@command -v cbindgen >/dev/null || $(CARGO) install cbindgen --version 0.29.4 --locked

# Installed stripped: the shared library's debug info goes to a separate
# file beside it (found by debuggers through its .gnu_debuglink), the static
# library carries none.
install: all shell
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/debug
	objcopy --only-keep-debug $(LIBDIR)/$(SO_FILE) $(DESTDIR)$(PREFIX)/lib/debug/$(SO_FILE).debug
	objcopy --strip-debug --strip-unneeded --add-gnu-debuglink=$(DESTDIR)$(PREFIX)/lib/debug/$(SO_FILE).debug \
	  $(LIBDIR)/$(SO_FILE) $(DESTDIR)$(PREFIX)/lib/$(SO_FILE)
	chmod 755 $(DESTDIR)$(PREFIX)/lib/$(SO_FILE)
	objcopy --strip-debug $(LIBDIR)/libsqlite3.a $(DESTDIR)$(PREFIX)/lib/libsqlite3.a
	chmod 644 $(DESTDIR)$(PREFIX)/lib/libsqlite3.a
	ln -sf $(SO_FILE) $(DESTDIR)$(PREFIX)/lib/libsqlite3.so.0
	ln -sf libsqlite3.so.0 $(DESTDIR)$(PREFIX)/lib/libsqlite3.so
	# Generated for this PREFIX (build/'s copy may name another one).
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(or $(RINGLITE_SQLITE_VERSION),3.54.1)|g' capi/sqlite3.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/sqlite3.pc
	chmod 644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/sqlite3.pc
	install -m 644 include/sqlite3.h $(DESTDIR)$(PREFIX)/include/
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 -s $(BUILD)/bin/ringlite $(DESTDIR)$(PREFIX)/bin/ringlite

# Switch this machine over to ringlite, and back. Installs into /usr/local
# (which the loader's cache searches before /usr/lib), reporting the system
# SQLite's version so its programs (the sqlite3 shell) accept the library,
# then refreshes the loader's cache. Needs root. Every program of the machine
# that loads libsqlite3.so.0 by SONAME then runs on ringlite: see README,
# "Switching a machine over", for the risks. uninstall-system removes
# exactly what install-system put there.
SYSTEM_PREFIX ?= /usr/local
LDCONFIG ?= ldconfig
SYSTEM_FILES := lib/$(SO_FILE) lib/libsqlite3.so.0 lib/libsqlite3.so lib/libsqlite3.a \
  lib/debug/$(SO_FILE).debug lib/pkgconfig/sqlite3.pc include/sqlite3.h bin/ringlite
.PHONY: install-system uninstall-system
install-system:
	$(MAKE) install PREFIX=$(SYSTEM_PREFIX) DESTDIR= SQLITE_VERSION_FROM=system
	$(LDCONFIG)
	@echo "libsqlite3.so.0 now resolves to: $$($(LDCONFIG) -p | sed -n 's/^\tlibsqlite3.so.0 (.*) => //p' | head -1)"
uninstall-system:
	cd $(SYSTEM_PREFIX) && rm -f $(SYSTEM_FILES)
	$(LDCONFIG)
	@echo "libsqlite3.so.0 now resolves to: $$($(LDCONFIG) -p | sed -n 's/^\tlibsqlite3.so.0 (.*) => //p' | head -1)"

# The system programs check the version they were built with, so they run
# on the same build linked to report the system SQLite's (lib-sysver);
# build/lib keeps the default for everything else.
demo: deps all lib-sysver
	capi/demo/run.sh $(SYSVER_LIBDIR)

test: deps $(TEST_SUITES)

# dqlite on ringlite (part of `make test`, about 15 seconds; it needs
# Debian's go-dqlite and libdqlite0, installed here when missing, and
# skips when they cannot be): a cluster of three dqlite-demo nodes on
# loopback, each using ringlite through dqlite's own application VFS, that
# loses its leader and elects another (tests/dqlite/run.sh).
test-dqlite: lib
	@command -v dqlite-demo >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq go-dqlite libdqlite0 curl) \
	  || echo "go-dqlite could not be installed: tests/dqlite/run.sh skips"
	bash tests/dqlite/run.sh $(LIBDIR) 3

# The house rules, checked first (a few minutes): the whole tree is formatted
# with rustfmt.toml's settings, and every crate and target of the workspace,
# tests and benchmarks included, is clippy-clean (the lints the house does
# not follow are allowed in src/lib.rs, with why); no import cycle of the
# engine or of capi/ spans more than 12 modules; every invariant a `//!`
# doc names with `(checked: NAME)` has its tagged check, and no module
# adds an unchecked one (.ci/invariants.py, its ratchet
# .ci/invariants-prose.txt).
test-lint:
	python3 .ci/module_cycles.py --max 12 src capi/src
	python3 .ci/invariants.py src
	@command -v rustfmt >/dev/null && $(CARGO) fmt --version >/dev/null 2>&1 || rustup component add rustfmt
	@$(CARGO) clippy --version >/dev/null 2>&1 || rustup component add clippy
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings

test-cargo:
	$(CARGO) test --workspace

# The long run of the threads-on-one-file test (make test runs a bounded
# one): 16 threads per transaction kind, both journal modes, for
# SOAK_SECONDS in all; every committed row must be in the file.
SOAK_SECONDS ?= 600
soak:
	SOAK_SECONDS=$(SOAK_SECONDS) $(CARGO) test --release --test engine sql_threads_one_file:: -- --ignored --nocapture

# The C ABI: header freshness, header agreement with SQLite's, exported
# symbols, and the C programs of capi/tests run against both libraries.
test-capi: all lib-sysver $(REF_OBJ) cbindgen
	capi/tests/run.sh $(LIBDIR) $(SYSVER_LIBDIR)

# The library reporting the system SQLite's version and source id, for
# system programs that insist on their own (the sqlite3 shell): the same
# build, linked with other version strings.
SYSVER_LIBDIR := $(BUILD)/lib-sysver
lib-sysver: lib
	$(call link_shared,$(SYSVER_LIBDIR)/libsqlite3.so.0,$(SYS_SQLITE_VERSION),$(SYS_SQLITE_SOURCE_ID))

clean-build:
	rm -rf $(BUILD)

# SQLite's own TCL tests through Debian's Tcl binding, on our library: the
# files the system SQLite passes, checked against the ringlite ratchet.
test-tcl: all
	$(MAKE) compat-tcl-ringlite

# The multi-tenant benchmarks (not part of `make test`; minutes to an hour):
# the open-loop suite (100/1,000/10,000 tenants, cached and slow storage,
# ours async vs SQLite thread-per-tenant and pools), the idle-tenant
# memory and open cost, and the seed paper's closed loop. Tables go to
# bench/tenants-results.md, plots beside it (bench/openloop-*.png,
# bench/tenants.png). Narrow a run with BENCH_TENANTS_ARGS, e.g.
#   make bench-tenants BENCH_TENANTS_ARGS='--counts 100 --set "storage=1ms;loads=80"'
BENCH_TENANTS_ARGS ?=
.PHONY: bench-tenants
bench-tenants:
	@command -v rsvg-convert >/dev/null || apt-get install -y librsvg2-bin >/dev/null 2>&1 || echo "no rsvg-convert: plots stay SVG"
	$(CARGO) build --release -p ringlite-bench
	target/release/ringlite-bench openloop idle readahead tenants --out bench/tenants-results.md $(BENCH_TENANTS_ARGS)

# The async API examples (capi/examples/): many tenants served by one
# thread, waiting with sqlite3_io_poll and with epoll on sqlite3_io_fd;
# each checks its totals and exits non-zero on a wrong one.
EXAMPLES := tenants_poll tenants_epoll async_calls
.PHONY: examples
examples: all
	mkdir -p $(BUILD)/examples
	set -e; for x in $(EXAMPLES); do \
	  $(CC) -std=gnu11 -Wall -Wextra -Werror -I$(BUILD)/include -o $(BUILD)/examples/$$x capi/examples/$$x.c \
	    -L$(LIBDIR) -lsqlite3 -Wl,-rpath,$(abspath $(LIBDIR)); \
	  timeout 120 $(BUILD)/examples/$$x; \
	done
# make test-capi runs them too, and speedtest1 from SQLite's source package.
test-capi: examples tcl/sqlite-src/test

# ringlite's shell (capi/shell/): SQLite's shell on our library, which it
# loads from ../lib beside itself (build/bin -> build/lib, PREFIX/bin ->
# PREFIX/lib), so it needs no rebuild of the library.
shell: lib
	$(CARGO) build --release -p ringlite-shell
	mkdir -p $(BUILD)/bin
	cp target/release/ringlite $(BUILD)/bin/ringlite

# The shell against the system's sqlite3 shell on the scripts of
# compat-tests/shell/ (seconds).
test-shell: shell test-dist
	@command -v /usr/bin/sqlite3 >/dev/null || (apt-get update -qq && apt-get install -y -qq sqlite3)
	compat-tests/shell/run.sh $(BUILD)/bin/ringlite

# CPython's own test_sqlite3 on our library and on the reference, test by
# test, with every interpreter that ships the suite (seconds).
.PHONY: test-cpython
test-cpython: lib $(REF_OBJ)
	compat-tests/apps/cpython/run.sh $(LIBDIR) $(BUILD)/ref

# The README's set-up commands, as a new user runs them (CI runs make test
# on a fresh clone, so this checks the rest): the "Two commands" block
# names exactly the targets that exist, and `make demo` runs.
.PHONY: test-readme
test-readme:
	capi/demo/readme_check.sh README.md

# A binary release: the stripped library (with its SONAME link), header,
# pkg-config file, shell and README, in build/dist/.
DIST_NAME := ringlite-$(RINGLITE_VERSION)-linux-x86_64
dist: all shell
	rm -rf $(BUILD)/dist/$(DIST_NAME)
	$(MAKE) install PREFIX=/ DESTDIR=$(abspath $(BUILD)/dist/$(DIST_NAME)) >/dev/null
	rm -rf $(BUILD)/dist/$(DIST_NAME)/lib/debug $(BUILD)/dist/$(DIST_NAME)/lib/libsqlite3.a
	sed -i 's|^prefix=.*|prefix=$${pcfiledir}/../..|' $(BUILD)/dist/$(DIST_NAME)/lib/pkgconfig/sqlite3.pc
	cp README.md LICENSE $(BUILD)/dist/$(DIST_NAME)/
	tar -C $(BUILD)/dist -czf $(BUILD)/dist/$(DIST_NAME).tar.gz $(DIST_NAME)
	@ls -l $(BUILD)/dist/$(DIST_NAME).tar.gz

# The tarball unpacked elsewhere: a C program compiled against it with
# its pkg-config file runs on its library, and its shell runs.
test-dist: dist
	compat-tests/shell/dist_check.sh $(BUILD)/dist/$(DIST_NAME).tar.gz
