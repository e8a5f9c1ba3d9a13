/* Progress on a terminal (qdc(1), --time-report): when standard error is a terminal and a run
 * has taken more than a second, one line that a helper thread rewrites with the phase and the
 * time so far, erased before every diagnostic and at the end. Nothing otherwise. */
#ifndef QDC_PROGRESS_H
#define QDC_PROGRESS_H

/* Starts the display for `input` unless stderr is not a terminal, TERM is "dumb" or the
 * diagnostics are JSON/SARIF. QDC_PROGRESS_AFTER_MS overrides the one-second delay (tests). */
void progress_start(const char *input);
/* The phase now running ("parse", "lower+emit sm_90"); index/count > 0 add " (index/count)". */
void progress_phase(const char *what, int index, int count);
/* Erases the line and stops the thread (idempotent). */
void progress_stop(void);
#endif
