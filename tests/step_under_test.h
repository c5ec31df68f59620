/* step_under_test.h - gives a capability test the code of the step it
 * is compiled against (tests/run.sh sets STEP and the include path).
 * Steps 01-22 are a single main.c: it is included whole, with its main
 * renamed. From step 23 the framework is a library with a header. */
#ifndef STEP_UNDER_TEST_H
#define STEP_UNDER_TEST_H

#include "nd_test.h"

#if STEP < 23
#define main step_program_main
#include "main.c"
#undef main
#else
#include "dezero.h"
#endif

/* The gradient of v as an array (NULL when it has none), in any step:
 * until step 31 v->grad is an array; from step 32 it is a Variable. A
 * test that reads gradients through this runs against every step. */
#if STEP >= 32
#define grad_array(v) ((v)->grad ? (v)->grad->data : NULL)
#else
#define grad_array(v) ((v)->grad)
#endif

#endif /* STEP_UNDER_TEST_H */
