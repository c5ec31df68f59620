# gpu.mk - the GPU half on its own, run from the top as `make test-gpu`
# (its test cases alone, tests/common/test_gpu.c --gpu-only),
# `make bench-gpu` (bench/bench_gpu.c's table, its fftn against CuPy's,
# bench/fft_gpu.sh, then the training section, bench/train_gpu.sh) and `make gpu-check` (all of the GPU
# half in one visit to a GPU machine, mk/gpu_check.sh). Each fails,
# saying why, on a machine without a GPU.
include mk/flags.mk

LIBND := common/build/$(VARIANT)/libnd.a
TEST := tests/build/$(VARIANT)/gpu/test_gpu
BENCH := bench/build/bench_gpu

test: $(TEST)
	@./$(TEST) --gpu-only

# bench_gpu goes first: without a GPU it stops there, saying why, before
# step 52 is built; its table is kept for train_gpu.sh's GEMM floor.
BENCH_TABLE := bench/build/bench_gpu.txt
bench: $(BENCH)
	@bash -c 'set -o pipefail; ./$(BENCH) | tee $(BENCH_TABLE)'
	@bench/fft_gpu.sh $(BENCH_TABLE)
	@$(MAKE) --no-print-directory -f mk/gpu.mk bench-programs
	@bench/train_gpu.sh $(VARIANT) $(BENCH_TABLE)

$(TEST): tests/common/test_gpu.c $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Itests $< $(LIBND) $(LDFLAGS) $(LDLIBS) \
	    -lcmocka -o $@

$(BENCH): bench/bench_gpu.c $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon $< $(LIBND) $(LDFLAGS) $(LDLIBS) -o $@

$(LIBND): FORCE
	@$(MAKE) --no-print-directory -C common

# region: check
# gpu-check asks for the GPU as soon as the library is built (test_gpu
# --gpu-status: "available", then the device's name), so that a machine
# without one stops there with the reason; then it builds the rest and
# mk/gpu_check.sh runs the parts.
STEP52 := steps/step52
STEP60 := steps/step60
DEVICE_TEST := tests/build/$(VARIANT)/gpu/test_device
DEVICE_TEST_60 := tests/build/$(VARIANT)/gpu/test_device_60
STEPS_ON_DEVICE := tests/build/$(VARIANT)/gpu/steps_on_device
MNIST_TINY := tests/build/$(VARIANT)/gpu/mnist_tiny

check: $(TEST)
	@status=$$(./$(TEST) --gpu-status) && \
	    case "$$status" in available*) ;; *) false ;; esac || \
	    { echo "gpu-check: no GPU here: $$status" >&2; exit 1; }
	@$(MAKE) --no-print-directory -f mk/gpu.mk check-programs
	@mk/gpu_check.sh $(VARIANT)

check-programs: $(DEVICE_TEST) $(DEVICE_TEST_60) $(STEPS_ON_DEVICE) \
                $(BENCH) $(MNIST_TINY) examples

# The GAN of part (j), with the other examples.
examples: FORCE
	@$(MAKE) --no-print-directory -C examples

step52 step60: FORCE
	@$(MAKE) --no-print-directory -C steps/$@

# The device cases of step 52 and of step 60, which adds those of steps
# 53-60, compiled as tests/run.sh compiles a step's test: against the
# step's objects (built with it, listed once built).
$(DEVICE_TEST): tests/steps/test_device.c step52 $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Itests -o $@ $< \
	    $(wildcard $(STEP52)/build/$(VARIANT)/dezero/*.o) $(LIBND) \
	    -DSTEP=52 -I$(STEP52) -I$(STEP52)/dezero $(LDFLAGS) $(LDLIBS) \
	    -lcmocka

$(DEVICE_TEST_60): tests/steps/test_device.c step60 $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Itests -o $@ $< \
	    $(wildcard $(STEP60)/build/$(VARIANT)/dezero/*.o) $(LIBND) \
	    -DSTEP=60 -I$(STEP60) -I$(STEP60)/dezero $(LDFLAGS) $(LDLIBS) \
	    -lcmocka

# Steps 57, 58 and 60 on the device (tests/gpu/steps_on_device.c).
$(STEPS_ON_DEVICE): tests/gpu/steps_on_device.c step60 $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Itests -o $@ $< \
	    $(wildcard $(STEP60)/build/$(VARIANT)/dezero/*.o) $(LIBND) \
	    -I$(STEP60)/dezero $(LDFLAGS) $(LDLIBS)

# Synthetic digits of MNIST's shapes, for a machine whose cache has no
# MNIST (as bench/train.sh does).
$(MNIST_TINY): tests/mnist_tiny.c tests/mnist_tiny.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $< -lz -o $@
# endregion

# What bench/train_gpu.sh runs: step 52, and the synthetic digits.
bench-programs: step52 $(MNIST_TINY)

.PHONY: test bench bench-programs check check-programs step52 step60 examples FORCE
