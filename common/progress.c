/* progress.c - the progress line of progress.h: redrawn in place with a
 * carriage return, padded with spaces over a longer line before it, on
 * stderr only when stderr is a terminal. Failed writes to stderr are
 * ignored: the line is a courtesy, and the work goes on without it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nd.h"
#include "progress.h"

enum { BAR_WIDTH = 20 };

struct NdProgress {
    char *label, *unit;
    int64_t total, done, done_drawn;
    char note[128];
    bool drawing;               /* stderr is a terminal */
    double start, last_drawn;   /* seconds, on the monotonic clock */
    int width;                  /* of the line on screen, to pad over */
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *copy_text(const char *text)
{
    char *copy = strdup(text ? text : "");
    if (!copy)
        nd_error("nd_progress_start", "out of memory");
    return copy;
}

NdProgress *nd_progress_start(const char *label, int64_t total,
                              const char *unit)
{
    NdProgress *p = calloc(1, sizeof *p);
    if (!p)
        nd_error("nd_progress_start", "out of memory");
    p->label = copy_text(label);
    p->unit = copy_text(unit);
    p->total = total > 0 ? total : 0;
    p->drawing = isatty(STDERR_FILENO) == 1;
    p->start = now();
    p->last_drawn = -1.0;
    return p;
}

/* "12.3s", or "2m05s" from a minute on. */
static void format_elapsed(char *text, size_t size, double seconds)
{
    if (seconds < 60.0)
        snprintf(text, size, "%.1fs", seconds);
    else
        snprintf(text, size, "%dm%02ds", (int)(seconds / 60.0),
                 (int)seconds % 60);
}

static void draw(NdProgress *p, double t)
{
    char line[512], elapsed[32];
    int n = snprintf(line, sizeof line, "%s ", p->label);
    if (p->total > 0) {
        int64_t done = p->done < p->total ? p->done : p->total;
        int full = (int)(done * BAR_WIDTH / p->total);
        char bar[BAR_WIDTH + 1];
        memset(bar, '#', (size_t)full);
        memset(bar + full, '.', (size_t)(BAR_WIDTH - full));
        bar[BAR_WIDTH] = '\0';
        n += snprintf(line + n, sizeof line - (size_t)n, "[%s] %lld/%lld",
                      bar, (long long)p->done, (long long)p->total);
    } else {
        n += snprintf(line + n, sizeof line - (size_t)n, "%lld",
                      (long long)p->done);
    }
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    format_elapsed(elapsed, sizeof elapsed, t - p->start);
    n += snprintf(line + n, sizeof line - (size_t)n, " %s %s%s%s", p->unit,
                  elapsed, p->note[0] ? " " : "", p->note);
    if (n >= (int)sizeof line)
        n = (int)sizeof line - 1;
    /* spaces over what a longer line before left on screen */
    int pad = p->width > n ? p->width - n : 0;
    fprintf(stderr, "\r%s%*s", line, pad, "");
    fflush(stderr);
    p->width = n;
    p->last_drawn = t;
    p->done_drawn = p->done;
}

/* Whether done, at time t, calls for a redraw of a line being drawn:
 * the first, the one that reaches the total, and at most ten a second
 * between. */
static bool redraw_due(const NdProgress *p, int64_t done, double t)
{
    bool finishes = p->total > 0 && done >= p->total &&
                    p->done_drawn < p->total;
    return finishes || p->last_drawn < 0 || t - p->last_drawn >= 0.1;
}

bool nd_progress_due(const NdProgress *p, int64_t done)
{
    return p->drawing && redraw_due(p, done, now());
}

void nd_progress_update(NdProgress *p, int64_t done, const char *format, ...)
{
    p->done = done;
    if (format) {
        va_list args;
        va_start(args, format);
        vsnprintf(p->note, sizeof p->note, format, args);
        va_end(args);
    } else {
        p->note[0] = '\0';
    }
    if (!p->drawing)
        return;
    double t = now();
    if (redraw_due(p, done, t))
        draw(p, t);
}

void nd_progress_end(NdProgress *p)
{
    if (!p)
        return;
    if (p->drawing) {
        draw(p, now());
        fputc('\n', stderr);
        fflush(stderr);
    }
    free(p->label);
    free(p->unit);
    free(p);
}
