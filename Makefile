# ringlite: build, install, demo and test.
#   make            release library, header, sqlite3.pc (in build/)
#   make demo       run unchanged system programs on the fresh library
#   make test       everything CI runs (.ci/run calls exactly this)
SHELL := /bin/bash
CARGO ?= cargo

.PHONY: all test
all:
	$(CARGO) build --release

test:
	$(CARGO) test --workspace
