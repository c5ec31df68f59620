# flags.mk - compiler and linker flags shared by common/, every step and
# the tests. Set SANITIZE=1 for ASan+UBSan (objects go to build/asan) and
# WERROR=1 to turn warnings into errors (CI does).

CC ?= cc
CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -MMD -MP
# Keep a*b+c as two roundings, as NumPy computes it: fused multiply-adds
# would change the last bits of the printed numbers.
CFLAGS += -ffp-contract=off
# Let GCC vectorise loops whose length it cannot see (the elementwise
# kernels): 2-3x on float32, with bit-identical results.
CFLAGS += -fvect-cost-model=dynamic
# Math functions never set errno: lets GCC call libmvec's SIMD exp,
# log, sin... from vectorised loops (elementwise.c). They may differ
# from scalar libm's in the last bit, so the golden outputs are this
# build's: one that does not vectorise (-O1) prints other last digits.
CFLAGS += -fno-math-errno
# Position-independent objects, so that tests/run.sh can link them into
# shared libraries: a thousand test programs then share one copy of the
# library instead of holding one each (gigabytes of disk). Without
# semantic interposition GCC still inlines and calls directly within a
# file; the programs run 0.2-0.7% more instructions (callgrind, steps
# 46, 59, 60).
CFLAGS += -fPIC -fno-semantic-interposition
# libcurl fetches datasets (download.c), with libcrypto's SHA-256;
# libzip reads and writes .npz archives (npz.c); libpng and libjpeg
# read pictures (image.c).
LDLIBS := -lopenblas -lfftw3 -lmvec -lm -lz -ldl -lcurl -lcrypto -lzip \
          -lpng -ljpeg

ifeq ($(WERROR),1)
CFLAGS += -Werror
endif

ifeq ($(SANITIZE),1)
VARIANT := asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined
CFLAGS += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
else
VARIANT := default
endif
