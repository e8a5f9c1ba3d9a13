/* libqdrt's scheduler driven directly with hand-written task functions: every iteration runs
 * exactly once on any team size, tasks run in order behind a barrier, a spin on a lower
 * iteration cannot deadlock, the worker pool survives shutdown, concurrent launches from
 * several host threads, and fork, and qdrt_launch_loops repeats task ranges in order. */
#include "runtime/qdrt.h"
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int32_t n;
    atomic_int *hits;     /* per iteration */
    atomic_int extents;   /* calls of the extent function */
    int32_t limit;        /* written by a serial task, read by the next task's extent */
    int32_t *a;
} Args;

/* Task functions run on worker threads, where a Criterion assertion cannot stop the test:
 * they count what is wrong here and the test asserts on it. */
static atomic_int errors;

static int32_t extent_n(const void *p) {
    Args *a = (Args *)p;
    atomic_fetch_add(&a->extents, 1);
    return a->n;
}

static void count_hits(const void *p, int32_t b, int32_t e, qdrt_lane *lane) {
    const Args *a = p;
    if (lane || b < 0 || b >= e || e > a->n) atomic_fetch_add(&errors, 1);
    for (int32_t i = b; i < e; i++) atomic_fetch_add(&a->hits[i], 1);
}

static const qdrt_task hits_task[] = {{count_hits, extent_n, QDRT_PARALLEL, 0, 0}};

static void check_once(int32_t n, int threads) {
    Args a = {.n = n, .hits = calloc((size_t)n + 1, sizeof(atomic_int))};
    cr_assert_eq(qdrt_launch(hits_task, 1, &a, threads), 0);
    for (int32_t i = 0; i < n; i++) cr_assert_eq(atomic_load(&a.hits[i]), 1, "n=%d threads=%d i=%d", n, threads, i);
    cr_assert_eq(atomic_load(&a.extents), 1, "the extent is evaluated once per task");
    cr_assert_eq(atomic_load(&errors), 0, "a task got a bad range or a lane");
    free(a.hits);
}

Test(runtime, every_iteration_runs_exactly_once) {
    const int32_t sizes[] = {0, 1, 2, 3, 17, 1000, 100003};
    const int threads[] = {1, 2, 3, 4, 8, 16};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) check_once(sizes[s], threads[t]);
}

static void fill(const void *p, int32_t b, int32_t e, qdrt_lane *lane) {
    const Args *a = p;
    for (int32_t i = b; i < e; i++) a->a[i] = i + 1;
}
static void set_limit(const void *p, int32_t b, int32_t e, qdrt_lane *lane) { ((Args *)p)->limit = ((Args *)p)->a[7]; }
static int32_t extent_limit(const void *p) { return ((const Args *)p)->limit; }
/* Iteration i checks that the whole fill task finished before it started. */
static void check_filled(const void *p, int32_t b, int32_t e, qdrt_lane *lane) {
    const Args *a = p;
    for (int32_t i = b; i < e; i++)
        for (int32_t j = i; j < a->n; j += a->limit) {
            if (a->a[j] != j + 1) atomic_fetch_add(&errors, 1);
            atomic_fetch_add(&a->hits[j], 1);
        }
}

Test(runtime, tasks_run_in_order_behind_a_barrier) {
    static const qdrt_task tasks[] = {
        {fill, extent_n, QDRT_PARALLEL, 0, 0},
        {set_limit, NULL, QDRT_SERIAL, 0, 0},
        {check_filled, extent_limit, QDRT_PARALLEL, 0, 0},
    };
    for (int threads = 1; threads <= 8; threads *= 2) {
        Args a = {.n = 50000, .a = calloc(50000, sizeof(int32_t)), .hits = calloc(50000, sizeof(atomic_int))};
        cr_assert_eq(qdrt_launch(tasks, 3, &a, threads), 0);
        cr_assert_eq(a.limit, 8, "the serial task ran after the fill task");
        cr_assert_eq(atomic_load(&errors), 0, "the check task saw an unfilled element");
        for (int32_t j = 0; j < a.n; j++) cr_assert_eq(atomic_load(&a.hits[j]), 1, "threads=%d j=%d", threads, j);
        free(a.a), free(a.hits);
    }
}

/* Iteration i waits for iteration i - 1: only the increasing hand-out of every share keeps
 * this from deadlocking when threads outnumber cores. */
static void chain(const void *p, int32_t b, int32_t e, qdrt_lane *lane) {
    const Args *a = p;
    for (int32_t i = b; i < e; i++) {
        if (i > 0)
            while (!atomic_load(&a->hits[i - 1])) qdrt_spin_pause();
        atomic_store(&a->hits[i], 1);
    }
}

Test(runtime, spin_on_a_lower_iteration_cannot_deadlock, .timeout = 60) {
    static const qdrt_task tasks[] = {{chain, extent_n, QDRT_PARALLEL, 0, 0}};
    const int threads[] = {2, 3, 8};
    for (int t = 0; t < 3; t++) {
        Args a = {.n = 4099, .hits = calloc(4099, sizeof(atomic_int))};
        cr_assert_eq(qdrt_launch(tasks, 1, &a, threads[t]), 0);
        cr_assert_eq(atomic_load(&a.hits[a.n - 1]), 1);
        free(a.hits);
    }
}

Test(runtime, pool_survives_shutdown_and_changing_team_sizes) {
    check_once(1000, 8);
    check_once(1000, 2);
    qdrt_shutdown();
    qdrt_shutdown();
    check_once(1000, 4);
    check_once(1000, 1);
    check_once(999, 3);
    cr_assert_eq(qdrt_launch(hits_task, 0, NULL, 4), 0, "no tasks: nothing to do");
}

static void *launch_many(void *arg) {
    int32_t n = (int32_t)(intptr_t)arg;
    for (int k = 0; k < 30; k++) check_once(n, 2 + k % 3);
    return NULL;
}

/* A launch that finds the pool busy runs on a team of its own. */
Test(runtime, concurrent_launches_from_host_threads) {
    pthread_t th[3];
    for (int i = 0; i < 3; i++) cr_assert_eq(pthread_create(&th[i], NULL, launch_many, (void *)(intptr_t)(5000 + i)), 0);
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
}

Test(runtime, forked_child_starts_a_new_pool) {
    check_once(1000, 4); /* the parent's pool has workers now */
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        Args a = {.n = 1000, .hits = calloc(1000, sizeof(atomic_int))};
        int bad = qdrt_launch(hits_task, 1, &a, 4) != 0;
        for (int32_t i = 0; i < a.n; i++) bad |= atomic_load(&a.hits[i]) != 1;
        free(a.hits);
        _exit(bad ? 1 : 0);
    }
    int st = 0;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
    check_once(1000, 4);
}

/* qdrt_launch_loops: the exact order of tasks for two loops that end at one task (the inner one
 * is checked first) inside a run-once prologue and epilogue, with a parallel task in the inner
 * loop whose every iteration runs once per pass, on 1 and 4 threads. */
typedef struct {
    int32_t *outer, *inner;
    int32_t trace[32], ntrace;
    atomic_int *hits;
} LoopArgs;
static void loop_log(LoopArgs *a, int32_t t) {
    if (a->ntrace < 32) a->trace[a->ntrace] = t;
    a->ntrace++;
}
static void lt0(const void *p, int32_t b, int32_t e, qdrt_lane *l) { (void)b, (void)e, (void)l, loop_log((LoopArgs *)p, 0); }
static void lt1(const void *p, int32_t b, int32_t e, qdrt_lane *l) {
    LoopArgs *a = (LoopArgs *)p;
    (void)b, (void)e, (void)l, loop_log(a, 1), *a->inner = 2;
}
static void lt2(const void *p, int32_t b, int32_t e, qdrt_lane *l) {
    const LoopArgs *a = p;
    (void)l;
    for (int32_t i = b; i < e; i++) atomic_fetch_add(&a->hits[i], 1);
}
static int32_t lt2_extent(const void *p) { (void)p; return 100; }
static void lt3(const void *p, int32_t b, int32_t e, qdrt_lane *l) {
    LoopArgs *a = (LoopArgs *)p;
    (void)b, (void)e, (void)l, loop_log(a, 3);
    if (--*a->inner == 0) --*a->outer;
}
static void lt4(const void *p, int32_t b, int32_t e, qdrt_lane *l) { (void)b, (void)e, (void)l, loop_log((LoopArgs *)p, 4); }

Test(runtime, launch_loops_repeat_task_ranges) {
    static const qdrt_task tasks[] = {{lt0, 0, QDRT_SERIAL, 0, 0}, {lt1, 0, QDRT_SERIAL, 0, 0}, {lt2, lt2_extent, QDRT_PARALLEL, 0, 0},
                                      {lt3, 0, QDRT_SERIAL, 0, 0}, {lt4, 0, QDRT_SERIAL, 0, 0}};
    static const qdrt_loop loops[] = {{1, 3, (int32_t)offsetof(LoopArgs, outer)}, {2, 3, (int32_t)offsetof(LoopArgs, inner)}};
    static const int32_t want[] = {0, 1, 3, 3, 1, 3, 3, 1, 3, 3, 4};
    const int threads[] = {1, 4};
    for (int t = 0; t < 2; t++) {
        atomic_int hits[100] = {0};
        int32_t outer = 3, inner = 0;
        LoopArgs a = {.outer = &outer, .inner = &inner, .hits = hits};
        cr_assert_eq(qdrt_launch_loops(tasks, 5, loops, 2, &a, threads[t]), 0);
        cr_expect_eq(a.ntrace, 11, "%d tasks logged on %d threads", a.ntrace, threads[t]);
        for (int i = 0; i < 11 && i < a.ntrace; i++) cr_expect_eq(a.trace[i], want[i], "task %d: %d, want %d", i, a.trace[i], want[i]);
        for (int i = 0; i < 100; i++) cr_expect_eq(atomic_load(&hits[i]), 6, "iteration %d ran %d times", i, atomic_load(&hits[i]));
        cr_expect(outer == 0 && inner == 0);
    }
}
