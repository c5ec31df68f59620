# print-flags.mk - prints the flags of flags.mk as shell assignments, so
# tests/run.sh compiles test programs exactly as the steps are compiled.
include mk/flags.mk
$(info CC='$(CC)' CFLAGS='$(CFLAGS)' LDFLAGS='$(LDFLAGS)' LDLIBS='$(LDLIBS)')
all: ;
