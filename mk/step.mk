# step.mk - the build of one step, included by steps/stepNN/Makefile
# (identical in every step). Builds ./stepNN, named after the
# step's folder, from main.c (and, from step 23, dezero/*.c) linked with
# the array library in common/. Any other .c file beside main.c is an
# extra program the chapter needs (step 52's tour.c): built from that
# file alone with the array library, named after it (./tour).
ROOT := ../..
STEP_NAME := $(notdir $(CURDIR))
include $(ROOT)/mk/flags.mk

COMMON := $(ROOT)/common
LIBND := $(COMMON)/build/$(VARIANT)/libnd.a
BUILD := build/$(VARIANT)
SRCS := $(wildcard main.c dezero/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
EXTRAS := $(basename $(filter-out main.c,$(wildcard *.c)))
EXTRA_OBJS := $(EXTRAS:%=$(BUILD)/%.o)
CFLAGS += -I$(COMMON) -Idezero
# region: cmocka
# A step whose program is a test runner (step 10) includes <cmocka.h>:
# it links cmocka, and no other step does.
ifneq ($(shell grep -l '^\#include <cmocka.h>' $(SRCS) 2>/dev/null),)
LDLIBS += -lcmocka
endif
# endregion

# The reader's builds are ./stepNN and ./tour; the sanitizer builds stay
# in their folder.
ifeq ($(VARIANT),default)
OUT :=
else
OUT := $(BUILD)/
endif
PROGRAM := $(OUT)$(STEP_NAME)
EXTRA_PROGRAMS := $(EXTRAS:%=$(OUT)%)

all: $(PROGRAM) $(EXTRA_PROGRAMS)

$(PROGRAM): $(OBJS) $(LIBND)
	$(CC) $(LDFLAGS) $(OBJS) $(LIBND) $(LDLIBS) -o $@

$(EXTRA_PROGRAMS): $(OUT)%: $(BUILD)/%.o $(LIBND)
	$(CC) $(LDFLAGS) $< $(LIBND) $(LDLIBS) -o $@

# Objects of the step's own files, for tests that link against them.
objects: $(OBJS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBND): FORCE
	@$(MAKE) --no-print-directory -C $(COMMON)

clean:
	rm -rf build $(strip $(STEP_NAME) $(EXTRAS))

.PHONY: all clean objects FORCE
-include $(OBJS:.o=.d) $(EXTRA_OBJS:.o=.d)
