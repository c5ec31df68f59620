/* numpy_check.h - for the tests that let NumPy check a file, where
 * /usr/bin/python3 has NumPy (Debian's python3-numpy), and are skipped,
 * saying why, where it has not:
 *
 *     if (!have_numpy())
 *         skip();
 *     run_python("import sys\nimport numpy as np\n...", path);
 *
 * The script goes into the scratch folder (scratch.h) as check.py. No
 * test needs Python elsewhere. Include after nd_test.h and scratch.h. */
#ifndef NUMPY_CHECK_H
#define NUMPY_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Whether /usr/bin/python3 imports numpy; says why not when not. */
static inline bool have_numpy(void)
{
    if (system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0)
        return true;
    print_message("skipped: /usr/bin/python3 cannot import numpy (Debian: "
                  "apt-get install python3-numpy), so NumPy cannot check "
                  "the files\n");
    return false;
}

/* Runs the Python script text with path as its argument (sys.argv[1]);
 * fails the test with its output unless it exits with status 0. */
static inline void run_python(const char *script_text, const char *path)
{
    const char *script = in_scratch("check.py");
    FILE *f = fopen(script, "w");
    if (!f || fputs(script_text, f) == EOF || fclose(f) != 0)
        fail_msg("cannot write the script %s", script);
    char command[1200], output[4096] = "";
    snprintf(command, sizeof command, "/usr/bin/python3 %s %s 2>&1", script,
             path);
    FILE *p = popen(command, "r");
    if (!p)
        fail_msg("cannot run %s", command);
    size_t n = fread(output, 1, sizeof output - 1, p);
    output[n] = '\0';
    int status = pclose(p);
    if (status != 0)
        fail_msg("%s exited with status %d:\n%s", command,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, output);
}

#endif /* NUMPY_CHECK_H */
