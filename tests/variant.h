/* variant.h - VARIANT_FOLDER: where a step's Makefile puts the program of
 * the build variant this test was compiled as, relative to the step's
 * folder ("" for the plain build, "build/asan/" under AddressSanitizer),
 * for the tests that run a step's program whole. */
#ifndef VARIANT_H
#define VARIANT_H

#if defined(__SANITIZE_ADDRESS__)
#define VARIANT_FOLDER "build/asan/"
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VARIANT_FOLDER "build/asan/"
#endif
#endif
#ifndef VARIANT_FOLDER
#define VARIANT_FOLDER ""
#endif

#endif /* VARIANT_H */
