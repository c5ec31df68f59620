# gpu.mk - the GPU half on its own, run from the top as `make test-gpu`
# (its test cases alone, tests/common/test_gpu.c --gpu-only) and
# `make bench-gpu` (bench/bench_gpu.c). Both fail, saying why, on a
# machine without a GPU.
include mk/flags.mk

LIBND := common/build/$(VARIANT)/libnd.a
TEST := tests/build/$(VARIANT)/gpu/test_gpu
BENCH := bench/build/bench_gpu

test: $(TEST)
	@./$(TEST) --gpu-only

bench: $(BENCH)
	@./$(BENCH)

$(TEST): tests/common/test_gpu.c $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon -Itests $< $(LIBND) $(LDFLAGS) $(LDLIBS) \
	    -lcmocka -o $@

$(BENCH): bench/bench_gpu.c $(LIBND)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Icommon $< $(LIBND) $(LDFLAGS) $(LDLIBS) -o $@

$(LIBND): FORCE
	@$(MAKE) --no-print-directory -C common

.PHONY: test bench FORCE
