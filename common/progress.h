/* progress.h - a one-line progress bar on stderr for long work (a
 * download, the batches of an epoch): what is done of the total, the
 * time so far and a note such as the loss. It is drawn only when stderr
 * is a terminal, so that pipes, logs and golden comparisons stay clean.
 *
 *     NdProgress *bar = nd_progress_start("epoch 1", 600, "batches");
 *     for (int i = 0; i < 600; i++) {
 *         ...
 *         nd_progress_update(bar, i + 1, "loss %.4f", sum_loss / (i + 1));
 *     }
 *     nd_progress_end(bar);
 *
 * draws and redraws one line, "epoch 1 [##########..........] 300/600
 * batches 1.5s loss 1.2345", and ends it with a newline.
 */
#ifndef ND_PROGRESS_H
#define ND_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct NdProgress NdProgress;

/* Starts a progress line for total units of work named unit
 * ("batches", "kB"); total 0 when it is unknown (no bar is drawn then,
 * only what is done). label and unit are copied. Returns a new
 * NdProgress that the caller ends with nd_progress_end, also when stderr
 * is not a terminal (then nothing is ever drawn). */
NdProgress *nd_progress_start(const char *label, int64_t total,
                              const char *unit);

/* Records that done units are done, with a note formatted as printf
 * does ("loss %.4f"), or none when format is NULL. Redraws at most ten
 * times a second, and when done first reaches the total. */
void nd_progress_update(NdProgress *progress, int64_t done,
                        const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether an update to done would redraw the line now: never when
 * stderr is not a terminal. A note that costs something to make (a
 * number read back from the GPU) is made only then. */
bool nd_progress_due(const NdProgress *progress, int64_t done);

/* Draws the last state, ends the line and frees progress (NULL is
 * accepted). */
void nd_progress_end(NdProgress *progress);

#endif /* ND_PROGRESS_H */
