/* options.h - the examples' settings from the environment: where a
 * Python script has a constant worth changing (max_epoch, batch_size),
 * the C program reads it from a DEZERO_ variable, as the steps read
 * DEZERO_EPOCHS, and keeps Python's value when it is unset or empty. */
#ifndef EXAMPLES_OPTIONS_H
#define EXAMPLES_OPTIONS_H

#include <stdint.h>

/* $name as a whole number in [lo, hi]; fallback when it is unset or
 * empty. Anything else stops with an error that names the variable and
 * the range it wants. */
int64_t option_count(const char *name, int64_t fallback, int64_t lo,
                     int64_t hi);
/* $name as a number in [lo, hi], read as option_count reads a count. */
double option_number(const char *name, double fallback, double lo,
                     double hi);
/* Seconds on a clock that only goes forward (Python: time.time()). */
double seconds_now(void);

#endif /* EXAMPLES_OPTIONS_H */
