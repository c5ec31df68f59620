/* canary_leak.c - a program that leaks on purpose. The suite runs it
 * under LeakSanitizer (SANITIZE=1) and under valgrind and expects each
 * to report the leak: a leak checker that is silently off (LeakSanitizer
 * turns itself off under ptrace, for one) then fails the suite instead
 * of letting every leak check pass. */
#include <stdlib.h>

static void *volatile lost;     /* volatile: the store below is kept */

int main(void)
{
    lost = malloc(64);
    lost = NULL;                /* the only pointer to the block, gone */
    return 0;
}
