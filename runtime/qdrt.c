/* libqdrt implementation: a persistent pool of worker threads (a per-launch team when the pool
 * is busy), one barrier between tasks, each thread's contiguous share of the iterations handed
 * out front to back in chunks (so a spin-wait on a lower iteration always makes progress), and
 * coroutines for the lanes of a block. */
#include "qdrt.h"
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define LANE_STACK (64 * 1024) /* kernels do not recurse; frames are small */

/* One thread's share [next, end) of a parallel task; others take chunks of it once theirs is
 * done. On its own cache line: the owner's claims do not contend with anyone else's. */
typedef struct Range {
    _Alignas(64) atomic_llong next;
    int64_t end;
} Range;

/* The launch a team is running. mu guards the barrier and the workers' wake-ups. */
typedef struct Team {
    pthread_mutex_t mu;
    pthread_cond_t bar_cv;
    int joined;          /* threads that have joined this launch */
    int waiting;         /* of them, threads at the barrier */
    atomic_uint bar_gen; /* barrier phase; changed under mu */
    const qdrt_task *tasks;
    int ntasks, nthreads, task;
    const void *args;
    int32_t extent, chunk;  /* of the current task */
    atomic_int next_block;  /* next block to hand out (QDRT_BLOCK) */
    Range *ranges;          /* nthreads shares (QDRT_PARALLEL) */
    int nranges;            /* allocated */
} Team;

/* Lane switching: a six-register stack switch on x86-64 (ucontext's swapcontext makes a
 * signal-mask system call per switch, which dominated block tasks); ucontext elsewhere and
 * under AddressSanitizer, which understands only swapcontext. */
#if defined(__SANITIZE_ADDRESS__)
#define QDRT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QDRT_ASAN 1
#endif
#endif
#if defined(__x86_64__) && !defined(QDRT_ASAN)
#define QDRT_FAST_SWITCH 1
#endif

typedef struct Block {
    qdrt_lane *lanes;
    char *stacks;
    void *shared;
    int nlanes;
    const qdrt_task *task;
    const void *args;
    int32_t base;
    uint64_t *sg_vals[2]; /* subgroup deposits, one per lane, in two alternating phases */
#ifdef QDRT_FAST_SWITCH
    void *sched_sp;
#else
    ucontext_t sched;
#endif
} Block;

struct qdrt_lane {
    Block *blk;
    int32_t idx;
    int done;
    int sg_phase; /* which deposit phase the lane's next collective uses */
#ifdef QDRT_FAST_SWITCH
    void *sp;
#else
    ucontext_t ctx;
#endif
};

int qdrt_default_threads(void) {
    const char *e = getenv("QDRT_THREADS");
    int n = e ? atoi(e) : 0;
    if (n > 0) return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c > 0 ? (int)c : 1;
}

void qdrt_spin_pause(void) {
    static _Thread_local unsigned spins;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (++spins % 64 == 0) sched_yield();
}

void *qdrt_lane_shared(qdrt_lane *lane) { return lane->blk->shared; }
int32_t qdrt_lane_thread_idx(qdrt_lane *lane) { return lane->idx; }

static void lane_run(qdrt_lane *l) {
    int32_t i = l->blk->base + l->idx;
    l->blk->task->fn(l->blk->args, i, i + 1, l);
    l->done = 1;
}

#ifdef QDRT_FAST_SWITCH
/* qdrt_switch_(save, to): push the callee-saved registers, *save = rsp, rsp = to, pop, ret. */
void qdrt_switch_(void **save, void *to);
__asm__(".text\n.p2align 4\n.globl qdrt_switch_\n.hidden qdrt_switch_\n.type qdrt_switch_,@function\n"
        "qdrt_switch_:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n.size qdrt_switch_, .-qdrt_switch_\n");

static _Thread_local qdrt_lane *starting; /* the lane a first switch enters */

static void lane_entry(void) {
    qdrt_lane *l = starting;
    lane_run(l);
    void *dead;
    qdrt_switch_(&dead, l->blk->sched_sp); /* never resumed */
    abort();
}

static void lane_init(Block *b, int i) {
    qdrt_lane *l = &b->lanes[i];
    l->blk = b, l->idx = i, l->done = 0;
    uintptr_t top = ((uintptr_t)(b->stacks + (size_t)(i + 1) * LANE_STACK)) & ~(uintptr_t)15;
    void **sp = (void **)(top - 16); /* return slot 16-aligned: entry sees rsp % 16 == 8 */
    sp[0] = (void *)(uintptr_t)lane_entry;
    sp[1] = NULL;
    sp -= 6; /* r15 r14 r13 r12 rbx rbp */
    memset(sp, 0, 6 * sizeof *sp);
    l->sp = sp;
}

static void lane_resume(Block *b, qdrt_lane *l) {
    starting = l;
    qdrt_switch_(&b->sched_sp, l->sp);
}
void qdrt_block_sync(qdrt_lane *lane) { qdrt_switch_(&lane->sp, lane->blk->sched_sp); }
#else
static void lane_main(unsigned lo, unsigned hi) {
    lane_run((qdrt_lane *)(((uintptr_t)hi << 32) | (uintptr_t)lo)); /* returning resumes uc_link */
}

/* getcontext returns twice: it lives in its own frame so no caller variable is clobbered. */
static void lane_init(Block *b, int i) {
    qdrt_lane *l = &b->lanes[i];
    l->blk = b, l->idx = i, l->done = 0;
    getcontext(&l->ctx);
    l->ctx.uc_stack.ss_sp = b->stacks + (size_t)i * LANE_STACK;
    l->ctx.uc_stack.ss_size = LANE_STACK;
    l->ctx.uc_link = &b->sched;
    uintptr_t p = (uintptr_t)l;
    makecontext(&l->ctx, (void (*)(void))lane_main, 2, (unsigned)(p & 0xffffffffu), (unsigned)(p >> 32));
}

static void lane_resume(Block *b, qdrt_lane *l) { swapcontext(&b->sched, &l->ctx); }
void qdrt_block_sync(qdrt_lane *lane) { swapcontext(&lane->ctx, &lane->blk->sched); }
#endif

/* One block: every round resumes each unfinished lane once; a lane runs until its next
 * qdrt_block_sync or its end, so a round is exactly one barrier phase. */
static void run_block(Block *b, int32_t base, int nlanes) {
    b->base = base;
    b->nlanes = nlanes;
    memset(b->shared, 0, (size_t)b->task->shared_bytes);
    for (int i = 0; i < nlanes; i++) lane_init(b, i), b->lanes[i].sg_phase = 0;
    for (int live = nlanes; live > 0;) {
        live = 0;
        for (int i = 0; i < nlanes; i++) {
            if (b->lanes[i].done) continue;
            lane_resume(b, &b->lanes[i]);
            live += !b->lanes[i].done;
        }
    }
}

static void run_blocks(Team *T, const qdrt_task *t) {
    int bd = t->block_dim > 0 ? t->block_dim : 1;
    Block b = {.task = t, .args = T->args};
    b.lanes = calloc((size_t)bd, sizeof *b.lanes);
    b.stacks = malloc((size_t)bd * LANE_STACK);
    b.shared = malloc(t->shared_bytes > 0 ? (size_t)t->shared_bytes : 1);
    for (int p = 0; p < 2; p++) {
        b.sg_vals[p] = calloc((size_t)bd, sizeof *b.sg_vals[p]);
        if (!b.sg_vals[p]) abort();
    }
    if (!b.lanes || !b.stacks || !b.shared) abort();
    int32_t nblocks = (int32_t)(((int64_t)T->extent + bd - 1) / bd);
    for (int32_t k; (k = atomic_fetch_add(&T->next_block, 1)) < nblocks;) {
        int64_t base = (int64_t)k * bd;
        run_block(&b, (int32_t)base, (int)(T->extent - base < bd ? T->extent - base : bd));
    }
    free(b.lanes);
    free(b.stacks);
    free(b.shared);
    for (int p = 0; p < 2; p++) free(b.sg_vals[p]);
}

/* ---- subgroup collectives ---- */

/* One scan/reduction over the n deposits v[0..n) of a subgroup for lane `me`, in type T. */
#define SG_COMBINE_INT(T, U, x, y, c) (c == QDRT_SGC_ADD ? (T)((U)x + (U)y) : c == QDRT_SGC_MUL ? (T)((U)x * (U)y) : \
    c == QDRT_SGC_MIN ? (x < y ? x : y) : c == QDRT_SGC_MAX ? (x > y ? x : y) : c == QDRT_SGC_AND ? (T)(x & y) : \
    c == QDRT_SGC_OR ? (T)(x | y) : (T)(x ^ y))
#define SG_COMBINE_FLT(T, U, x, y, c) (c == QDRT_SGC_ADD ? x + y : c == QDRT_SGC_MUL ? x * y : \
    c == QDRT_SGC_MIN ? (x < y || y != y ? x : y) : (x > y || y != y ? x : y))
#define SG_SCAN(NAME, T, U, COMBINE, ID_MIN, ID_MAX)                                                   \
    static uint64_t NAME(int op, int c, const uint64_t *v, int n, int me) {                            \
        T acc = c == QDRT_SGC_MUL ? (T)1 : c == QDRT_SGC_MIN ? ID_MIN : c == QDRT_SGC_MAX ? ID_MAX :  \
                c == QDRT_SGC_AND ? (T)~(U)0 : (T)0;                                                   \
        int upto = op == QDRT_SG_REDUCE ? n : op == QDRT_SG_INCLUSIVE ? me + 1 : me;                  \
        for (int i = 0; i < upto; i++) {                                                               \
            U bits = (U)v[i];                                                                          \
            T x;                                                                                       \
            memcpy(&x, &bits, sizeof x);                                                               \
            acc = i == 0 && c != QDRT_SGC_MIN && c != QDRT_SGC_MAX ? x : COMBINE(T, U, acc, x, c);            \
        }                                                                                              \
        U out;                                                                                         \
        memcpy(&out, &acc, sizeof out);                                                                \
        return (uint64_t)out;                                                                          \
    }
SG_SCAN(sg_i32, int32_t, uint32_t, SG_COMBINE_INT, INT32_MAX, INT32_MIN)
SG_SCAN(sg_u32, uint32_t, uint32_t, SG_COMBINE_INT, UINT32_MAX, 0)
SG_SCAN(sg_i64, int64_t, uint64_t, SG_COMBINE_INT, INT64_MAX, INT64_MIN)
SG_SCAN(sg_u64, uint64_t, uint64_t, SG_COMBINE_INT, UINT64_MAX, 0)
SG_SCAN(sg_f32, float, uint32_t, SG_COMBINE_FLT, INFINITY, -INFINITY)
SG_SCAN(sg_f64, double, uint64_t, SG_COMBINE_FLT, INFINITY, -INFINITY)

/* A subgroup of one lane (a serial task): every collective sees only the lane's own operand. */
static uint64_t sg_alone(int op, int type, int c, uint64_t a, int32_t b) {
    static uint64_t (*const typed[])(int, int, const uint64_t *, int, int) = {sg_i32, sg_u32, sg_i64, sg_u64, sg_f32, sg_f64};
    switch (op) {
    case QDRT_SG_LANE: case QDRT_SG_SYNC: return 0;
    case QDRT_SG_SHUFFLE: case QDRT_SG_SHUFFLE_UP: case QDRT_SG_SHUFFLE_DOWN: (void)b; return a;
    case QDRT_SG_BALLOT: case QDRT_SG_ALL: case QDRT_SG_ANY: return (uint32_t)a != 0;
    default:
        if (type < 0 || type > QDRT_SGT_F64) abort();
        return typed[type](op, c, &a, 1, 0);
    }
}

uint64_t qdrt_subgroup(qdrt_lane *lane, int32_t code, uint64_t a, int32_t b, int32_t width) {
    int op = code & 0xff, type = (code >> 8) & 0xff, c = (code >> 16) & 0xff;
    if (!lane) return sg_alone(op, type, c, a, b);
    if (op == QDRT_SG_LANE) return (uint64_t)(lane->idx % (width > 0 ? width : 1));
    if (op == QDRT_SG_SYNC) return qdrt_block_sync(lane), 0;
    Block *blk = lane->blk;
    int p = lane->sg_phase;
    int w = width > 0 ? width : 1, base = lane->idx / w * w, me = lane->idx - base;
    int n = blk->nlanes - base < w ? blk->nlanes - base : w;
    lane->sg_phase ^= 1;
    blk->sg_vals[p][lane->idx] = a;
    qdrt_block_sync(lane); /* every lane of the block has deposited (or finished) */
    const uint64_t *v = blk->sg_vals[p] + base;
    uint64_t r = 0;
    switch (op) {
    case QDRT_SG_SHUFFLE: return b >= 0 && b < n ? v[b] : a;
    case QDRT_SG_SHUFFLE_UP: return b >= 0 && me - b >= 0 ? v[me - b] : a;
    case QDRT_SG_SHUFFLE_DOWN: return b >= 0 && me + b < n ? v[me + b] : a;
    case QDRT_SG_BALLOT:
        for (int i = 0; i < n && i < 64; i++) r |= (uint64_t)((uint32_t)v[i] != 0) << i;
        return r;
    case QDRT_SG_ALL: case QDRT_SG_ANY:
        for (int i = 0; i < n; i++) r += (uint32_t)v[i] != 0;
        return op == QDRT_SG_ALL ? r == (uint64_t)n : r != 0;
    default: break;
    }
    static uint64_t (*const typed[])(int, int, const uint64_t *, int, int) = {sg_i32, sg_u32, sg_i64, sg_u64, sg_f32, sg_f64};
    if (type < 0 || type > QDRT_SGT_F64) abort();
    return typed[type](op, c, v, n, me);
}

/* Runs the chunks of one share, front to back, until it is used up. */
static void run_range(Team *T, const qdrt_task *t, Range *r) {
    for (int64_t b; (b = atomic_fetch_add(&r->next, T->chunk)) < r->end;) {
        int64_t e = r->end - b < T->chunk ? r->end : b + T->chunk;
        t->fn(T->args, (int32_t)b, (int32_t)e, NULL);
    }
}

/* A thread runs its own share, then helps with the others' (the next thread's first). Every
 * share is handed out in increasing order, and a share's owner stays on it until it is all
 * handed out, so the lowest unfinished iteration is always running or about to run: an
 * iteration that spins until a lower one has published cannot deadlock. */
static void run_task(Team *T, const qdrt_task *t, int tid) {
    if (t->kind == QDRT_SERIAL) {
        if (tid == 0) t->fn(T->args, 0, 1, NULL);
    } else if (t->kind == QDRT_BLOCK) {
        run_blocks(T, t);
    } else {
        for (int k = 0; k < T->nthreads; k++) run_range(T, t, &T->ranges[(tid + k) % T->nthreads]);
    }
}

/* Contiguous equal shares, like a static schedule; chunks of ~1/16 of a share keep stealing
 * balanced and cost one uncontended atomic per chunk. */
static void prepare(Team *T) {
    const qdrt_task *t = &T->tasks[T->task];
    T->extent = t->extent ? t->extent(T->args) : 1;
    if (T->extent < 0) T->extent = 0;
    int n = T->nthreads;
    int64_t c = T->extent / ((int64_t)n * 16);
    T->chunk = (int32_t)(c < 1 ? 1 : c > 65536 ? 65536 : c);
    atomic_store(&T->next_block, 0);
    for (int i = 0; i < n; i++) {
        atomic_store(&T->ranges[i].next, (int64_t)T->extent * i / n);
        T->ranges[i].end = (int64_t)T->extent * (i + 1) / n;
    }
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spins up to ns nanoseconds for *g to leave old: a wake-up through the kernel costs tens of
 * microseconds, more than a short task. Returns whether it changed. */
static bool spin_while(atomic_uint *g, unsigned old, int64_t ns) {
    int64_t t0 = now_ns();
    for (unsigned i = 1;; i++) {
        if (atomic_load_explicit(g, memory_order_acquire) != old) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (i % 64 == 0 && now_ns() - t0 > ns) return false;
    }
}

#define BARRIER_SPIN_NS 20000
#define IDLE_SPIN_NS 50000

/* The barrier after task T->task; the last thread to arrive prepares the next task. Only the
 * threads that have joined the launch count: a worker still waking up has claimed nothing (its
 * share is taken by the others), so the task can be over without it and it joins later. */
static void barrier(Team *T) {
    pthread_mutex_lock(&T->mu);
    unsigned gen = atomic_load(&T->bar_gen);
    if (++T->waiting == T->joined) {
        T->waiting = 0;
        if (++T->task < T->ntasks) prepare(T);
        atomic_store_explicit(&T->bar_gen, gen + 1, memory_order_release);
        pthread_cond_broadcast(&T->bar_cv);
        pthread_mutex_unlock(&T->mu);
        return;
    }
    pthread_mutex_unlock(&T->mu);
    if (spin_while(&T->bar_gen, gen, BARRIER_SPIN_NS)) return;
    pthread_mutex_lock(&T->mu);
    while (atomic_load(&T->bar_gen) == gen) pthread_cond_wait(&T->bar_cv, &T->mu);
    pthread_mutex_unlock(&T->mu);
}

/* Runs tasks [first, ntasks). ntasks is the caller's copy: once past the last barrier a thread
 * must not read T, which the next launch may already be filling in. */
static void team_run(Team *T, int tid, int first, int ntasks) {
    for (int i = first; i < ntasks; i++) {
        run_task(T, &T->tasks[i], tid);
        barrier(T);
    }
}

/* ---- the thread pool: worker k (1-based) is thread k of every team of more than k ---- */

typedef struct Pool Pool;
typedef struct Worker {
    Pool *pool;
    pthread_t th;
    pthread_cond_t wake;
    int tid;
    unsigned seen; /* the last launch it joined */
} Worker;

struct Pool {
    Team team;
    pthread_mutex_t busy;   /* held for a whole launch */
    Worker **w;             /* w[1..nworkers] */
    int nworkers;
    atomic_uint launch_gen; /* changed under team.mu, like quit */
    int quit;
};

static void *worker_main(void *arg) {
    Worker *w = arg;
    Team *T = &w->pool->team;
    for (;;) {
        spin_while(&w->pool->launch_gen, w->seen, IDLE_SPIN_NS); /* back-to-back launches */
        pthread_mutex_lock(&T->mu);
        while (w->seen == w->pool->launch_gen && !w->pool->quit) pthread_cond_wait(&w->wake, &T->mu);
        /* a wake-up for a smaller team, or after the launch ended without it, runs nothing */
        int quit = w->pool->quit, first = T->task, ntasks = !quit && w->tid < T->nthreads ? T->ntasks : 0;
        w->seen = w->pool->launch_gen;
        T->joined += first < ntasks;
        pthread_mutex_unlock(&T->mu);
        if (quit) return NULL;
        team_run(T, w->tid, first, ntasks);
    }
}

/* Grows the pool to want - 1 workers, or as many as can be had; called with team.mu held. */
static void pool_grow(Pool *p, int want) {
    if (want - 1 <= p->nworkers) return;
    Worker **nw = realloc(p->w, sizeof *nw * (size_t)want);
    if (!nw) return;
    p->w = nw;
    while (p->nworkers < want - 1) {
        Worker *w = calloc(1, sizeof *w);
        if (!w) return;
        *w = (Worker){.pool = p, .tid = p->nworkers + 1, .seen = p->launch_gen};
        pthread_cond_init(&w->wake, NULL);
        if (pthread_create(&w->th, NULL, worker_main, w)) {
            pthread_cond_destroy(&w->wake);
            free(w);
            return;
        }
        p->w[++p->nworkers] = w;
    }
}

static void pool_init(Pool *p) {
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->team.mu, NULL);
    pthread_cond_init(&p->team.bar_cv, NULL);
    pthread_mutex_init(&p->busy, NULL);
}

/* Stops and joins the workers and frees everything; p is empty and usable afterwards. */
static void pool_stop(Pool *p) {
    pthread_mutex_lock(&p->team.mu);
    p->quit = 1;
    for (int i = 1; i <= p->nworkers; i++) pthread_cond_signal(&p->w[i]->wake);
    pthread_mutex_unlock(&p->team.mu);
    for (int i = 1; i <= p->nworkers; i++) {
        pthread_join(p->w[i]->th, NULL);
        pthread_cond_destroy(&p->w[i]->wake);
        free(p->w[i]);
    }
    free(p->w);
    free(p->team.ranges);
    p->w = NULL, p->team.ranges = NULL;
    p->nworkers = p->team.nranges = p->quit = 0;
}

static void pool_destroy(Pool *p) {
    pool_stop(p);
    pthread_mutex_destroy(&p->team.mu);
    pthread_cond_destroy(&p->team.bar_cv);
    pthread_mutex_destroy(&p->busy);
}

/* Runs one launch on p (whose busy lock the caller holds); ENOMEM when nothing could run. */
static int pool_launch(Pool *p, const qdrt_task *tasks, int ntasks, const void *args, int want) {
    Team *T = &p->team;
    pthread_mutex_lock(&T->mu);
    pool_grow(p, want);
    int n = want - 1 < p->nworkers ? want : p->nworkers + 1;
    if (T->nranges < n) {
        Range *r = aligned_alloc(64, sizeof *r * (size_t)n);
        if (!r) return pthread_mutex_unlock(&T->mu), ENOMEM;
        free(T->ranges);
        T->ranges = r, T->nranges = n;
    }
    T->tasks = tasks, T->ntasks = ntasks, T->args = args, T->nthreads = n, T->task = 0;
    T->joined = 1, T->waiting = 0;
    prepare(T);
    p->launch_gen++;
    for (int i = 1; i < n; i++) pthread_cond_signal(&p->w[i]->wake);
    pthread_mutex_unlock(&T->mu);
    team_run(T, 0, 0, ntasks);
    return 0;
}

/* The shared pool; a launch that finds it busy (another host thread is launching) runs on a
 * team of its own, started and joined for that launch. */
static Pool g_pool;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* A forked child has none of the workers: it forgets them and starts an empty pool. */
static void after_fork_child(void) {
    for (int i = 1; i <= g_pool.nworkers; i++) free(g_pool.w[i]);
    free(g_pool.w);
    free(g_pool.team.ranges);
    pool_init(&g_pool);
}
static void g_init(void) {
    pool_init(&g_pool);
    pthread_atfork(NULL, NULL, after_fork_child);
}

int qdrt_launch(const qdrt_task *tasks, int ntasks, const void *args, int nthreads) {
    int want = nthreads > 0 ? nthreads : qdrt_default_threads();
    if (ntasks <= 0) return 0;
    pthread_once(&g_once, g_init);
    if (pthread_mutex_trylock(&g_pool.busy) == 0) {
        int rc = pool_launch(&g_pool, tasks, ntasks, args, want);
        pthread_mutex_unlock(&g_pool.busy);
        return rc;
    }
    Pool *own = malloc(sizeof *own);
    if (!own) return ENOMEM;
    pool_init(own);
    int rc = pool_launch(own, tasks, ntasks, args, want);
    pool_destroy(own);
    free(own);
    return rc;
}

static int32_t loop_condition(const void *args, const qdrt_loop *l) {
    const int32_t *flag;
    memcpy(&flag, (const char *)args + l->cond_offset, sizeof flag);
    return flag[0];
}

int qdrt_launch_loops(const qdrt_task *tasks, int ntasks, const qdrt_loop *loops, int nloops, const void *args, int nthreads) {
    for (int pc = 0; pc < ntasks;) {
        int stop = ntasks; /* the next loop boundary after pc */
        for (int l = 0; l < nloops; l++) {
            if (loops[l].first > pc && loops[l].first < stop) stop = loops[l].first;
            if (loops[l].last + 1 > pc && loops[l].last + 1 < stop) stop = loops[l].last + 1;
        }
        int rc = qdrt_launch(tasks + pc, stop - pc, args, nthreads);
        if (rc) return rc;
        pc = stop;
        for (int l = nloops - 1; l >= 0; l--) /* pre-order backwards: the innermost loop first */
            if (loops[l].last == stop - 1 && loop_condition(args, &loops[l])) {
                pc = loops[l].first;
                break;
            }
    }
    return 0;
}

static int32_t flag_at(const void *args, int32_t offset) {
    const int32_t *flag;
    memcpy(&flag, (const char *)args + offset, sizeof flag);
    return flag[0];
}

int qdrt_launch_checkpoints(const qdrt_task *tasks, const int32_t *task_cp, int ntasks, const qdrt_loop *loops, int nloops,
                            const qdrt_checkpoint *cps, int ncps, const int64_t *from_label, const void *args, int nthreads,
                            qdrt_graph_status *status) {
    int32_t resume = 0, yielded = -1;
    if (status) *status = (qdrt_graph_status){0, -1, 0};
    if (from_label) { /* implicit checkpoints have no label: never a resume target */
        resume = -1;
        for (int c = 0; c < ncps && resume < 0; c++)
            if (cps[c].yield_offset >= 0 && cps[c].label == *from_label) resume = c;
        if (resume < 0) return EINVAL;
    }
    for (int pc = 0; pc < ntasks;) {
        int stop = pc + 1; /* a run of one checkpoint's tasks that no loop starts or ends inside */
        while (stop < ntasks && task_cp[stop] == task_cp[pc]) {
            bool edge = false;
            for (int l = 0; l < nloops; l++) edge |= loops[l].first == stop || loops[l].last + 1 == stop;
            if (edge) break;
            stop++;
        }
        int32_t cp = task_cp[pc];
        if (cp < 0 || (cp >= resume && yielded < 0)) {
            int rc = qdrt_launch(tasks + pc, stop - pc, args, nthreads);
            if (rc) return rc;
            if (cp >= 0 && cp < ncps && (stop == ntasks || task_cp[stop] != cp) && cps[cp].yield_offset >= 0 &&
                flag_at(args, cps[cp].yield_offset))
                yielded = cp; /* the first wins: no checkpoint task runs after it */
        }
        pc = stop;
        for (int l = nloops - 1; l >= 0; l--) /* pre-order backwards: the innermost loop first */
            if (loops[l].last == stop - 1) {
                resume = 0; /* a resume skips on the first pass only */
                if (yielded >= 0) continue; /* a yield leaves every loop */
                if (loop_condition(args, &loops[l])) {
                    pc = loops[l].first;
                    break;
                }
            }
    }
    if (status && yielded >= 0) *status = (qdrt_graph_status){1, yielded, cps[yielded].label};
    return 0;
}

void qdrt_shutdown(void) {
    pthread_once(&g_once, g_init);
    if (pthread_mutex_trylock(&g_pool.busy)) return; /* a launch is running: leave it be */
    pool_stop(&g_pool);
    pthread_mutex_unlock(&g_pool.busy);
}

/* At exit the workers are joined, so leak checkers see no live threads or blocks. */
__attribute__((destructor)) static void qdrt_fini(void) { qdrt_shutdown(); }
