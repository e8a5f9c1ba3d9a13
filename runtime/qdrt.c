/* libqdrt implementation: a per-launch thread team, one pthread barrier between tasks,
 * iterations handed out in increasing order in contiguous chunks (so a spin-wait on a lower
 * iteration always makes progress), and coroutines for the lanes of a block. */
#include "qdrt.h"
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#define LANE_STACK (64 * 1024) /* kernels do not recurse; frames are small */

typedef struct Launch {
    const qdrt_task *tasks;
    int ntasks, nthreads;
    const void *args;
    pthread_barrier_t bar;
    atomic_int next;       /* next unit (iteration or block) to hand out */
    int32_t extent, chunk; /* of the current task */
} Launch;

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
    for (int i = 0; i < nlanes; i++) lane_init(b, i);
    for (int live = nlanes; live > 0;) {
        live = 0;
        for (int i = 0; i < nlanes; i++) {
            if (b->lanes[i].done) continue;
            lane_resume(b, &b->lanes[i]);
            live += !b->lanes[i].done;
        }
    }
}

static void run_blocks(Launch *L, const qdrt_task *t) {
    int bd = t->block_dim > 0 ? t->block_dim : 1;
    Block b = {.task = t, .args = L->args};
    b.lanes = calloc((size_t)bd, sizeof *b.lanes);
    b.stacks = malloc((size_t)bd * LANE_STACK);
    b.shared = malloc(t->shared_bytes > 0 ? (size_t)t->shared_bytes : 1);
    if (!b.lanes || !b.stacks || !b.shared) abort();
    int32_t nblocks = (int32_t)(((int64_t)L->extent + bd - 1) / bd);
    for (int32_t k; (k = atomic_fetch_add(&L->next, 1)) < nblocks;) {
        int64_t base = (int64_t)k * bd;
        run_block(&b, (int32_t)base, (int)(L->extent - base < bd ? L->extent - base : bd));
    }
    free(b.lanes);
    free(b.stacks);
    free(b.shared);
}

static void run_task(Launch *L, const qdrt_task *t, int tid) {
    if (t->kind == QDRT_SERIAL) {
        if (tid == 0) t->fn(L->args, 0, 1, NULL);
        return;
    }
    if (t->kind == QDRT_BLOCK) {
        run_blocks(L, t);
        return;
    }
    for (int32_t b; (b = atomic_fetch_add(&L->next, L->chunk)) < L->extent;) {
        int32_t e = L->extent - b < L->chunk ? L->extent : b + L->chunk;
        t->fn(L->args, b, e, NULL);
    }
}

/* Small chunks keep threads balanced; chunks of ~1/16 of a thread's share amortize the counter. */
static void prepare(Launch *L, const qdrt_task *t) {
    L->extent = t->extent ? t->extent(L->args) : 1;
    if (L->extent < 0) L->extent = 0;
    int64_t c = L->extent / ((int64_t)L->nthreads * 16);
    L->chunk = (int32_t)(c < 1 ? 1 : c > 65536 ? 65536 : c);
    atomic_store(&L->next, 0);
}

static void team(Launch *L, int tid) {
    for (int i = 0; i < L->ntasks; i++) {
        if (tid == 0) prepare(L, &L->tasks[i]);
        pthread_barrier_wait(&L->bar);
        run_task(L, &L->tasks[i], tid);
        pthread_barrier_wait(&L->bar);
    }
}

typedef struct { Launch *L; int tid; pthread_mutex_t *gate; } Worker;
static void *worker_main(void *p) {
    Worker *w = p;
    pthread_mutex_lock(w->gate); /* the team's size and barrier are final once this opens */
    pthread_mutex_unlock(w->gate);
    team(w->L, w->tid);
    return NULL;
}

int qdrt_launch(const qdrt_task *tasks, int ntasks, const void *args, int nthreads) {
    Launch L = {.tasks = tasks, .ntasks = ntasks, .args = args};
    int want = nthreads > 0 ? nthreads : qdrt_default_threads();
    pthread_t *th = calloc((size_t)want, sizeof *th);
    Worker *w = calloc((size_t)want, sizeof *w);
    if (!th || !w) return free(th), free(w), ENOMEM;
    pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&gate);
    int started = 1; /* a thread that cannot be created just makes the team smaller */
    for (; started < want; started++) {
        w[started] = (Worker){&L, started, &gate};
        if (pthread_create(&th[started], NULL, worker_main, &w[started])) break;
    }
    L.nthreads = started;
    int rc = pthread_barrier_init(&L.bar, NULL, (unsigned)started);
    if (rc) abort(); /* threads are already waiting on the gate: nothing sane to return */
    pthread_mutex_unlock(&gate);
    team(&L, 0);
    for (int i = 1; i < started; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&L.bar);
    free(th);
    free(w);
    return 0;
}
