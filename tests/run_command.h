/* run_command.h - run_command: a shell command run whole, its output
 * read into a buffer and its exit status returned, for the tests that
 * run a program or a compiler. Include after cmocka (nd_test.h or
 * step_under_test.h). */
#ifndef RUN_COMMAND_H
#define RUN_COMMAND_H

#include <stdio.h>
#include <sys/wait.h>

/* Runs command (through sh, as popen does) and reads what it writes on
 * stdout, up to size - 1 bytes, into out, NUL-terminated: a command that
 * wants stderr too ends with 2>&1. Returns its exit status, or -1 when
 * a signal ended it. */
static inline int run_command(const char *command, char *out, size_t size)
{
    FILE *pipe = popen(command, "r");
    assert_non_null(pipe);
    size_t len = fread(out, 1, size - 1, pipe);
    out[len] = '\0';
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#endif /* RUN_COMMAND_H */
