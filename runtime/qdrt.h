/* libqdrt: the CPU runtime of qdc's C ABI (qdc-abi(7), ABI version 1). Runs the tasks of a
 * compiled kernel in order on N threads with a barrier between tasks; block tasks run each
 * block's lanes as coroutines on one thread, switching at qd.simt.block.sync(). */
#ifndef QDRT_H
#define QDRT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

#define QDRT_ABI_VERSION 1

typedef struct qdrt_lane qdrt_lane; /* a block lane; NULL outside block tasks */
/* Runs iterations [begin, end) of a parallel task (a serial task ignores the range). */
typedef void (*qdrt_task_fn)(const void *args, int32_t begin, int32_t end, qdrt_lane *lane);
/* The iteration count of a parallel task for these arguments. */
typedef int32_t (*qdrt_extent_fn)(const void *args);

enum { QDRT_PARALLEL = 0, QDRT_SERIAL = 1, QDRT_BLOCK = 2 };

typedef struct qdrt_task {
    qdrt_task_fn fn;
    qdrt_extent_fn extent; /* NULL for serial tasks */
    int32_t kind;          /* QDRT_PARALLEL, QDRT_SERIAL, QDRT_BLOCK (uses block constructs) */
    int32_t block_dim;     /* lanes per block (QDRT_BLOCK) */
    int32_t shared_bytes;  /* block-shared storage per block (QDRT_BLOCK) */
} qdrt_task;

/* Runs tasks[0..ntasks) in order on nthreads threads (<= 0: qdrt_default_threads()), each
 * task finished by all threads before the next starts. Returns 0, or an errno value when
 * threads or memory could not be had (nothing ran then). */
int qdrt_launch(const qdrt_task *tasks, int ntasks, const void *args, int nthreads);
/* A qd.graph.do_while loop (qdc-abi(7), "Do-while loops"): after task `last` the condition, the
 * int32_t that the ndarray pointer at byte cond_offset of the argument struct points at (element
 * 0), is read; non-zero: the run continues at task `first`. */
typedef struct qdrt_loop {
    int32_t first, last;
    int32_t cond_offset;
} qdrt_loop;

/* Runs tasks[0..ntasks) like qdrt_launch, repeating the loops: loops[] is in pre-order (a loop
 * before the loops inside it), each a range of at least one task, nested ranges inside their
 * loop's. After a task that ends loops, they are checked innermost first; the first whose
 * condition is non-zero continues at its first task (a do-while: a loop's tasks run at least
 * once). Each maximal range of tasks that no loop starts or ends inside is one qdrt_launch, so the
 * condition is read after all threads have finished the loop's last task. Returns 0, or the
 * first error of qdrt_launch (the ranges before it ran). */
int qdrt_launch_loops(const qdrt_task *tasks, int ntasks, const qdrt_loop *loops, int nloops, const void *args, int nthreads);
/* A checkpoint of a @qd.kernel(graph=True, checkpoints=True) (qdc-abi(7), "Checkpoints"): its
 * label (the cp_id) and the byte offset in the argument struct of the pointer to its yield_on
 * ndarray (a 32-bit integer, element 0 read), -1 for an implicit checkpoint (no label, no flag). */
typedef struct qdrt_checkpoint {
    int64_t label;
    int32_t yield_offset;
} qdrt_checkpoint;

/* What a launch of a checkpoints kernel reports (Quadrants' GraphStatus): yielded 1 when a
 * checkpoint's flag was non-zero after its tasks ran, then checkpoint its index and label its
 * cp_id; yielded 0, checkpoint -1 and label 0 otherwise. */
typedef struct qdrt_graph_status {
    int32_t yielded;
    int32_t checkpoint;
    int64_t label;
} qdrt_graph_status;

/* Runs tasks[0..ntasks) like qdrt_launch_loops, task t belonging to checkpoint task_cp[t] (-1:
 * none; a checkpoint's tasks are contiguous). from_label NULL runs from the start; else the
 * checkpoint of that label is found (EINVAL, nothing run, when none has it) and, until the
 * first loop condition is read, the tasks of every checkpoint before it are skipped. After the
 * last task of a checkpoint with a flag, a non-zero flag is a yield: no task of a checkpoint
 * runs after it in this launch (tasks of none still do) and no loop repeats. *status (may be
 * NULL) says whether and where it yielded. Returns 0 or the first error of qdrt_launch. */
int qdrt_launch_checkpoints(const qdrt_task *tasks, const int32_t *task_cp, int ntasks, const qdrt_loop *loops, int nloops,
                            const qdrt_checkpoint *cps, int ncps, const int64_t *from_label, const void *args, int nthreads,
                            qdrt_graph_status *status);
/* $QDRT_THREADS if set to a positive number, else the number of online CPUs. */
int qdrt_default_threads(void);

/* Called by compiled block tasks. */
void *qdrt_lane_shared(qdrt_lane *lane);      /* this block's shared storage (zeroed per block) */
int32_t qdrt_lane_thread_idx(qdrt_lane *lane); /* lane index within the block */
void qdrt_block_sync(qdrt_lane *lane);         /* barrier across the block's lanes */
/* Subgroup collectives (qdc's IR_SUBGROUP on x86-64): lanes [k*width, (k+1)*width) of a block
 * form subgroup k (fewer in a block's last subgroup when the block is smaller). Every lane of the
 * subgroup must make the same sequence of calls (uniform control flow, as on the GPU). Each call
 * is one barrier phase of the block: a lane deposits its operand, the lanes switch, and each
 * computes its result from its subgroup's deposits in lane order. code = op | type << 8 |
 * combine << 16; a carries the operand's bits (f32 in the low 32 bits); b is the lane operand
 * (shuffles). The result comes back the same way (ballot: a 64-bit mask; all/any: 0 or 1).
 * QDRT_SG_LANE returns the lane's index in its subgroup without switching; QDRT_SG_SYNC is the
 * subgroup barrier. Outside block tasks (lane NULL: a serial task) the subgroup is that one lane. */
enum { QDRT_SG_SHUFFLE, QDRT_SG_SHUFFLE_UP, QDRT_SG_SHUFFLE_DOWN, QDRT_SG_BALLOT, QDRT_SG_ALL, QDRT_SG_ANY,
       QDRT_SG_REDUCE, QDRT_SG_INCLUSIVE, QDRT_SG_EXCLUSIVE, QDRT_SG_LANE, QDRT_SG_SYNC };
enum { QDRT_SGT_I32, QDRT_SGT_U32, QDRT_SGT_I64, QDRT_SGT_U64, QDRT_SGT_F32, QDRT_SGT_F64 };
enum { QDRT_SGC_ADD, QDRT_SGC_MUL, QDRT_SGC_MIN, QDRT_SGC_MAX, QDRT_SGC_AND, QDRT_SGC_OR, QDRT_SGC_XOR };
uint64_t qdrt_subgroup(qdrt_lane *lane, int32_t code, uint64_t a, int32_t b, int32_t width);
/* Called by every iteration of a loop that waits on memory: a pause instruction, and every
 * 64th call a sched_yield(), so a waiter gives its core to the thread it waits for. */
void qdrt_spin_pause(void);
/* Joins libqdrt's worker threads and frees the pool (also done at exit); a later launch
 * starts a new one. Does nothing while a launch is running. */
void qdrt_shutdown(void);

#ifdef __cplusplus
}
#endif
#endif
