/* Running qdc's SPIR-V on a Vulkan device from the suite (tools/vulkan-runner/vkrun, a client of
 * libqdrt's device API: what users call is what these runs prove), and the accounting of those runs.
 *
 * Environment (the Makefile's `unit`/`test-asan` set it): QDC_VKRUN (a built vkrun; else it is
 * built into the test's temp dir against QDC_RT, libqdrt.a), QDC_VULKAN_DIR (the private lavapipe of `make vulkan-deps`:
 * vkrun gets its libdir in LD_LIBRARY_PATH and its validation layer in VK_LAYER_PATH),
 * VK_DRIVER_FILES (the ICD). A run that cannot happen (no device: vkrun exits 77, or vkrun cannot
 * be built) is a SKIP, never a pass: it is counted, and when CI is set (non-empty, not "0" or
 * "false") it fails the test. The suite's last lines report "Vulkan runs: N executed, M SKIPPED".
 */
#ifndef QDC_TEST_VK_EXEC_H
#define QDC_TEST_VK_EXEC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's interface read from qdc's --emit=metadata (layout version 1). */
typedef struct {
    char name[64];
    int set, binding;
    size_t bytes; /* fields only: element size x element count */
} VkSlot;
typedef struct {
    char entry[96];
    int block_dim, groups; /* groups -1: sized by the launch (null in the metadata) */
    bool device;           /* "extent": "device": bounds read on the device, any grid covers them */
} VkTask;
typedef struct {
    VkSlot arrays[16], fields[32];
    int narrays, nfields;
    char scalar[64];
    int has_scalar;
    int push_size;
    struct { int array, offset, is_value; } push[24]; /* array: index into arrays (extent) */
    int npush;
    VkTask tasks[32];
    int ntasks;
    bool overflow; /* more tasks, fields or arrays than the arrays above hold */
    struct { int first, last, array; } loops[8]; /* qd.graph.do_while: tasks first..last while arrays[array][0] */
    int nloops;
} VkKernel;
bool vk_parse_kernel(const char *metadata, const char *kernel, VkKernel *k);

/* One ndarray argument: host bytes (read back after the run) and its extent. */
typedef struct {
    void *data;
    size_t bytes;
    int32_t extent;
} VkArray;

/* Groups of a launch: tasks with fixed groups keep them; the others get ceil(items / block_dim)
 * ("full") or min(3, that) ("few": the grid-stride loops turn), capped at 65535. A task whose
 * extent only the device knows gets the metadata's suggested groups, or 3 on a "few" grid. */
typedef enum { VK_FULL, VK_FEW } VkGrid;

/* Runs kernels (all with the same interface as the first) in order in one vkrun process (the
 * loops of a graph kernel repeat its tasks: vkrun --loop).
 * Returns 1 when it ran (arrays read back), 0 when skipped (counted; a CI failure), and -1 on
 * an error, with the message in *err (malloc'd). `runs` is how many kernel runs this is. */
int vk_run(const char *dir, const char *spv, const char *metadata, const char *const *kernels, int nkernels,
           VkArray *arrays, int narrays, const int32_t *scalar, int items, VkGrid grid, bool validate, char **err);

/* Writes src to DIR/NAME.py and compiles it for target (a vulkan* family) into DIR/NAME.spv
 * (*spv, malloc'd) and its metadata; returns the metadata's text (malloc'd). Asserts that both
 * compiles succeed. */
char *vk_compile(const char *dir, const char *name, const char *target, const char *src, char **spv);

/* Runs entry points (ENTRY:GROUPS) of a module without buffers under the validation layer's Debug
 * Printf (vkrun --printf). Returns 1 when it ran, with *out the printed lines, one per message,
 * in order (malloc'd); 0 when skipped (counted); -1 on an error (*err). */
int vk_run_printf(const char *dir, const char *spv, const char *const *entries, int nentries, char **out, char **err);

/* Runs a vkrun command line in vkrun's environment (the private lavapipe's libraries/layers). */
#include "harness.h"
RunResult vk_spawn(const char *const *argv);

/* Counts a skipped Vulkan run that never reached vkrun (the module could not be built, ...). */
void vk_count_skip(int runs, const char *why);
#endif
