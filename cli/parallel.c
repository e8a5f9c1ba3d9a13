/* Forked workers for -j N. Each worker's stdout, stderr and result go to anonymous temporary
 * files (never pipes, so a worker cannot block on a full pipe while the parent waits for
 * another); the parent waits for all, then replays item by item. */
#include "parallel.h"
#include "../support/diag.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    FILE *out, *err, *res;
    pid_t pid;
    int status;
} Worker;

int parallel_cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

static FILE *scratch(void) {
    FILE *f = tmpfile();
    if (!f) die("cannot create a temporary file for a -j worker: %s", strerror(errno));
    return f;
}

static void start(Worker *w, int i, ParallelWork work, void *ctx) {
    w->out = scratch(), w->err = scratch(), w->res = scratch();
    fflush(stdout), fflush(stderr);
    w->pid = fork();
    if (w->pid < 0) die("fork: %s", strerror(errno));
    if (w->pid) return;
    if (dup2(fileno(w->out), STDOUT_FILENO) < 0 || dup2(fileno(w->err), STDERR_FILENO) < 0) _exit(3);
    StrBuf r;
    sb_init(&r);
    work(ctx, i, &r);
    fflush(stdout), fflush(stderr);
    bool ok = fwrite(r.data ? r.data : "", 1, r.len, w->res) == r.len && fflush(w->res) == 0;
    _exit(ok ? 0 : 3); /* no atexit handlers: they belong to the parent */
}

/* Waits for one worker of ours and records its status; false when none is left. */
static bool reap(Worker *ws, int n) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR) {}
    if (pid < 0) return false;
    for (int i = 0; i < n; i++)
        if (ws[i].pid == pid) ws[i].status = st, ws[i].pid = 0;
    return true;
}

/* The whole of a temporary file (from its start), malloc'd, NUL-terminated. */
static char *slurp(FILE *f, size_t *len) {
    StrBuf b;
    sb_init(&b);
    rewind(f);
    char chunk[65536];
    for (size_t k; (k = fread(chunk, 1, sizeof chunk, f)) > 0;) sb_append(&b, chunk, k);
    sb_putc(&b, 0);
    *len = b.len - 1;
    return sb_take(&b);
}

void parallel_run(int n, int width, ParallelStart started_fn, ParallelWork work, ParallelTake take, void *ctx) {
    Worker *ws = xcalloc((size_t)n + 1, sizeof *ws);
    int started = 0, running = 0;
    while (started < n || running > 0) {
        if (started < n && running < width) {
            if (started_fn) started_fn(ctx, started);
            start(&ws[started], started, work, ctx);
            started++, running++;
        } else if (reap(ws, started)) running--;
        else break;
    }
    bool go = true;
    for (int i = 0; i < n; i++) {
        size_t lo, le, lr;
        char *o = slurp(ws[i].out, &lo), *e = slurp(ws[i].err, &le), *r = slurp(ws[i].res, &lr);
        bool done = WIFEXITED(ws[i].status) && WEXITSTATUS(ws[i].status) == 0;
        if (go) {
            fwrite(o, 1, lo, stdout), fflush(stdout);
            diag_replay(e, le);
            go = take(ctx, i, done ? r : NULL, done ? lr : 0, ws[i].status);
        }
        free(o), free(e), free(r);
        fclose(ws[i].out), fclose(ws[i].err), fclose(ws[i].res);
    }
    free(ws);
}
