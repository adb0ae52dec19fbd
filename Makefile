# cudainspect: top-level build.  `make` builds everything into $(BUILD)/.
# Each part of the tree adds its own rules through a build.mk file (included below), so the
# parts can change independently.  See README.md for the two commands that matter:
#   make demo    run the built-in example end to end
#   make check   build and run every test (TAP through prove)

BUILD     ?= build
CUDA_HOME ?= /usr/local/cuda
# nccl.h (NCCL 2.28: the recorder's NCCL wrappers, the simulated NCCL, ncclengine) is looked for
# in $(NCCL_HOME)/include, the toolkit's include directory unless set.
NCCL_HOME ?= $(CUDA_HOME)
CC        ?= gcc
CLANG     ?= clang
PREFIX    ?= /usr/local
DESTDIR   ?=
# SANITIZE=address builds the reader and its tests with ASan+UBSan (see `make check-asan`).
SANITIZE  ?=

WARNINGS  := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter
CPPFLAGS  += -D_GNU_SOURCE -Iinclude -I$(CUDA_HOME)/include $(if $(filter-out $(CUDA_HOME),$(NCCL_HOME)),-I$(NCCL_HOME)/include)
CFLAGS    ?= -O2 -g
CFLAGS    += -std=gnu11 -fno-omit-frame-pointer $(WARNINGS)
ifeq ($(SANITIZE),address)
CFLAGS    += -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif

NVCC      ?= $(CUDA_HOME)/bin/nvcc
CUDA_H    := $(CUDA_HOME)/include/cuda.h

# Parts append their outputs to these.
ALL       :=
TEST_DEPS :=
INSTALL_TARGETS :=

.PHONY: all deps check check-asan demo fuzz install clean
# `make fuzz` runs the libFuzzer harnesses for longer (FUZZ_SECONDS each); parts append to FUZZ_TARGETS.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS :=
all: deps-check

include common/build.mk
include recorder/build.mk
include corefile/build.mk
include plugin/build.mk
include testcases/sim/build.mk
include testcases/engine/build.mk
include bench/build.mk
include tests/build.mk
include docs/man/build.mk
include packaging/wheel/build.mk

all: $(ALL)

# `make deps` installs what a fresh Debian 12 machine lacks (apt-get; see scripts/deps.sh).
deps:
	@BUILD=$(BUILD) NCCL_HOME=$(NCCL_HOME) scripts/deps.sh

# Quick check used by `all` so that a missing toolkit or -dev package gives one clear line
# instead of a page of compiler errors.
.PHONY: deps-check
deps-check:
	@NCCL_HOME=$(NCCL_HOME) scripts/deps.sh --check

# TAP tests through prove.  CI_BUILD tells the tests where the binaries are.
check: deps
	@$(MAKE) --no-print-directory all test-deps
	@CI_BUILD=$(abspath $(BUILD)) CUDA_HOME=$(CUDA_HOME) prove -r --timer tests/

# What the tests need beyond `all`, named in the make that builds it (so under BUILD=build-asan
# they are build-asan's, not build's).
.PHONY: test-deps
test-deps: $(TEST_DEPS)

# The same suite with the reader and tools built under ASan+UBSan into build-asan/.
check-asan: deps
	@$(MAKE) --no-print-directory BUILD=build-asan SANITIZE=address all test-deps
	@CI_BUILD=$(abspath build-asan) CI_SANITIZE=address CUDA_HOME=$(CUDA_HOME) \
		prove -r --timer tests/

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)

demo: deps
	@$(MAKE) --no-print-directory all
	@CI_BUILD=$(abspath $(BUILD)) scripts/demo.sh

install: all $(INSTALL_TARGETS)

clean:
	rm -rf build build-asan build-tsan build-fuzz build-gpu
