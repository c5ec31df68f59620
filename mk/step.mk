# step.mk - the build of one step, included by steps/stepNN/Makefile
# (identical in every step). Builds ./stepNN, named after the
# step's folder, from main.c (and, from step 23, dezero/*.c) linked with
# the array library in common/.
ROOT := ../..
STEP_NAME := $(notdir $(CURDIR))
include $(ROOT)/mk/flags.mk

COMMON := $(ROOT)/common
LIBND := $(COMMON)/build/$(VARIANT)/libnd.a
BUILD := build/$(VARIANT)
SRCS := $(wildcard *.c dezero/*.c)
OBJS := $(SRCS:%.c=$(BUILD)/%.o)
CFLAGS += -I$(COMMON) -Idezero
# region: cmocka
# A step whose program is a test runner (step 10) includes <cmocka.h>:
# it links cmocka, and no other step does.
ifneq ($(shell grep -l '^\#include <cmocka.h>' $(SRCS) 2>/dev/null),)
LDLIBS += -lcmocka
endif
# endregion

# The reader's build is ./stepNN; the sanitizer build stays in its folder.
ifeq ($(VARIANT),default)
PROGRAM := $(STEP_NAME)
else
PROGRAM := $(BUILD)/$(STEP_NAME)
endif

$(PROGRAM): $(OBJS) $(LIBND)
	$(CC) $(LDFLAGS) $(OBJS) $(LIBND) $(LDLIBS) -o $@

# Objects of the step's own files, for tests that link against them.
objects: $(OBJS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIBND): FORCE
	@$(MAKE) --no-print-directory -C $(COMMON)

clean:
	rm -rf build $(STEP_NAME)

.PHONY: clean objects FORCE
-include $(OBJS:.o=.d)
