# ringlite-compat: differential sqllogictest targets.
# Included from the top Makefile; paths are relative to the repository root.
#
#   make compat-test     what `make test` runs: our scripts and the whole
#                        corpus validated on the reference (the harness is
#                        right; 5 s), a corpus subset and our scripts on ringlite
#                        checked against the ratchets, a 200-case fuzz run,
#                        60 deep/wide statement cases and 150 damaged files
#   make compat-full     the whole corpus on both engines, diff mode on our
#                        scripts, a 5000-case fuzz run
#   make compat-ratchet  grow the ratchets to what ringlite passes now
#   make compat-status   regenerate compat-tests/STATUS.md (sqllogictest
#                        rerun; TCL results reused when fresh)
#   make compat-complete rewrite our scripts' results from the reference
#   make compat-tcl      SQLite's TCL tests (see tcl/tcl.mk)

CARGO ?= cargo
# CI clones the repository with shared/ beside it.
SLT_DIR ?= $(firstword $(wildcard $(abspath ../shared/sqllogictest)) /work/shared/sqllogictest)
COMPAT_DIR := compat-tests
COMPAT := target/release/ringlite-compat
COMPAT_JOBS ?= 2
COMPAT_TIMEOUT ?= 120
COMPAT_SUBSET := --root $(SLT_DIR) --list $(COMPAT_DIR)/corpus-subset.txt
COMPAT_RATCHET_SLT := $(COMPAT_DIR)/ratchet/sqllogictest.txt
COMPAT_RATCHET_OURS := $(COMPAT_DIR)/ratchet/scripts.txt
COMPAT_RL := validate --engine ringlite --quiet --max-diffs 0 --jobs $(COMPAT_JOBS) --timeout $(COMPAT_TIMEOUT)
COMPAT_FUZZ_DIR ?= target/compat-fuzz

.PHONY: compat-build compat-test compat-full compat-ratchet compat-status compat-complete

compat-build:
	$(CARGO) build --release -p ringlite-compat

compat-test: compat-build
	$(COMPAT) validate --engine reference --quiet --jobs $(COMPAT_JOBS) $(COMPAT_DIR)/scripts $(SLT_DIR)
	$(COMPAT) $(COMPAT_RL) --ratchet $(COMPAT_RATCHET_SLT) $(COMPAT_SUBSET)
	$(COMPAT) $(COMPAT_RL) --ratchet $(COMPAT_RATCHET_OURS) $(COMPAT_DIR)/scripts
	# Async mode (uring helper): the same scripts on file-backed async
	# connections, on io_uring and on the simulated backend (completions
	# delayed and reordered), judged by the same ratchets as the blocking run.
	$(COMPAT) $(COMPAT_RL) --async --ratchet $(COMPAT_RATCHET_SLT) $(COMPAT_SUBSET)
	$(COMPAT) $(COMPAT_RL) --async --ratchet $(COMPAT_RATCHET_OURS) $(COMPAT_DIR)/scripts
	$(COMPAT) $(COMPAT_RL) --sim-seed 7 --ratchet $(COMPAT_RATCHET_SLT) $(COMPAT_SUBSET)
	$(COMPAT) $(COMPAT_RL) --sim-seed 7 --ratchet $(COMPAT_RATCHET_OURS) $(COMPAT_DIR)/scripts
	$(COMPAT) fuzz --engine ringlite --seed 1 --cases 200 --save-dir $(COMPAT_FUZZ_DIR)
	# Deep/wide statements and damaged files, each in a supervised child
	# process: a crash, a hang or a panic fails the target; differences
	# are listed (see compat-tests/README.md, "Deep and corrupt fuzzing").
	$(COMPAT) fuzz --mode deep --seed 1 --cases 60 --case-timeout 30 --save-dir $(COMPAT_FUZZ_DIR)
	$(COMPAT) fuzz --mode corrupt --seed 1 --cases 150 --case-timeout 30 --save-dir $(COMPAT_FUZZ_DIR)

compat-full: compat-build
	$(COMPAT) validate --engine reference --quiet --jobs $(COMPAT_JOBS) $(SLT_DIR) $(COMPAT_DIR)/scripts
	$(COMPAT) $(COMPAT_RL) --ratchet $(COMPAT_RATCHET_SLT) $(SLT_DIR)
	$(COMPAT) diff --engine ringlite --quiet --jobs $(COMPAT_JOBS) $(COMPAT_DIR)/scripts || true
	$(COMPAT) fuzz --engine ringlite --seed 1000 --cases 5000 --save-dir $(COMPAT_DIR)/scripts/regressions
	$(COMPAT) fuzz --mode deep --seed 1000 --cases 1000 --case-timeout 30 --save-dir $(COMPAT_FUZZ_DIR)
	$(COMPAT) fuzz --mode corrupt --seed 1000 --cases 3000 --case-timeout 30 --save-dir $(COMPAT_FUZZ_DIR)

compat-ratchet: compat-build
	$(COMPAT) $(COMPAT_RL) --ratchet $(COMPAT_RATCHET_SLT) --update-ratchet $(SLT_DIR)
	$(COMPAT) $(COMPAT_RL) --ratchet $(COMPAT_RATCHET_OURS) --update-ratchet $(COMPAT_DIR)/scripts

# The TCL part of STATUS.md comes from the saved TCL results (rerun only
# when missing or older than the library; see tcl/tcl.mk).
compat-status: compat-build compat-tcl-results
	$(COMPAT) $(COMPAT_RL) --status $(COMPAT_DIR)/STATUS.md $(SLT_DIR) $(COMPAT_DIR)/scripts || true

compat-complete: compat-build
	$(COMPAT) complete --quiet $(COMPAT_DIR)/scripts

include tcl/tcl.mk
