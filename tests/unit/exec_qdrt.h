/* The examples and the atomics matrix of exec_spec.h run through libqdrt's device API (qdrt(3)):
 * shared by the suite (test_qdrt.c, on lavapipe and the CPU) and the CUDA launcher
 * (tools/cuda-launcher, `make gpu-check`), so the GPU check proves what users call. Plain C17,
 * libc and libqdrt only. */
#ifndef QDC_EXEC_QDRT_H
#define QDC_EXEC_QDRT_H
#include "exec_spec.h"
#include "../../runtime/qdrt_device.h"

/* Example ex at size n through qdrt_launch_kernel on m's device: the arrays in parameter order,
 * the scalar where it is, read back and checked. Returns 1 exact, 0 a mismatch (why), -1 a
 * libqdrt failure (why: the call and qdrt_error()). */
int exec_qdrt_example(qdrt_module *m, const Example *ex, int n, char *why, size_t whylen);

/* Every kernel of one matrix file (kernel parameters n, v, w, tgt, old) on n elements through
 * qdrt_launch_kernel, each judged by xcheck. Returns the number of kernels that failed the
 * check (the first's reason in why), or -1 on a libqdrt failure (why). */
int exec_qdrt_matrix(qdrt_module *m, const XFile *f, int n, uint32_t seed, char *why, size_t whylen);
#endif
