/* The progress line: a thread that wakes every 100 ms and, once the run is older than the
 * delay, rewrites "\r\033[K" + "qdc: <input>: <phase> (i/n), 1.4s" on stderr. The diagnostics
 * path calls the guard around everything it prints, so a diagnostic never lands inside the line:
 * the line is erased first and drawn again on the next tick. */
#include "progress.h"
#include "../support/diag.h"
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    bool running, stop, shown;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    struct timespec start;
    double delay_ms;
    char input[128], phase[96];
} P = {.mu = PTHREAD_MUTEX_INITIALIZER};

static double elapsed_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - P.start.tv_sec) * 1e3 + (double)(now.tv_nsec - P.start.tv_nsec) / 1e6;
}

static void put(const char *s) {
    for (size_t n = strlen(s); n;) {
        ssize_t w = write(STDERR_FILENO, s, n);
        if (w <= 0) return;
        s += w, n -= (size_t)w;
    }
}

/* With P.mu held. */
static void draw(void) {
    double ms = elapsed_ms();
    if (ms < P.delay_ms || !P.phase[0]) return;
    char line[320];
    snprintf(line, sizeof line, "\r\033[Kqdc: %s: %s, %.1fs", P.input, P.phase, ms / 1e3);
    put(line);
    P.shown = true;
}

static void erase(void) {
    if (P.shown) put("\r\033[K");
    P.shown = false;
}

static void *ticker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&P.mu);
    while (!P.stop) {
        draw();
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100 * 1000 * 1000;
        if (until.tv_nsec >= 1000 * 1000 * 1000) until.tv_sec++, until.tv_nsec -= 1000 * 1000 * 1000;
        pthread_cond_timedwait(&P.wake, &P.mu, &until);
    }
    erase();
    pthread_mutex_unlock(&P.mu);
    return NULL;
}

static void guard(bool begin) {
    if (begin) pthread_mutex_lock(&P.mu), erase();
    else pthread_mutex_unlock(&P.mu);
}

void progress_start(const char *input) {
    const char *term = getenv("TERM"), *after = getenv("QDC_PROGRESS_AFTER_MS");
    if (P.running || !isatty(STDERR_FILENO) || (term && !strcmp(term, "dumb")) || diag_machine_format()) return;
    P.delay_ms = after && *after ? atof(after) : 1000;
    clock_gettime(CLOCK_MONOTONIC, &P.start);
    snprintf(P.input, sizeof P.input, "%s", strcmp(input, "-") ? input : "<stdin>");
    P.phase[0] = 0;
    P.stop = P.shown = false;
    pthread_cond_init(&P.wake, NULL);
    if (pthread_create(&P.thread, NULL, ticker, NULL)) return;
    P.running = true;
    diag_set_output_guard(guard);
}

void progress_phase(const char *what, int index, int count) {
    if (!P.running) return;
    pthread_mutex_lock(&P.mu);
    if (count > 0) snprintf(P.phase, sizeof P.phase, "%s (%d/%d)", what, index, count);
    else snprintf(P.phase, sizeof P.phase, "%s", what);
    draw();
    pthread_mutex_unlock(&P.mu);
}

void progress_stop(void) {
    if (!P.running) return;
    pthread_mutex_lock(&P.mu);
    P.stop = true;
    pthread_cond_signal(&P.wake);
    pthread_mutex_unlock(&P.mu);
    pthread_join(P.thread, NULL);
    pthread_cond_destroy(&P.wake);
    diag_set_output_guard(NULL);
    P.running = false;
}
