# DeZero in C - the entry points (see README.md).
#   make run            build every step, run the latest
#   make test [STEP=N]  the test suite (SANITIZE=1: under ASan+UBSan)
#   make -C steps/stepNN, make diff STEP=N, make book, make bench
#   make fuzz           the IDX, .npz and picture readers under libFuzzer
#   make examples       DeZero's examples/ (tanh, spiral, mnist, ...)

SHELL := /bin/bash
STEPS := $(sort $(wildcard steps/step[0-9][0-9]))
LATEST := $(lastword $(STEPS))
# STEP=7 or STEP=07 -> 07, and the step before it: the nearest below
# that has a folder (a chapter of theory, 56, has none).
ifdef STEP
NN := $(shell printf '%02d' "$$(expr $(STEP) + 0)")
PREV := $(lastword $(filter-out $(NN),$(foreach s,$(STEPS:steps/step%=%),\
            $(if $(shell [ $(s) -lt $(NN) ] 2>/dev/null && echo y),$(s)))))
endif
BUILD_VARS := SANITIZE=$(SANITIZE) WERROR=$(WERROR)

all: steps

deps:
	@mk/deps.sh

# common/ first, so the steps (built in parallel) never race to build it.
steps: deps
	@$(MAKE) --no-print-directory -C common $(BUILD_VARS)
	@$(MAKE) --no-print-directory -j$$(nproc) $(STEPS:steps/%=build-%)

# build-step07 builds steps/step07. (A pattern like build-% cannot stand
# for a path with a slash: make matches it against the file name only.)
build-%:
	@$(MAKE) --no-print-directory -C steps/$* $(BUILD_VARS)

run: steps
	@echo "== $(LATEST)"
	@cd $(LATEST) && ./$(notdir $(LATEST))

test: deps
	@SANITIZE=$(SANITIZE) WERROR=$(WERROR) tests/run.sh $(STEP)

diff:
	@test -n "$(STEP)" || { echo "usage: make diff STEP=N"; exit 2; }
	@mk/diff.sh $(PREV) $(NN)

book: deps
	@$(MAKE) --no-print-directory -C docs

bench: deps
	@$(MAKE) --no-print-directory -C bench run

# DeZero's examples/, the programs after the book, built from step 60's
# framework (examples/Makefile says why).
examples: deps
	@$(MAKE) --no-print-directory -C common $(BUILD_VARS)
	@$(MAKE) --no-print-directory -C examples $(BUILD_VARS)

clean:
	@$(MAKE) -s -C common clean
	@for s in $(STEPS); do $(MAKE) -s -C $$s clean; done
	rm -rf tests/build docs/build bench/build

.PHONY: all deps steps run test diff book bench examples clean

# The IDX and .npz readers (common/idx.c, npz.c) under libFuzzer, for a
# million inputs each (RUNS=N for another count): too slow for `make
# test`. tests/fuzz/.
fuzz: deps
	@$(MAKE) --no-print-directory -C tests/fuzz run

.PHONY: fuzz

# The GPU half alone (mk/gpu.mk): its test cases, its benchmark, and
# gpu-check, everything the GPU half has in one visit to a GPU machine
# (built with every core, then one table); each fails with the reason
# on a machine without a GPU.
test-gpu: deps
	@$(MAKE) --no-print-directory -f mk/gpu.mk test $(BUILD_VARS)

bench-gpu: deps
	@$(MAKE) --no-print-directory -f mk/gpu.mk bench $(BUILD_VARS)

gpu-check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) -f mk/gpu.mk check \
	    $(BUILD_VARS)

.PHONY: test-gpu bench-gpu gpu-check
