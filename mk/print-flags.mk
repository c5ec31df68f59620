# print-flags.mk - prints the flags of flags.mk as shell assignments, so
# tests/run.sh compiles test programs with the steps' flags (lowering -O2
# to -O0 for them: see there).
include mk/flags.mk
$(info CC='$(CC)' CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)' LDLIBS='$(LDLIBS)' \
      SANFLAGS='$(SANFLAGS)')
all: ;
